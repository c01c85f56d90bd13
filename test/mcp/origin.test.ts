import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createSession, discover, estimateTokenizer } from "skillset";
import { createMcpOrigin } from "skillset/mcp";
import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// A second, minimal skills server written with the SDK's own server-side extension (not skillset's server), so
// the origin is not tuned to one implementation. MODE makes it misbehave in one way each.
const require = createRequire(import.meta.url);
const SERVER_SCRIPT = `
const [server, stdio, skillsExt] = await Promise.all([
	import(${JSON.stringify(require.resolve("@modelcontextprotocol/server"))}),
	import(${JSON.stringify(require.resolve("@modelcontextprotocol/server/stdio"))}),
	import(${JSON.stringify(require.resolve("@modelcontextprotocol/server/ext/skills"))}),
]);
const skills = JSON.parse(process.env.SKILLS);
const mode = process.env.MODE ?? "normal";
if (mode === "hang") setInterval(() => {}, 1000);
else {
	const mcp = new server.McpServer({ name: "acme-official", version: "1" });
	if (mode !== "noext") {
		const entries = [];
		for (const [name, files] of Object.entries(skills)) entries.push(structuredClone(await skillsExt.skillEntry(name, files)));
		if (mode === "frontmatter") entries[0].frontmatter.description = "Listed, but not what SKILL.md says.";
		const source = {
			async list() { return { skills: entries }; },
			async get(uri) { return entries.find((entry) => entry.uri === uri); },
			async read(uri) {
				for (const [name, files] of Object.entries(skills))
					for (const [path, text] of Object.entries(files))
						if (uri === "skill://" + name + "/" + path)
							return { text: mode === "tamper" && path === "SKILL.md" ? text + "Injected line.\\n" : text };
				return undefined;
			},
		};
		new skillsExt.SkillsExtension({ source }).attach(mcp);
	}
	await mcp.connect(new stdio.StdioServerTransport());
}
`;

async function peer(skills: Record<string, Record<string, string>>) {
	const dir = await tempDir();
	const script = join(dir, "server.mjs");
	await writeFile(script, SERVER_SCRIPT);
	const cacheDir = await tempDir();
	const cwd = await tempDir();
	const run = (mode = "normal", options: { timeoutMs?: number; local?: Record<string, string> } = {}) =>
		writeTree(cwd, options.local ?? {}).then(() =>
			discover({
				cwd,
				home: cwd,
				origins: [
					createMcpOrigin(
						"acme",
						{
							command: process.execPath,
							args: [script],
							env: { SKILLS: JSON.stringify(skills), MODE: mode, PATH: process.env.PATH ?? "" },
						},
						{ cacheDir, timeoutMs: options.timeoutMs ?? 10_000 },
					),
				],
			}),
		);
	return { run, cacheDir };
}

const SKILLS = {
	review: { "SKILL.md": skillMd("review", "Reviews diffs."), "references/checklist.md": "- tests\n" },
	deploy: { "SKILL.md": skillMd("deploy", "Deploys things.") },
};

describe("an MCP server as a discovery origin", () => {
	it("lists, reads and verifies every file, labels skills with the host's label, and caches them", async () => {
		const server = await peer(SKILLS);
		const { index, report } = await server.run();
		expect(index.get("review")).toMatchObject({
			origin: "mcp:acme",
			qualifiedName: "review@mcp:acme",
			scope: "remote",
		});
		expect(index.get("deploy")?.description).toBe("Deploys things.");
		expect(index.get("review")?.dir.startsWith(server.cacheDir)).toBe(true);
		expect(report.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
		expect(JSON.stringify(report)).not.toContain("acme-official");
	});

	it("refuses a file whose bytes differ from the listed digest, keeping the last verified copy", async () => {
		const server = await peer(SKILLS);
		await server.run();
		const { index, report } = await server.run("tamper");
		expect(report.diagnostics.find((d) => d.code === "origin.refused")).toBeUndefined();
		// The listing did not change, so the verified copy is reused without a read; a new listing must be read.
		const fresh = await peer(SKILLS);
		const tampered = await fresh.run("tamper");
		expect(tampered.index.get("review")).toBeUndefined();
		expect(tampered.report.diagnostics.filter((d) => d.code === "origin.refused").length).toBeGreaterThan(0);
		expect(index.get("review")?.origin).toBe("mcp:acme");
	});

	it("refuses a SKILL.md whose frontmatter differs from the listing", async () => {
		const { index, report } = await (await peer(SKILLS)).run("frontmatter");
		const refused = report.diagnostics.filter((d) => d.code === "origin.refused");
		expect(refused.length).toBe(1);
		expect(index.get("deploy") ?? index.get("review")).toBeDefined();
		expect(index.size).toBe(1);
	});

	it("uses no skills from a server without the skills extension", async () => {
		const { index, report } = await (await peer(SKILLS)).run("noext");
		expect(index.size).toBe(0);
		expect(report.diagnostics.find((d) => d.code === "origin.failed")?.message).toMatch(/does not declare/);
	});

	it("times out on a server that never answers, and local skills still load", async () => {
		const server = await peer(SKILLS);
		const started = Date.now();
		const { index, report } = await server.run("hang", {
			timeoutMs: 800,
			local: { ".agents/skills/mine/SKILL.md": skillMd("mine") },
		});
		expect(Date.now() - started).toBeLessThan(5000);
		expect(index.get("mine")).toBeDefined();
		expect(report.diagnostics.find((d) => d.code === "origin.failed")?.message).toMatch(/no answer within 800 ms/);
	});

	it("keeps a name collision with a local skill reachable only by the qualified name", async () => {
		const server = await peer(SKILLS);
		const { index } = await server.run("normal", {
			local: { ".agents/skills/review/SKILL.md": skillMd("review", "Mine.") },
		});
		expect(index.get("review")?.description).toBe("Mine.");
		expect(index.get("review@mcp:acme")?.description).toBe("Reviews diffs.");
	});

	it("pins every verified file, and the runtime refuses a cached file changed after discovery", async () => {
		const { index } = await (await peer(SKILLS)).run();
		const review = index.get("review");
		expect(Object.keys(review?.pins ?? {}).sort()).toEqual(["SKILL.md", "references/checklist.md"]);
		const session = createSession(index, { tokenizer: estimateTokenizer });
		const activation = await session.activate("review");
		expect(activation.ok && activation.text.split("\n")[0]).toBe('<skill_content name="review" origin="mcp:acme">');
		await writeFile(join(dirname(review?.realFile ?? ""), "references", "checklist.md"), "- skip tests\n");
		expect(await session.readResource("review", "references/checklist.md")).toMatchObject({
			ok: false,
			code: "integrity.mismatch",
		});
	});
});

describe("the origin cache", () => {
	it("refuses a skill name or file path that could lead out of its folder", async () => {
		const { OriginCache } = await import("skillset/sources");
		const cache = new OriginCache(await tempDir(), "mcp:acme", "node server.mjs");
		const files = (path: string) => new Map([[path, new TextEncoder().encode("x")]]);
		await expect(cache.store("../escape", files("SKILL.md"), "p")).rejects.toThrow(/not a valid skill name/);
		await expect(cache.store("ok", files("../SKILL.md"), "p")).rejects.toThrow(/not a plain relative path/);
		const stored = await cache.store("ok", files("SKILL.md"), "p");
		expect(cache.verify(stored)).toBe(true);
		// A state file edited to point elsewhere, or whose pins do not hash to its digest, is never trusted.
		expect(cache.verify({ ...stored, dir: "../../../etc" })).toBe(false);
		expect(cache.verify({ ...stored, files: { "SKILL.md": { sha256: "0".repeat(64), size: 1 } } })).toBe(false);
	});
});
