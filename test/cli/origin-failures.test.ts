import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_BIN, runBuilt } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 21 item 6, through the built CLI: a failed origin is never silent. Every discovering command names it on
// stderr, one line with its reason, and fails when nothing of it was served from the cache, unless --allow-offline.

let unauthorized: Server;
let unauthorizedUrl: string;
let closedPort: number;

beforeAll(async () => {
	unauthorized = createServer((_, res) => {
		res.writeHead(401, { "www-authenticate": "Bearer" });
		res.end();
	});
	await new Promise<void>((done) => unauthorized.listen(0, "127.0.0.1", done));
	unauthorizedUrl = `http://127.0.0.1:${(unauthorized.address() as AddressInfo).port}`;
	const probe = createServer();
	await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
	closedPort = (probe.address() as AddressInfo).port;
	await new Promise<void>((done) => probe.close(() => done()));
});
afterAll(async () => {
	await new Promise<void>((done) => unauthorized.close(() => done()));
});

async function workspace() {
	const cwd = await writeTree(await tempDir(), { ".agents/skills/local/SKILL.md": skillMd("local") });
	const env = { HOME: cwd, XDG_CACHE_HOME: join(cwd, ".cache") };
	return { cwd, run: (...argv: string[]) => runBuilt(argv, { cwd, env }) };
}

const warnings = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("skillset: warning: origin"));

describe("a failed origin is named, and fails the command when nothing was cached", () => {
	it.each([
		[
			"an MCP server that answers 401",
			() => `--mcp=team=${unauthorizedUrl}/mcp`,
			/mcp:team .*HTTP 401 Unauthorized; .*tokenEnv/,
		],
		[
			"an index that answers 401",
			() => `--index=site=${unauthorizedUrl}/`,
			/index:site .*HTTP 401 Unauthorized.*; .*credentials/,
		],
		["an unreachable MCP server", () => `--mcp=team=http://127.0.0.1:${closedPort}/mcp`, /mcp:team .*ECONNREFUSED/],
		["an MCP command that does not start", () => "--mcp=team=/nonexistent/skills-server --stdio", /mcp:team .*ENOENT/],
	])("%s: list says why on stderr and exits 1; --allow-offline exits 0", async (_, flag, reason) => {
		const ws = await workspace();
		const run = await ws.run("list", flag());
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toContain("local");
		expect(warnings(run.stderr)).toHaveLength(1);
		expect(warnings(run.stderr)[0]).toMatch(reason);
		expect(warnings(run.stderr)[0]).toMatch(/nothing cached/);
		const offline = await ws.run("list", flag(), "--allow-offline");
		expect(offline.exitCode).toBe(0);
		expect(warnings(offline.stderr)).toHaveLength(1);
	});

	it("every discovering command says it once and exits 1", async () => {
		const ws = await workspace();
		const flag = `--mcp=team=http://127.0.0.1:${closedPort}/mcp`;
		for (const argv of [
			["list"],
			["scan"],
			["catalog"],
			["search", "local"],
			["show", "local"],
			["read", "local", "SKILL.md"],
			["sources"],
			["doctor", "local"],
			["mcp", "--check"],
		]) {
			const run = await ws.run(...argv, flag);
			expect(warnings(run.stderr), `${argv.join(" ")}: ${run.stderr}`).toHaveLength(1);
			expect(run.exitCode, argv.join(" ")).toBe(1);
		}
	}, 120_000);

	it("a serving mcp names the failed origin at start-up and still serves the local skills", async () => {
		const ws = await workspace();
		const flag = `--mcp=team=http://127.0.0.1:${closedPort}/mcp`;
		// stdin ends at once: the server starts, says what it serves, and ends cleanly with its client.
		const run = spawnSync(process.execPath, [BUILT_BIN, "mcp", "--no-watch", flag], {
			cwd: ws.cwd,
			input: "",
			encoding: "utf8",
			env: { PATH: process.env.PATH ?? "", HOME: ws.cwd, XDG_CACHE_HOME: join(ws.cwd, ".cache") },
			timeout: 60_000,
		});
		expect(warnings(run.stderr)).toHaveLength(1);
		expect(warnings(run.stderr)[0]).toMatch(/mcp:team .*ECONNREFUSED/);
		expect(run.stderr).toContain("serving 1 skill,");
		expect(run.status).toBe(0);
	}, 60_000);

	it("a watching mcp (the stdio default) names it too, and watches no cache folder of the origin", async () => {
		const ws = await workspace();
		const run = spawnSync(process.execPath, [BUILT_BIN, "mcp", `--mcp=team=http://127.0.0.1:${closedPort}/mcp`], {
			cwd: ws.cwd,
			input: "",
			encoding: "utf8",
			env: { PATH: process.env.PATH ?? "", HOME: ws.cwd, XDG_CACHE_HOME: join(ws.cwd, ".cache") },
			timeout: 60_000,
		});
		expect(warnings(run.stderr)).toHaveLength(1);
		expect(run.stderr).not.toContain("error");
		expect(run.status).toBe(0);
	}, 60_000);

	it("allowOffline in the config file and SKILLSET_ALLOW_OFFLINE count as the flag does", async () => {
		const ws = await workspace();
		await writeTree(ws.cwd, { "skillset.config.json": JSON.stringify({ allowOffline: true }) });
		const flag = `--mcp=team=http://127.0.0.1:${closedPort}/mcp`;
		expect((await ws.run("list", flag)).exitCode).toBe(0);
		const other = await workspace();
		const env = { HOME: other.cwd, SKILLSET_ALLOW_OFFLINE: "1" };
		expect((await runBuilt(["list", flag], { cwd: other.cwd, env })).exitCode).toBe(0);
		const wrong = await runBuilt(["list", flag], { cwd: other.cwd, env: { ...env, SKILLSET_ALLOW_OFFLINE: "maybe" } });
		expect(wrong.exitCode).toBe(2);
	});

	it("an origin that fails after a good load serves its cached copies, says so, and exits 0", async () => {
		const project = await writeTree(await tempDir(), { ".agents/skills/remote-one/SKILL.md": skillMd("remote-one") });
		const server = await createSkillServer({ cwd: project, home: project, watch: false });
		const http = await serveHttp(server, { port: 0 });
		const ws = await workspace();
		const flag = `--mcp=team=${http.url}`;
		const first = await ws.run("list", flag);
		expect(first.exitCode).toBe(0);
		expect(warnings(first.stderr)).toEqual([]);
		await http.close();
		await server.close();
		const later = await ws.run("list", flag);
		expect(later.exitCode).toBe(0);
		expect(later.stdout).toContain("remote-one");
		expect(warnings(later.stderr)).toHaveLength(1);
		expect(warnings(later.stderr)[0]).toMatch(/serving 1 cached skill/);
	}, 60_000);

	it("a reason the origin chose cannot reach the terminal as control sequences", async () => {
		// An MCP server that refuses initialize with a JSON-RPC error whose message would retitle and clear the terminal.
		const hostile = createServer((req, res) => {
			let body = "";
			req.on("data", (chunk) => {
				body += chunk;
			});
			req.on("end", () => {
				const { id } = JSON.parse(body) as { id?: number };
				res.writeHead(200, { "content-type": "application/json" });
				res.end(
					JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32000, message: "\u001b]0;owned\u0007\u001b[2J" } }),
				);
			});
		});
		await new Promise<void>((done) => hostile.listen(0, "127.0.0.1", done));
		const ws = await workspace();
		const run = await ws.run("list", `--mcp=evil=http://127.0.0.1:${(hostile.address() as AddressInfo).port}/mcp`);
		hostile.close();
		expect(run.exitCode).toBe(1);
		expect(warnings(run.stderr)[0]).toContain("owned");
		expect(run.stderr).not.toContain("\u001b");
		expect(run.stderr).not.toContain("\u0007");
	});
});
