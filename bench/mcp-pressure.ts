// `npm run bench`, MCP under pressure, against the built CLI in its own process: memory over 100,000 requests at a
// capped heap (mostly 2026-07-28 requests, a server each, and 2025 sessions opened and closed), and a small read's
// latency while five clients read 8 MiB files.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServedChild, serveChild } from "./child.ts";
import { createLoad } from "./mcp-load.ts";
import { BIN } from "./process.ts";

/** A row of the bench table (the shape `bench/run.ts` prints). */
export interface PressureRow {
	skills: number;
	measure: string;
	medianMs: number;
	note?: string;
}

const REQUESTS = 100_000;
const HEAP_MIB = 96;
const BIG_BYTES = 8 * 1024 * 1024 - 4096;
const SMALL_READS = 300;

function serve(ws: string, nodeArgs: string[]): Promise<ServedChild> {
	const args = [...nodeArgs, BIN, "mcp", "--http", "127.0.0.1:0", "--no-default-roots", "--root", "skills"];
	return serveChild(args, { cwd: ws, env: { PATH: process.env.PATH ?? "", HOME: ws } });
}

async function workspace(name: string, files: Record<string, string>): Promise<string> {
	const ws = join(tmpdir(), `skillset-bench-${name}`);
	for (const [path, text] of Object.entries(files)) {
		await mkdir(join(ws, "skills", path, ".."), { recursive: true });
		await writeFile(join(ws, "skills", path), text);
	}
	return ws;
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: Does ${name} things.\n---\n# ${name}\n\nSteps.\n`;

async function rssMiB(pid: number | undefined): Promise<number> {
	const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
	return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Memory over 100,000 requests at a 96 MiB heap: the live heap after full GCs, first and last, and the RSS. */
async function memory(): Promise<PressureRow> {
	const files: Record<string, string> = { "skill-0/references/guide.md": "# Guide\n" };
	for (let i = 0; i < 40; i++) files[`skill-${i}/SKILL.md`] = skillMd(`skill-${i}`);
	const served = await serve(await workspace("mcp-memory", files), [`--max-old-space-size=${HEAP_MIB}`, "--trace-gc"]);
	const load = createLoad(served.url);
	const started = performance.now();
	await load.run(5000, served.alive);
	const rssBefore = await rssMiB(served.child.pid);
	const mark = served.stdout().length;
	const result = await load.run(REQUESTS - 5000, served.alive);
	const wallMs = performance.now() - started;
	const rssAfter = await rssMiB(served.child.pid);
	load.close();
	served.child.kill("SIGTERM");
	const live = [
		...served
			.stdout()
			.slice(mark)
			.matchAll(/Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/g),
	].map((m) => Number(m[1]));
	return {
		skills: 40,
		measure: `mcp: memory over ${REQUESTS.toLocaleString("en")} requests at a ${HEAP_MIB} MiB heap (built CLI)`,
		medianMs: Math.round(wallMs / REQUESTS / 0.001) / 1000,
		note: `ms per request; ${served.alive() ? "alive" : "DIED"}, ${result.failed.length} failed; live heap after full GCs ${live[0] ?? "?"} -> ${live.at(-1) ?? "?"} MB (${live.length} GCs); RSS ${rssBefore} -> ${rssAfter} MiB; target flat`,
	};
}

/** A 2026-07-28 `resources/read` on its own keep-alive agent; resolves with the time to the end of the answer. */
function read(url: string, agent: Agent, uri: string): Promise<number> {
	const meta = {
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
		"io.modelcontextprotocol/clientCapabilities": {},
	};
	const headers = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		"mcp-protocol-version": "2026-07-28",
		"mcp-method": "resources/read",
		"mcp-name": uri,
	};
	const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri, _meta: meta } });
	const started = performance.now();
	return new Promise((resolve, reject) => {
		const req = request(url, { method: "POST", agent, headers }, (res) => {
			res.resume();
			res.on("end", () => resolve(performance.now() - started));
		});
		req.on("error", reject);
		req.end(body);
	});
}

/** A small read's p50 while five clients keep reading 8 MiB files. */
async function smallUnderBig(): Promise<PressureRow> {
	const line = `${"lorem ipsum dolor sit amet ".repeat(37)}\n`;
	const big = line.repeat(Math.floor(BIG_BYTES / line.length));
	const files: Record<string, string> = { "small/SKILL.md": skillMd("small"), "small/notes.md": "# Notes\n" };
	for (let i = 0; i < 5; i++) {
		files[`big-${i}/SKILL.md`] = skillMd(`big-${i}`);
		files[`big-${i}/assets/data.txt`] = big;
	}
	const served = await serve(await workspace("mcp-readers", files), []);
	const agents = Array.from({ length: 6 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
	let reading = true;
	const readers = [0, 1, 2, 3, 4].map(async (i) => {
		while (reading) await read(served.url, agents[i] as Agent, `skill://big-${i}/assets/data.txt`);
	});
	const times: number[] = [];
	for (let i = 0; i < SMALL_READS; i++)
		times.push(await read(served.url, agents[5] as Agent, "skill://small/notes.md"));
	reading = false;
	await Promise.all(readers);
	for (const agent of agents) agent.destroy();
	served.child.kill("SIGTERM");
	times.sort((a, b) => a - b);
	const at = (q: number) => Math.round((times[Math.floor(times.length * q)] ?? 0) * 100) / 100;
	return {
		skills: 6,
		measure: "mcp: small resources/read p50 under five 8 MiB readers (built CLI)",
		medianMs: at(0.5),
		note: `p90 ${at(0.9)} ms, ${SMALL_READS} reads; target ≤ 5 ms`,
	};
}

/** Both measures. */
export async function benchMcpPressure(): Promise<PressureRow[]> {
	return [await smallUnderBig(), await memory()];
}
