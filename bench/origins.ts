// Discovery with remote origins: one well-known index and one MCP server of 1,000 skills each, on loopback,
// with an empty cache (everything fetched and verified) and with a warm one (listings checked, copies reused).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { discover, type OriginProvider } from "skillset";
import { createMcpOrigin } from "skillset/mcp";
import { createIndexOrigin, publishSkills } from "skillset/sources";

const COUNT = 1000;
const require = createRequire(import.meta.url);

/** One row per origin kind and cache state. */
export interface OriginRow {
	measure: string;
	medianMs: number;
	note: string;
}

async function writeSkills(root: string): Promise<string[]> {
	const names: string[] = [];
	for (let i = 0; i < COUNT; i++) {
		const name = `remote-skill-${i}`;
		names.push(name);
		const dir = join(root, name);
		await writeFile(
			join(await mkdirp(dir), "SKILL.md"),
			`---\nname: ${name}\ndescription: Handles remote task ${i} when the user asks for it.\n---\n# ${name}\n\nSteps for task ${i}.\n`,
		);
		if (i % 3 === 0) await writeFile(join(await mkdirp(join(dir, "references")), "notes.md"), `Notes ${i}.\n`);
	}
	return names;
}

async function mkdirp(dir: string): Promise<string> {
	const { mkdir } = await import("node:fs/promises");
	await mkdir(dir, { recursive: true });
	return dir;
}

async function timeTwice(
	make: (cacheDir: string) => OriginProvider,
): Promise<{ cold: number; cached: number; found: number }> {
	const cacheDir = await mkdtemp(join(tmpdir(), "skillset-bench-cache-"));
	const cwd = await mkdtemp(join(tmpdir(), "skillset-bench-ws-"));
	const run = async () => {
		const started = performance.now();
		const { index } = await discover({ cwd, home: cwd, defaultRoots: false, origins: [make(cacheDir)] });
		return { ms: Math.round(performance.now() - started), found: index.size };
	};
	const cold = await run();
	const cached = await run();
	await rm(cacheDir, { recursive: true, force: true });
	return { cold: cold.ms, cached: cached.ms, found: cold.found };
}

/** The origin rows for `npm run bench`. */
export async function benchOrigins(): Promise<OriginRow[]> {
	const root = await mkdtemp(join(tmpdir(), "skillset-bench-remote-"));
	const skills = join(root, "skills");
	const names = await writeSkills(skills);
	const site = join(root, "site");
	await publishSkills(
		names.map((name) => ({ name, description: "Remote.", dir: join(skills, name) })),
		site,
	);
	const server = createServer(async (req, res) => {
		const body = await readFile(join(site, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname))).catch(
			() => undefined,
		);
		if (!body) return void res.writeHead(404).end();
		res.writeHead(200).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const script = join(root, "server.mjs");
	await writeFile(
		script,
		`const { McpServer } = await import(${JSON.stringify(require.resolve("@modelcontextprotocol/server"))});
const { StdioServerTransport } = await import(${JSON.stringify(require.resolve("@modelcontextprotocol/server/stdio"))});
const { loadSkills } = await import(${JSON.stringify(require.resolve("@modelcontextprotocol/server/ext/skills/node"))});
const mcp = new McpServer({ name: "bench", version: "1" });
(await loadSkills(process.argv[2], { pageSize: 100 })).attach(mcp);
await mcp.connect(new StdioServerTransport());\n`,
	);
	try {
		const index = await timeTwice((cacheDir) => createIndexOrigin("bench", base, { cacheDir }));
		const mcp = await timeTwice((cacheDir) =>
			createMcpOrigin("bench", { command: process.execPath, args: [script, skills] }, { cacheDir, timeoutMs: 120_000 }),
		);
		return [
			{
				measure: "index origin, cold cache",
				medianMs: index.cold,
				note: `${index.found} skills fetched and verified over loopback HTTP`,
			},
			{ measure: "index origin, cached", medianMs: index.cached, note: "index read again, unchanged artifacts reused" },
			{
				measure: "MCP origin, cold cache",
				medianMs: mcp.cold,
				note: `${mcp.found} skills: skills/list pages, every file read and verified`,
			},
			{
				measure: "MCP origin, cached",
				medianMs: mcp.cached,
				note: "listing read again, unchanged resource sets reused",
			},
		];
	} finally {
		server.close();
		await rm(root, { recursive: true, force: true });
	}
}
