import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { publishSkills } from "skillset/sources";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { startScriptedLlm, systemOf } from "../helpers/scripted-llm.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Peers on loopback: a node:http server with a well-known index (published by `publishSkills`), and a minimal MCP
// skills server on stdio written with the SDK's server-side skills extension, reading its skills from a JSON file.
let server: Server;
let base = "";
let site = "";
let down = false;

beforeAll(async () => {
	site = await tempDir();
	server = createServer(async (req, res) => {
		if (down) return void res.writeHead(500).end("down");
		const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
		const body = await readFile(join(site, path)).catch(() => undefined);
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
beforeEach(() => {
	down = false;
});

async function publish(files: Record<string, string>): Promise<void> {
	const root = await writeTree(await tempDir(), files);
	const names = [...new Set(Object.keys(files).map((path) => path.split("/")[0] as string))];
	await publishSkills(
		names.map((name) => ({ name, description: `Does ${name} things.`, dir: join(root, name) })),
		site,
	);
}

const require = createRequire(import.meta.url);
const MCP_SERVER = `
const [server, stdio, ext] = await Promise.all([
	import(${JSON.stringify(require.resolve("@modelcontextprotocol/server"))}),
	import(${JSON.stringify(require.resolve("@modelcontextprotocol/server/stdio"))}),
	import(${JSON.stringify(require.resolve("@modelcontextprotocol/server/ext/skills"))}),
]);
const { readFileSync } = await import("node:fs");
const skills = JSON.parse(readFileSync(process.argv[2], "utf8"));
const mcp = new server.McpServer({ name: "self-named", version: "1" });
const entries = [];
for (const [name, files] of Object.entries(skills)) entries.push(await ext.skillEntry(name, files));
const find = (uri) => {
	for (const [name, files] of Object.entries(skills))
		for (const [path, text] of Object.entries(files)) if (uri === "skill://" + name + "/" + path) return { text };
};
// Skills named hidden-* are not listed, only served by skills/get.
const source = { async list() { return { skills: entries.filter((e) => !e.uri.startsWith("skill://hidden-")) }; }, async get(uri) { return entries.find((e) => e.uri === uri); }, async read(uri) { return find(uri); } };
new ext.SkillsExtension({ source }).attach(mcp);
await mcp.connect(new stdio.StdioServerTransport());
`;

/** A workspace, its own cache and home, and a runner with that environment. */
async function workspace(files: Record<string, string> = {}) {
	const root = await tempDir();
	const ws = join(root, "ws");
	await mkdir(ws);
	await writeTree(ws, files);
	const cacheDir = join(root, "cache");
	const env: Record<string, string> = { HOME: join(root, "home"), SKILLSET_CACHE_DIR: cacheDir };
	const run = (args: string[], extra: Record<string, string> = {}) => cli(args, { cwd: ws, env: { ...env, ...extra } });
	const json = async (args: string[], extra: Record<string, string> = {}) => {
		const result = await run([...args, "--json"], extra);
		return { ...result, data: JSON.parse(result.stdout || "null") };
	};
	return { root, ws, cacheDir, run, json };
}

describe("discovering commands across origins", () => {
	it("list, scan, doctor, catalog, show and read take skills from an --index origin, tagged with it", async () => {
		await publish({
			"pdf/SKILL.md": "---\nname: pdf\ndescription: Remote PDF.\n---\nRemote body.\n",
			"xlsx/SKILL.md": skillMd("xlsx"),
			"xlsx/scripts/a.py": "print(1)\n",
		});
		const ws = await workspace({ ".agents/skills/pdf/SKILL.md": skillMd("pdf", "Local PDF.") });
		const index = ["--index", `acme=${base}`];

		const list = await ws.json(["list", ...index]);
		const byName = Object.fromEntries(list.data.map((s: { name: string }) => [s.name, s]));
		expect(byName.pdf).toMatchObject({ scope: "workspace", description: "Local PDF." });
		expect(byName.pdf).not.toHaveProperty("origin");
		expect(byName["pdf@index:acme"]).toMatchObject({ scope: "remote", origin: "index:acme" });
		expect(byName.xlsx).toMatchObject({ origin: "index:acme", qualifiedName: "xlsx@index:acme" });
		expect((await ws.run(["list", ...index])).stdout).toMatch(/xlsx\s+remote index:acme/);

		const scan = await ws.run(["scan", ...index, "--exit-zero"]);
		expect(scan.stdout).toMatch(/index:acme {2}remote, reachable {2}2 skills/);

		const doctor = await ws.run(["doctor", "pdf@index:acme", ...index]);
		expect(doctor).toMatchObject({ exitCode: 0 });
		expect(doctor.stdout).toContain("from index:acme");

		expect((await ws.run(["catalog", ...index])).stdout).toContain("pdf@index:acme");
		const show = await ws.run(["show", "pdf@index:acme", ...index]);
		expect(show).toMatchObject({ exitCode: 0 });
		expect(show.stdout).toContain("Remote body.");
		const read = await ws.run(["read", "xlsx", "scripts/a.py", ...index]);
		expect(read).toMatchObject({ exitCode: 0 });
		expect(read.stdout).toContain("print(1)");
		// Without the flag the remote skills are gone: nothing was configured anywhere else.
		expect((await ws.json(["list"])).data.map((s: { name: string }) => s.name)).toEqual(["pdf"]);
	});

	it("takes an MCP server given as --mcp LABEL=COMMAND ARGS (split like a shell, quotes kept) as an origin", async () => {
		const ws = await workspace();
		const script = join(ws.root, "skills server.mjs");
		await writeFile(script, MCP_SERVER);
		const skills = join(ws.root, "skills.json");
		await writeFile(
			skills,
			JSON.stringify({ review: { "SKILL.md": skillMd("review", "Reviews diffs."), "notes.md": "- tests\n" } }),
		);
		const mcp = ["--mcp", `acme=${process.execPath} '${script}' ${skills}`];
		const list = await ws.json(["list", ...mcp]);
		expect(list.data).toEqual([expect.objectContaining({ name: "review", origin: "mcp:acme", scope: "remote" })]);
		expect(list.stdout).not.toContain("self-named");
		const read = await ws.run(["read", "review@mcp:acme", "notes.md", ...mcp]);
		expect(read.stdout).toContain("- tests");
		const sources = await ws.json(["sources", ...mcp]);
		expect(sources).toMatchObject({ exitCode: 0 });
		expect(sources.data).toEqual([
			expect.objectContaining({ origin: "mcp:acme", status: "reachable", skills: 1, kind: "mcp" }),
		]);
		expect(sources.data[0].cacheBytes).toBeGreaterThan(0);
		expect(Date.parse(sources.data[0].refreshedAt)).toBeGreaterThan(Date.now() - 60_000);
	});
});

describe("mcpServers in a config file named with --config", () => {
	it("spawns the server (the user's own file) and fetches the skillUris it does not list", async () => {
		const ws = await workspace();
		const script = join(ws.root, "server.mjs");
		await writeFile(script, MCP_SERVER);
		const skills = join(ws.root, "skills.json");
		const files = {
			review: { "SKILL.md": skillMd("review") },
			"hidden-extra": { "SKILL.md": skillMd("hidden-extra") },
		};
		await writeFile(skills, JSON.stringify(files));
		const server = { command: process.execPath, args: [script, skills] };
		const config = join(ws.root, "mine.json");
		const names = async (extra: object) => {
			await writeFile(config, JSON.stringify({ mcpServers: { acme: { ...server, ...extra } } }));
			return (await ws.json(["list", "--config", config])).data.map((s: { name: string }) => s.name).sort();
		};
		expect(await names({})).toEqual(["review"]);
		expect(await names({ skillUris: ["skill://hidden-extra/SKILL.md"] })).toEqual(["hidden-extra", "review"]);
	});
});

describe("skillset lock with origins", () => {
	it("pins only the workspace's own skills, never a path into the cache", async () => {
		await publish({ "remote/SKILL.md": skillMd("remote") });
		const ws = await workspace({ ".agents/skills/mine/SKILL.md": skillMd("mine") });
		const run = await ws.run(["lock", "--index", `acme=${base}`]);
		expect(run.exitCode).toBe(0);
		const lock = JSON.parse(await readFile(join(ws.ws, "skills.lock.json"), "utf8"));
		expect(Object.keys(lock.skills)).toEqual(["mine"]);
		expect((await ws.run(["lock", "--verify", "--index", `acme=${base}`])).exitCode).toBe(0);
	});
});

describe("skillset publish with origins", () => {
	it("publishes only the workspace's own skills, never an origin's", async () => {
		await publish({ "remote/SKILL.md": skillMd("remote") });
		const ws = await workspace({ ".agents/skills/mine/SKILL.md": skillMd("mine") });
		const out = join(ws.root, "site");
		const run = await ws.json(["publish", "--out", out, "--index", `acme=${base}`]);
		expect(run.data.entries.map((e: { name: string }) => e.name)).toEqual(["mine"]);
	});
});

describe("skillset chat --mcp", () => {
	it("brings in the skills of a server that declares the skills extension, as origin mcp:NAME", async () => {
		const llm = await startScriptedLlm();
		try {
			llm.script([{ content: "Done." }]);
			const ws = await workspace();
			const script = join(ws.root, "server.mjs");
			await writeFile(script, MCP_SERVER);
			const skills = join(ws.root, "skills.json");
			await writeFile(skills, JSON.stringify({ review: { "SKILL.md": skillMd("review", "Reviews diffs.") } }));
			// The spy logs each start of the server, then runs it.
			const log = join(ws.root, "starts.log");
			const spy = join(ws.root, "spy.mjs");
			await writeFile(
				spy,
				`import { appendFileSync } from "node:fs"; appendFileSync(${JSON.stringify(log)}, "start\\n"); await import(${JSON.stringify(script)});`,
			);
			const args = ["--base-url", llm.url, "--model", "scripted", "-p", "hello"];
			const run = await ws.run(["chat", ...args, "--mcp", `acme=${process.execPath} ${spy} ${skills}`]);
			expect(run).toMatchObject({ exitCode: 0, stdout: "Done.\n" });
			expect(systemOf(llm.requests[0])).toContain("Reviews diffs.");
			// Once as the origin (rescans with unchanged local roots reuse the index) and once for its tools.
			expect((await readFile(log, "utf8")).split("\n").filter(Boolean)).toHaveLength(2);
		} finally {
			await llm.close();
		}
	});
});

describe("origin settings", () => {
	it("layers config < SKILLSET_INDEXES < --index by label, and --no-origins drops config and environment", async () => {
		await publish({ "one/SKILL.md": skillMd("one") });
		const ws = await workspace({
			"skillset.config.json": JSON.stringify({
				indexes: { acme: "file:///nowhere/config", other: "file:///nowhere/other" },
			}),
		});
		const where = async (args: string[], env: Record<string, string> = {}) =>
			Object.fromEntries(
				(await ws.json(["sources", ...args], env)).data.map((o: { origin: string; where: string }) => [
					o.origin,
					o.where,
				]),
			);
		expect(await where([])).toEqual({ "index:acme": "file:///nowhere/config", "index:other": "file:///nowhere/other" });
		const env = { SKILLSET_INDEXES: "acme=file:///nowhere/env" };
		expect(await where([], env)).toEqual({
			"index:acme": "file:///nowhere/env",
			"index:other": "file:///nowhere/other",
		});
		expect(await where(["--index", `acme=${base}`], env)).toMatchObject({ "index:acme": base });
		expect(await where(["--no-origins", "--index", `new=${base}`], env)).toEqual({ "index:new": base });
	});

	it.each<[string, string[], Record<string, string>, RegExp]>([
		[
			"a label with capitals",
			["--index", "Acme=https://example.com"],
			{},
			/--index: 'Acme' is not a valid origin label/,
		],
		["a flag without a label", ["--index", "https://example.com"], {}, /--index must be LABEL=URL/],
		["an ftp URL", ["--index", "acme=ftp://example.com"], {}, /--index \(acme\) must be a http:, https:, file: URL/],
		["not a URL", ["--index", "acme=example.com"], {}, /--index \(acme\) is not a URL/],
		["credentials in a URL", ["--index", "acme=https://u:p@example.com"], {}, /must not carry credentials/],
		["an --mcp without a command", ["--mcp", "acme="], {}, /--mcp acme= needs a command or a URL/],
		["an unterminated quote", ["--mcp", `acme=node "server.mjs`], {}, /unterminated " quote/],
		["a bad --origin-timeout", ["--origin-timeout", "soon"], {}, /--origin-timeout must be a positive number/],
		["bad SKILLSET_MCP_SERVERS JSON", [], { SKILLSET_MCP_SERVERS: "{" }, /SKILLSET_MCP_SERVERS is not valid JSON/],
		[
			"a server with neither command nor url",
			[],
			{ SKILLSET_MCP_SERVERS: '{"a":{}}' },
			/SKILLSET_MCP_SERVERS \(a\) must be an object with either "command" or "url"/,
		],
		["a bad SKILLSET_INDEXES pair", [], { SKILLSET_INDEXES: "acme" }, /SKILLSET_INDEXES must be LABEL=URL pairs/],
		[
			"a bad label in SKILLSET_INDEXES",
			[],
			{ SKILLSET_INDEXES: "a_b=https://x.org" },
			/SKILLSET_INDEXES: 'a_b' is not a valid origin label/,
		],
	])("refuses %s with a usage error naming what the user set", async (_, args, env, message) => {
		const ws = await workspace();
		const run = await ws.run(["list", ...args], env);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toMatch(message);
	});

	it("names the config file's key for a bad origin setting", async () => {
		const ws = await workspace({
			"skillset.config.json": JSON.stringify({
				mcpServers: { web: { url: "https://x.org/mcp", token: "a", tokenEnv: "B" } },
			}),
		});
		const run = await ws.run(["list"]);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toMatch(/"mcpServers.web.token" in .*skillset.config.json and tokenEnv cannot be used together/);
	});

	it("never prints a bearer token, in human or --json output", async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const ws = await workspace({
			"skillset.config.json": JSON.stringify({
				mcpServers: {
					web: { url: `http://127.0.0.1:${port}/mcp`, tokenEnv: "WEB_TOKEN" },
					inline: { url: `http://127.0.0.1:${port}/other`, token: "inline-secret-456" },
				},
				originTimeoutMs: 3000,
			}),
		});
		const env = { WEB_TOKEN: "env-secret-123" };
		for (const args of [["sources"], ["sources", "--json"], ["scan", "--json"], ["scan"], ["list", "--json"]]) {
			const run = await ws.run(args, env);
			expect(`${run.stdout}${run.stderr}`).not.toMatch(/secret-(123|456)/);
		}
		const sources = await ws.json(["sources"], env);
		expect(sources.exitCode).toBe(1);
		expect(sources.data.map((o: { status: string }) => o.status)).toEqual(["failed", "failed"]);
		const unset = await ws.run(["list"]);
		expect(unset).toMatchObject({ exitCode: 2 });
		expect(unset.stderr).toContain("takes its token from WEB_TOKEN, which is not set");
	});

	it("runs a workspace config's MCP server command only in a workspace trusted explicitly", async () => {
		const ws = await workspace();
		const script = join(ws.root, "server.mjs");
		await writeFile(script, MCP_SERVER);
		const skills = join(ws.root, "skills.json");
		await writeFile(skills, JSON.stringify({ lint: { "SKILL.md": skillMd("lint") } }));
		const marker = join(ws.root, "ran");
		const spy = join(ws.root, "spy.mjs");
		await writeFile(
			spy,
			`import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, ""); await import(${JSON.stringify(script)});`,
		);
		const config = { mcpServers: { acme: { command: process.execPath, args: [spy, skills] } } };
		await writeTree(ws.ws, { "skillset.config.json": JSON.stringify(config) });
		const scan = await ws.json(["scan", "--exit-zero"]);
		expect(scan.data.selected).toEqual([]);
		const ignored = scan.data.diagnostics.find((d: { code: string }) => d.code === "trust.config-ignored");
		expect(ignored.message).toMatch(/would run MCP server commands \(acme\)/);
		expect(existsSync(marker)).toBe(false);
		// `--mcp` is the user's own choice, and so is an explicitly trusted workspace.
		const trusted = await ws.json(["list"], { SKILLSET_TRUST_WORKSPACE: "1" });
		expect(trusted.data.map((s: { name: string }) => s.name)).toEqual(["lint"]);
		expect(existsSync(marker)).toBe(true);
	});

	it("sends the tokenEnv token as a bearer token to a Streamable HTTP server, and --mcp LABEL=URL takes none", async () => {
		const seen: (string | undefined)[] = [];
		const peer = createServer((req, res) => {
			seen.push(req.headers.authorization);
			res.writeHead(401).end();
		});
		await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
		const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/mcp`;
		try {
			const ws = await workspace({
				"skillset.config.json": JSON.stringify({ mcpServers: { web: { url, tokenEnv: "WEB_TOKEN" } } }),
			});
			const run = await ws.json(["sources"], { WEB_TOKEN: "env-secret-123" });
			expect(seen).toContain("Bearer env-secret-123");
			expect(run.data).toEqual([
				expect.objectContaining({ origin: "mcp:web", kind: "mcp", where: url, status: "failed" }),
			]);
			expect(run.stdout + run.stderr).not.toContain("env-secret-123");
			seen.length = 0;
			const flag = await ws.json(["sources", "--no-origins", "--mcp", `other=${url}`]);
			expect(flag.data).toEqual([expect.objectContaining({ origin: "mcp:other", where: url })]);
			expect(seen.length).toBeGreaterThan(0);
			expect(seen.every((header) => header === undefined)).toBe(true);
		} finally {
			peer.closeAllConnections();
			await new Promise<void>((resolve) => peer.close(() => resolve()));
		}
	});

	it("ignores the origins of an untrusted workspace's own config, and never runs its server command", async () => {
		await publish({ "planted/SKILL.md": skillMd("planted") });
		const marker = join(await tempDir(), "ran");
		const ws = await workspace({
			"skillset.config.json": JSON.stringify({
				indexes: { acme: base },
				mcpServers: {
					evil: {
						command: process.execPath,
						args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`],
					},
				},
			}),
		});
		const scan = await ws.json(["scan", "--untrusted", "--exit-zero"]);
		const names = scan.data.selected.map((s: { name: string }) => s.name);
		expect(names).not.toContain("planted");
		const ignored = scan.data.diagnostics.find((d: { code: string }) => d.code === "trust.config-ignored");
		expect(ignored.message).toMatch(/mcpServers, indexes/);
		expect(existsSync(marker)).toBe(false);
		// Trusted, the same config is used (the index's skill arrives).
		const trusted = await ws.json(["list"]);
		expect(trusted.data.map((s: { name: string }) => s.name)).toContain("planted");
	});
});

describe("skillset sources and cache prune", () => {
	it("reports reachable, cached and failed origins", async () => {
		await publish({ "kept/SKILL.md": skillMd("kept") });
		const ws = await workspace();
		const args = ["--index", `acme=${base}`, "--index", "gone=file:///nowhere/at/all"];
		const first = await ws.json(["sources", ...args]);
		expect(first.exitCode).toBe(1);
		const status = (data: { origin: string; status: string; skills: number }[]) =>
			Object.fromEntries(data.map((o) => [o.origin, [o.status, o.skills]]));
		expect(status(first.data)).toEqual({ "index:acme": ["reachable", 1], "index:gone": ["failed", 0] });
		down = true;
		const second = await ws.json(["sources", ...args]);
		expect(status(second.data)).toMatchObject({ "index:acme": ["cached", 1] });
		expect(second.data[0].refreshedAt).toBe(first.data[0].refreshedAt);
		const human = await ws.run(["sources", ...args]);
		expect(human.stdout).toMatch(/index:acme\s+cached, 1 skill, refreshed \S+, [\d.]+ (B|KiB)/);
		expect(human.stdout).toMatch(/index:gone\s+failed, 0 skills, never refreshed, 0 B/);
	});

	it("prunes unconfigured origins and superseded copies, keeping current copies (--dry-run removes nothing)", async () => {
		await publish({ "notes/SKILL.md": skillMd("notes", "Version one.") });
		const ws = await workspace();
		const acme = ["--index", `acme=${base}`];
		await ws.run(["list", ...acme, "--index", `old=${base}`]);
		// A new version supersedes the first copy of `notes` in acme's cache.
		await publish({ "notes/SKILL.md": skillMd("notes", "Version two.") });
		await ws.run(["list", ...acme]);
		const origins = join(ws.cacheDir, "origins");
		expect((await readdir(origins)).length).toBe(2);

		const dry = await ws.json(["cache", "prune", ...acme, "--dry-run"]);
		expect(dry.data.removed.map((r: { reason: string; origin: string }) => [r.reason, r.origin]).sort()).toEqual([
			["origin", "index:old"],
			["superseded", "index:acme"],
		]);
		expect(dry.data.bytes).toBeGreaterThan(0);
		for (const entry of dry.data.removed) expect(existsSync(entry.path)).toBe(true);

		const pruned = await ws.run(["cache", "prune", ...acme]);
		expect(pruned.exitCode).toBe(0);
		expect(pruned.stdout).toMatch(/2 folder\(s\), [\d.]+ (B|KiB) freed/);
		for (const entry of dry.data.removed) expect(existsSync(entry.path)).toBe(false);
		expect((await readdir(origins)).length).toBe(1);
		// The current copy stays and still serves when the origin is down.
		down = true;
		const list = await ws.json(["list", ...acme]);
		expect(list.data).toEqual([expect.objectContaining({ name: "notes", description: "Version two." })]);
		expect((await ws.run(["cache", "prune", ...acme])).stdout).toMatch(/^Nothing to prune/);
		// A relative SKILLSET_CACHE_DIR is the same cache, seen from the working folder.
		const relative = { SKILLSET_CACHE_DIR: "../cache" };
		expect((await ws.json(["cache", "prune", ...acme], relative)).data).toMatchObject({
			cacheDir: ws.cacheDir,
			removed: [],
		});
	});

	it("keeps an MCP origin's cache when that origin is still configured", async () => {
		const ws = await workspace();
		const script = join(ws.root, "server.mjs");
		await writeFile(script, MCP_SERVER);
		const skills = join(ws.root, "skills.json");
		await writeFile(skills, JSON.stringify({ lint: { "SKILL.md": skillMd("lint") } }));
		const config = { mcpServers: { acme: { command: process.execPath, args: [script, skills] } } };
		await writeTree(ws.ws, { "skillset.config.json": JSON.stringify(config) });
		// The workspace's config runs a command: only in a workspace trusted explicitly.
		const trusted = { SKILLSET_TRUST_WORKSPACE: "1" };
		expect((await ws.json(["list"], trusted)).data.map((s: { origin: string }) => s.origin)).toEqual(["mcp:acme"]);
		expect((await ws.json(["cache", "prune"], trusted)).data.removed).toEqual([]);
		expect((await ws.json(["cache", "prune", "--no-origins"], trusted)).data.removed).toHaveLength(1);
	});

	it("asks for the action", async () => {
		const ws = await workspace();
		expect(await ws.run(["cache"])).toMatchObject({
			exitCode: 2,
			stderr: expect.stringContaining("cache needs an action: prune"),
		});
		expect((await ws.run(["cache", "clean"])).stderr).toContain("unknown cache action 'clean'");
	});
});

describe("the origin cache folder", () => {
	it("is the same folder for the settings (which avoid loading the sources stage) as for the library", async () => {
		const { resolveSettings } = await import("skillset");
		const { defaultCacheDir } = await import("skillset/sources");
		const cwd = await tempDir();
		for (const env of [
			{ HOME: "/home/u" },
			{ HOME: "/home/u", XDG_CACHE_HOME: "/var/cache/u" },
			{ HOME: "/home/u", SKILLSET_CACHE_DIR: "/tmp/skills-cache" },
		]) {
			expect((await resolveSettings({ cwd, env })).cacheDir).toBe(defaultCacheDir(env));
		}
	});
});
