import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { discover } from "skillset";
import { createIndexOrigin, INDEX_PATH, publishSkills } from "skillset/sources";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// A node:http peer serving a well-known index written by `publishSkills`, with switches for the failure cases.
let server: Server;
let base = "";
let site = "";
let mode: "ok" | "500" | "hang" = "ok";
const overrides = new Map<string, string>();
const missing = new Set<string>();

beforeAll(async () => {
	site = await tempDir();
	server = createServer(async (req, res) => {
		if (mode === "500") return void res.writeHead(500).end("down");
		if (mode === "hang") return; // never answers: the origin's timeout must end the wait
		const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
		if (missing.has(path)) return void res.writeHead(404).end();
		const body = overrides.get(path) ?? (await readFile(join(site, path)).catch(() => undefined));
		if (body === undefined) return void res.writeHead(404).end();
		res.writeHead(200).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
	server.closeAllConnections();
	return new Promise<void>((resolve) => server.close(() => resolve()));
});

async function publish(files: Record<string, string>): Promise<void> {
	const root = await writeTree(await tempDir(), files);
	const names = [...new Set(Object.keys(files).map((path) => path.split("/")[0] as string))];
	await publishSkills(
		names.map((name) => ({ name, description: `Does ${name} things.`, dir: join(root, name) })),
		site,
	);
}

beforeEach(() => {
	mode = "ok";
	overrides.clear();
	missing.clear();
});

/** A workspace with its own cache; `v1` reads the site's v0.1.0 index, named by its URL, with allowUnverified. */
async function workspace(local: Record<string, string> = {}, v1 = false) {
	const cwd = await writeTree(await tempDir(), local);
	const cacheDir = await tempDir();
	const url = v1 ? `${base}/.well-known/skills/index.json` : base;
	const run = (timeoutMs = 5000) =>
		discover({
			cwd,
			home: cwd,
			origins: [
				createIndexOrigin("acme", url, { cacheDir, limits: { maxBytes: 1 << 20, timeoutMs }, allowUnverified: v1 }),
			],
		});
	return { cwd, cacheDir, run };
}

describe("a well-known index as a discovery origin", () => {
	it("adds verified remote skills tagged with their origin, and never lets them shadow a local skill", async () => {
		await publish({
			"pdf/SKILL.md": skillMd("pdf", "Remote PDF."),
			"xlsx/SKILL.md": skillMd("xlsx"),
			"xlsx/scripts/a.py": "print(1)\n",
		});
		const ws = await workspace({ ".agents/skills/pdf/SKILL.md": skillMd("pdf", "Local PDF.") });
		const { index, report } = await ws.run();
		expect(index.get("pdf")).toMatchObject({ scope: "workspace", description: "Local PDF." });
		expect(index.get("pdf@index:acme")).toMatchObject({
			origin: "index:acme",
			name: "pdf@index:acme",
			status: "selected",
		});
		expect(index.get("xlsx")).toMatchObject({ origin: "index:acme", name: "xlsx", qualifiedName: "xlsx@index:acme" });
		expect(index.catalogSkills.map((s) => s.name).sort()).toEqual(["pdf", "pdf@index:acme", "xlsx"]);
		const remotePdf = index.get("pdf@index:acme");
		expect(remotePdf?.diagnostics.map((d) => d.code)).toContain("origin.collision");
		expect(remotePdf?.dir.startsWith(ws.cacheDir)).toBe(true);
		expect(report.roots.map((root) => root.scope)).toContain("remote");
	});

	it("refuses a tampered artifact and keeps serving the last verified copy", async () => {
		await publish({ "notes/SKILL.md": skillMd("notes", "Version one.") });
		const ws = await workspace();
		expect((await ws.run()).index.get("notes")?.description).toBe("Version one.");
		// A new version is listed, but what is served under it is not what the listing's digest says.
		await publish({ "notes/SKILL.md": skillMd("notes", "Version two.") });
		overrides.set(`/${INDEX_PATH.replace("index.json", "notes/SKILL.md")}`, skillMd("notes", "Tampered."));
		const { index, report } = await ws.run();
		expect(index.get("notes")?.description).toBe("Version one.");
		const codes = report.diagnostics.map((d) => d.code);
		expect(codes).toContain("origin.refused");
	});

	it("serves the cached copies when the origin answers 500, and says so", async () => {
		await publish({ "cached/SKILL.md": skillMd("cached") });
		const ws = await workspace();
		await ws.run();
		mode = "500";
		const { index, report } = await ws.run();
		expect(index.get("cached")?.origin).toBe("index:acme");
		expect(report.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(["origin.failed", "origin.cached"]));
	});

	it("gives up on an origin that hangs within its timeout, and local discovery goes on", async () => {
		mode = "hang";
		const ws = await workspace({ ".agents/skills/local/SKILL.md": skillMd("local") });
		const started = Date.now();
		const { index, report } = await ws.run(300);
		expect(Date.now() - started).toBeLessThan(3000);
		expect(index.get("local")).toBeDefined();
		expect(report.diagnostics.map((d) => d.code)).toContain("origin.failed");
	});

	it("refuses an index with an unknown $schema", async () => {
		const ws = await workspace({ ".agents/skills/local/SKILL.md": skillMd("local") });
		overrides.set(`/${INDEX_PATH}`, JSON.stringify({ $schema: "https://example.com/v9.json", skills: [] }));
		const { index, report } = await ws.run();
		expect(report.diagnostics.find((d) => d.code === "origin.failed")?.message).toMatch(/unknown \$schema/);
		expect(index.skills.map((s) => s.name)).toEqual(["local"]);
	});

	it("reads a v0.1.0 index (no $schema, no digests), named and allowed, with a warning that nothing was verified", async () => {
		await writeTree(site, {
			".well-known/skills/index.json": JSON.stringify({
				skills: [{ name: "old", description: "Old.", files: ["SKILL.md"] }],
			}),
			".well-known/skills/old/SKILL.md": skillMd("old"),
		});
		const ws = await workspace({}, true);
		const { index, report } = await ws.run();
		expect(index.get("old")?.origin).toBe("index:acme");
		expect(report.diagnostics.find((d) => d.code === "origin.failed")?.message).toMatch(
			/v0\.1\.0 index has no digests/,
		);
	});

	it("refuses a cached copy changed on disk", async () => {
		await publish({ "edited/SKILL.md": skillMd("edited") });
		const ws = await workspace();
		const first = await ws.run();
		const file = first.index.get("edited")?.file as string;
		await writeFile(file, skillMd("edited", "Changed behind our back."));
		mode = "500";
		const { index, report } = await ws.run();
		expect(index.get("edited")).toBeUndefined();
		expect(report.diagnostics.map((d) => d.code)).toContain("origin.refused");
	});

	it("skips entries that point to another kind of place (a file: URL from an HTTP index, a v0.1.0 file outside its folder)", async () => {
		const digest = `sha256:${"0".repeat(64)}`;
		overrides.set(
			`/${INDEX_PATH}`,
			JSON.stringify({
				$schema: "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
				skills: [{ name: "local-file", type: "skill-md", description: "x", url: "file:///etc/passwd", digest }],
			}),
		);
		const ws = await workspace();
		const { index, report } = await ws.run();
		expect(index.size).toBe(0);
		expect(report.diagnostics.map((d) => d.message).join("\n")).toMatch(
			/local-file.*lacks a url of the index's own scheme/,
		);
		overrides.clear();
		await writeTree(site, {
			".well-known/skills/index.json": JSON.stringify({
				skills: [{ name: "climber", description: "x", files: ["SKILL.md", "../../secret.txt"] }],
			}),
		});
		const climbed = await (await workspace({}, true)).run();
		expect(climbed.index.get("climber")).toBeUndefined();
		expect(climbed.report.diagnostics.map((d) => d.message).join("\n")).toMatch(/climber.*files inside its own folder/);
	});
});
