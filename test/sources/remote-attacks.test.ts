import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { discover } from "skillset";
import { addSkills, createIndexOrigin, fetchSkillIndex, INDEX_SCHEMA_V2, writeTar } from "skillset/sources";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 18, "Indexes and remote answers", written as an attacker: real loopback peers answer 404s, redirect to
// another host, drip bytes, answer text/html and serve artifacts whose SKILL.md names another skill. The main peer
// is 127.0.0.1; "another host" is a second peer on 127.0.0.2 that counts every request it gets.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const V2 = "/.well-known/agent-skills/index.json";
const V1 = "/.well-known/skills/index.json";

const routes = new Map<string, Handler>();
const otherRoutes = new Map<string, Handler>();
let hits: string[] = [];
let otherHits: string[] = [];
let base = "";
let other = "";
const servers: Server[] = [];
// Timers of dripping answers, cleared after each test so nothing drips into the next one.
const drips = new Set<NodeJS.Timeout>();

async function listen(host: string, table: Map<string, Handler>, log: () => string[]): Promise<string> {
	const server = createServer((req, res) => {
		const path = new URL(req.url ?? "/", "http://x").pathname;
		log().push(path);
		const handler = table.get(path);
		if (handler) handler(req, res);
		else res.writeHead(404).end();
	});
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	servers.push(server);
	return `http://${host}:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
	base = await listen("127.0.0.1", routes, () => hits);
	other = await listen("127.0.0.2", otherRoutes, () => otherHits);
});
afterAll(async () => {
	for (const timer of drips) clearInterval(timer);
	for (const server of servers) {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});
beforeEach(() => {
	for (const timer of drips) clearInterval(timer);
	drips.clear();
	routes.clear();
	otherRoutes.clear();
	hits = [];
	otherHits = [];
});

const digestOf = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const body =
	(data: string | Uint8Array, type = "application/json"): Handler =>
	(_req, res) =>
		void res.writeHead(200, { "content-type": type }).end(data);
const redirect =
	(location: string): Handler =>
	(_req, res) =>
		void res.writeHead(302, { location }).end();
/** Headers at once, then `data` in `pieces` pieces, one every `everyMs` (a space forever without `data`). */
const drip =
	(everyMs: number, data?: string, pieces = 1): Handler =>
	(_req, res) => {
		res.writeHead(200, { "content-type": "application/octet-stream" });
		const size = data === undefined ? 1 : Math.ceil(data.length / pieces);
		let sent = 0;
		const timer = setInterval(() => {
			if (res.destroyed) return void clearInterval(timer);
			if (data !== undefined && sent >= data.length) {
				clearInterval(timer);
				return void res.end();
			}
			res.write(data === undefined ? " " : data.slice(sent, sent + size));
			sent += size;
		}, everyMs);
		drips.add(timer);
	};

/** A v0.2.0 index of skill-md entries served at `prefix` (`/<name>/SKILL.md`). */
function serveV2(skills: Record<string, string>, table = routes, prefix = ""): void {
	const entries = Object.entries(skills).map(([name, text]) => {
		table.set(`${prefix}/${name}/SKILL.md`, body(text, "text/markdown"));
		const url = `${prefix}/${name}/SKILL.md`;
		return { name, type: "skill-md", description: `Does ${name} things.`, url, digest: digestOf(text) };
	});
	table.set(`${prefix}${V2}`, body(JSON.stringify({ $schema: INDEX_SCHEMA_V2, skills: entries })));
}

/** A v0.1.0 index (no digests) listing `old` with its SKILL.md. */
function serveV1(text = skillMd("old"), name = "old"): void {
	routes.set(V1, body(JSON.stringify({ skills: [{ name, description: "Old.", files: ["SKILL.md"] }] })));
	routes.set(`/.well-known/skills/${name}/SKILL.md`, body(text, "text/markdown"));
}

async function target() {
	const cwd = await tempDir();
	const skills = join(cwd, ".agents", "skills");
	return { cwd, skills, lockFile: join(cwd, "skills.lock.json") };
}

const LIMITS = { maxBytes: 64 << 20, timeoutMs: 5000 };

async function add(source: string, extra: Record<string, unknown> = {}) {
	const ws = await target();
	const result = await addSkills({
		source,
		cwd: ws.cwd,
		target: ws.skills,
		lockFile: ws.lockFile,
		all: true,
		limits: LIMITS,
		...extra,
	});
	return { ...ws, result };
}

async function originLoad(url: string, options: Record<string, unknown> = {}, cacheDir?: string) {
	const cache = cacheDir ?? (await tempDir());
	const cwd = await tempDir();
	const origin = createIndexOrigin("acme", url, { cacheDir: cache, limits: LIMITS, ...options });
	const { index, report } = await discover({ cwd, home: cwd, origins: [origin] });
	const messages = report.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n");
	return { index, messages, cacheDir: cache };
}

describe("issue 18: no downgrade to the unverified v0.1.0 index", () => {
	it("add: a 404 at the v0.2.0 path does not fall back over plain http, even with allowUnverified", async () => {
		routes.set(V2, (_req, res) => void res.writeHead(404).end());
		serveV1();
		for (const allowUnverified of [false, true]) {
			hits = [];
			const { result, skills } = await add(base, { allowUnverified });
			expect(result.failure?.code).toBe("index.unverified");
			expect(result.failure?.message).toContain(`${base}${V1}`);
			expect(existsSync(join(skills, "old"))).toBe(false);
			expect(hits).not.toContain(V1);
		}
	});

	it("add: a v0.1.0 index named by its URL installs only with allowUnverified, and says nothing was verified", async () => {
		serveV1();
		const refused = await add(`${base}${V1}`);
		expect(refused.result.failure?.code).toBe("index.unverified");
		expect(existsSync(join(refused.skills, "old"))).toBe(false);
		const allowed = await add(`${base}${V1}`, { allowUnverified: true });
		expect(allowed.result.outcomes).toMatchObject([{ name: "old", status: "installed" }]);
		expect(allowed.result.warnings.join("\n")).toMatch(/no digests/);
	});

	it("add: a v0.2.0 path serving an index stripped of its $schema (a forced v0.1.0) is refused", async () => {
		routes.set(V2, body(JSON.stringify({ skills: [{ name: "old", description: "Old.", files: ["SKILL.md"] }] })));
		routes.set("/.well-known/agent-skills/old/SKILL.md", body(skillMd("old")));
		const { result, skills } = await add(base);
		expect(result.failure?.code).toBe("index.unverified");
		expect(existsSync(join(skills, "old"))).toBe(false);
	});

	it("index origin: a 404 over http serves nothing unverified and never asks for the v0.1.0 index", async () => {
		routes.set(V2, (_req, res) => void res.writeHead(404).end());
		serveV1();
		for (const allowUnverified of [false, true]) {
			hits = [];
			const { index, messages } = await originLoad(base, { allowUnverified });
			expect(index.get("old")).toBeUndefined();
			expect(messages).toMatch(/index\.unverified/);
			expect(hits).not.toContain(V1);
		}
	});

	it("index origin: a v0.1.0 index is served only with allowUnverified, and its copies are not served again without it", async () => {
		serveV1();
		const refused = await originLoad(`${base}${V1}`);
		expect(refused.index.get("old")).toBeUndefined();
		expect(refused.messages).toMatch(/index\.unverified/);
		const allowed = await originLoad(`${base}${V1}`, { allowUnverified: true });
		expect(allowed.index.get("old")?.origin).toBe("index:acme");
		// The same cache, the flag gone, the origin now down: its unverified copies are not served from the cache.
		routes.clear();
		const later = await originLoad(`${base}${V1}`, {}, allowed.cacheDir);
		expect(later.index.get("old")).toBeUndefined();
	});

	it("index origin: a local (file:) origin falls back to v0.1.0 only with allowUnverified", async () => {
		const site = await writeTree(await tempDir(), {
			".well-known/skills/index.json": JSON.stringify({
				skills: [{ name: "old", description: "Old.", files: ["SKILL.md"] }],
			}),
			".well-known/skills/old/SKILL.md": skillMd("old"),
		});
		const url = pathToFileURL(`${site}/`).href;
		expect((await originLoad(url)).index.get("old")).toBeUndefined();
		expect((await originLoad(url, { allowUnverified: true })).index.get("old")?.origin).toBe("index:acme");
	});

	it("the v0.1.0 index of a fallback is held to the index size cap", async () => {
		const padding = " ".repeat(9 << 20);
		const site = await writeTree(await tempDir(), {
			".well-known/skills/index.json": `{"skills":[]${padding}}`,
		});
		const error = await fetchSkillIndex(new URL(pathToFileURL(`${site}/`).href), LIMITS, {
			allowUnverified: true,
		}).catch((e: unknown) => e);
		expect((error as { code?: string }).code).toBe("source.too-large");
	});

	it("CLI: add takes --allow-unverified, and refuses a v0.1.0 index without it", async () => {
		serveV1();
		const ws = await target();
		const refused = await cli(["add", `${base}${V1}`, "--skill", "old"], { cwd: ws.cwd, env: { HOME: ws.cwd } });
		expect(refused.exitCode).toBe(1);
		expect(refused.stdout + refused.stderr).toMatch(/index\.unverified/);
		const run = await cli(["add", `${base}${V1}`, "--skill", "old", "--allow-unverified"], {
			cwd: ws.cwd,
			env: { HOME: ws.cwd },
		});
		expect(run.exitCode).toBe(0);
		expect(existsSync(join(ws.skills, "old", "SKILL.md"))).toBe(true);
	});

	it("CLI: index origins take --allow-unverified", async () => {
		serveV1();
		const ws = await target();
		const env = { HOME: ws.cwd, SKILLSET_CACHE_DIR: join(ws.cwd, "cache") };
		const args = ["sources", "--json", "--index", `acme=${base}${V1}`];
		const refused = await cli(args, { cwd: ws.cwd, env });
		expect(JSON.parse(refused.stdout)[0]).toMatchObject({ origin: "index:acme", skills: 0 });
		const allowed = await cli([...args, "--allow-unverified"], { cwd: ws.cwd, env });
		expect(JSON.parse(allowed.stdout)[0]).toMatchObject({ origin: "index:acme", skills: 1 });
	});
});

describe("issue 18: a redirect to another host is refused", () => {
	it("add: an index redirected to another host is refused before that host is asked", async () => {
		serveV2({ pdf: skillMd("pdf") }, otherRoutes);
		routes.set(V2, redirect(`${other}${V2}`));
		const { result, skills } = await add(base);
		expect(result.failure?.code).toBe("source.redirect");
		expect(result.failure?.message).toContain("127.0.0.2");
		expect(otherHits).toEqual([]);
		expect(existsSync(join(skills, "pdf"))).toBe(false);
	});

	it("add: a redirect on the same host is followed", async () => {
		serveV2({ pdf: skillMd("pdf") }, routes, "/moved");
		routes.set(V2, redirect(`/moved${V2}`));
		const { result } = await add(base);
		expect(result.outcomes).toMatchObject([{ name: "pdf", status: "installed" }]);
	});

	it("add: an artifact redirected to another host is refused, the other skills install", async () => {
		serveV2({ pdf: skillMd("pdf"), xlsx: skillMd("xlsx") });
		otherRoutes.set("/pdf/SKILL.md", body(skillMd("pdf")));
		routes.set("/pdf/SKILL.md", redirect(`${other}/pdf/SKILL.md`));
		const { result } = await add(base);
		expect(result.outcomes).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ name: "pdf", status: "refused", code: "source.redirect" }),
				expect.objectContaining({ name: "xlsx", status: "installed" }),
			]),
		);
		expect(otherHits).toEqual([]);
	});

	it("index origin: an index redirected to another host is not read", async () => {
		serveV2({ pdf: skillMd("pdf") }, otherRoutes);
		routes.set(V2, redirect(`${other}${V2}`));
		const { index, messages } = await originLoad(base);
		expect(index.get("pdf")).toBeUndefined();
		expect(messages).toMatch(/source\.redirect/);
		expect(otherHits).toEqual([]);
	});
});

describe("issue 18 (sibling): a secret in a URL is never printed", () => {
	it("refuses a source URL with credentials without echoing them", async () => {
		const source = `${base.replace("http://", "http://user:s3cr3t-token@")}/`;
		const { result } = await add(source);
		expect(result.failure?.code).toBe("source.invalid");
		expect(JSON.stringify(result)).not.toContain("s3cr3t-token");
		const ws = await target();
		const run = await cli(["add", source, "--all"], { cwd: ws.cwd, env: { HOME: ws.cwd } });
		expect(run.exitCode).toBe(1);
		expect(run.stdout + run.stderr).not.toContain("s3cr3t-token");
		expect(hits).toEqual([]);
	});
});

describe("issue 18: one deadline covers the whole operation, and bodies are bounded", () => {
	const SHORT = { maxBytes: 64 << 20, timeoutMs: 1500 };

	it("add: an index that drips forever ends at the deadline, and no fallback starts after it", async () => {
		routes.set(V2, drip(50));
		serveV1();
		const ws = await target();
		const result = await addSkills({
			source: base,
			cwd: ws.cwd,
			target: ws.skills,
			lockFile: ws.lockFile,
			all: true,
			limits: SHORT,
		});
		expect(result.failure?.code).toBe("source.timeout");
		expect(hits).not.toContain(V1);
	}, 20_000);

	it("add: artifacts that each drip within the deadline still share one deadline", async () => {
		// Each artifact alone takes about 1.2 s, under the 2 s deadline; three of them do not fit in it.
		const names = ["one", "two", "three"];
		const texts = Object.fromEntries(names.map((name) => [name, skillMd(name).padEnd(400, " ")]));
		serveV2(texts);
		for (const name of names) routes.set(`/${name}/SKILL.md`, drip(30, texts[name], 40));
		const ws = await target();
		const result = await addSkills({
			source: base,
			cwd: ws.cwd,
			target: ws.skills,
			lockFile: ws.lockFile,
			all: true,
			limits: { maxBytes: 1 << 20, timeoutMs: 2000 },
		});
		const codes = [result.failure?.code, ...result.outcomes.map((o) => o.code)];
		expect(codes).toContain("source.timeout");
	}, 20_000);

	it("index origin: one deadline for the index and all its artifacts", async () => {
		const names = ["one", "two", "three"];
		const texts = Object.fromEntries(names.map((name) => [name, skillMd(name).padEnd(400, " ")]));
		serveV2(texts);
		for (const name of names) routes.set(`/${name}/SKILL.md`, drip(30, texts[name], 40));
		const cacheDir = await tempDir();
		const cwd = await tempDir();
		const origin = createIndexOrigin("acme", base, { cacheDir, limits: { maxBytes: 1 << 20, timeoutMs: 2000 } });
		const { index, report } = await discover({ cwd, home: cwd, origins: [origin] });
		expect(index.size).toBeLessThan(3);
		expect(report.diagnostics.map((d) => d.message).join("\n")).toMatch(/source\.timeout/);
	}, 20_000);

	it("an index body that never ends is cut at the index cap, not the download cap", async () => {
		routes.set(V2, (_req, res) => {
			res.writeHead(200, { "content-type": "application/json" });
			const chunk = Buffer.alloc(1 << 16, 32);
			const pump = () => {
				while (!res.destroyed && res.write(chunk));
				if (!res.destroyed) res.once("drain", pump);
			};
			pump();
		});
		const error = await fetchSkillIndex(new URL(base), LIMITS).catch((e: unknown) => e);
		expect((error as { code?: string }).code).toBe("source.too-large");
	}, 20_000);
});

describe("issue 18: a web page is not an index", () => {
	const page = "<!doctype html><html><body>Sign in to continue</body></html>";

	it("add: a text/html answer is an error that says so, and starts no fallback", async () => {
		routes.set(V2, body(page, "text/html; charset=utf-8"));
		serveV1();
		const { result } = await add(base, { allowUnverified: true });
		expect(result.failure?.code).toBe("index.html");
		expect(result.failure?.message).toMatch(/text\/html/);
		expect(hits).not.toContain(V1);
	});

	it("an HTML page under another content type is named as one too", async () => {
		routes.set(V2, body(page, "application/octet-stream"));
		const { result } = await add(base);
		expect(result.failure?.code).toBe("index.html");
	});

	it("index origin: the diagnostic says text/html", async () => {
		routes.set(V2, body(page, "text/html"));
		const { messages } = await originLoad(base);
		expect(messages).toMatch(/index\.html/);
		expect(messages).toMatch(/text\/html/);
	});
});

describe("issue 18: add checks the artifact's SKILL.md name against the index entry", () => {
	it("refuses a skill-md artifact that declares another name", async () => {
		const text = skillMd("evil");
		routes.set("/pdf/SKILL.md", body(text));
		const entry = { name: "pdf", type: "skill-md", description: "PDF.", url: "/pdf/SKILL.md", digest: digestOf(text) };
		routes.set(V2, body(JSON.stringify({ $schema: INDEX_SCHEMA_V2, skills: [entry] })));
		const { result, skills } = await add(base);
		expect(result.outcomes).toMatchObject([{ name: "pdf", status: "refused", code: "index.name-mismatch" }]);
		expect(existsSync(join(skills, "evil"))).toBe(false);
		expect(existsSync(join(skills, "pdf"))).toBe(false);
	});

	it("refuses an archive whose SKILL.md declares another name", async () => {
		const archive = gzipSync(
			writeTar([
				{ path: "SKILL.md", data: new TextEncoder().encode(skillMd("evil")), executable: false },
				{ path: "run.sh", data: new TextEncoder().encode("echo hi\n"), executable: true },
			]),
		);
		routes.set("/pdf.tar.gz", body(archive, "application/gzip"));
		const entry = { name: "pdf", type: "archive", description: "PDF.", url: "/pdf.tar.gz", digest: digestOf(archive) };
		routes.set(V2, body(JSON.stringify({ $schema: INDEX_SCHEMA_V2, skills: [entry] })));
		const { result, skills } = await add(base);
		expect(result.outcomes).toMatchObject([{ name: "pdf", status: "refused", code: "index.name-mismatch" }]);
		expect(existsSync(join(skills, "evil"))).toBe(false);
	});

	it("refuses a v0.1.0 entry whose SKILL.md declares another name (unverified, allowed)", async () => {
		serveV1(skillMd("evil"), "old");
		const { result, skills } = await add(`${base}${V1}`, { allowUnverified: true });
		expect(result.outcomes).toMatchObject([{ name: "old", status: "refused", code: "index.name-mismatch" }]);
		expect(existsSync(join(skills, "evil"))).toBe(false);
	});

	it("index origin: the same refusal, with the same code", async () => {
		const text = skillMd("evil");
		routes.set("/pdf/SKILL.md", body(text));
		const entry = { name: "pdf", type: "skill-md", description: "PDF.", url: "/pdf/SKILL.md", digest: digestOf(text) };
		routes.set(V2, body(JSON.stringify({ $schema: INDEX_SCHEMA_V2, skills: [entry] })));
		const { index, messages } = await originLoad(base);
		expect(index.size).toBe(0);
		expect(messages).toMatch(/index\.name-mismatch/);
	});
});
