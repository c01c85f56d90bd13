// `npm run bench`, MCP part: skills/list and resources/read of the skills server over loopback Streamable HTTP,
// with the official SDK client, on a generated 10,000-skill tree; the baseline hashes every file naively.
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { DiscoverOptions } from "skillset";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { type ServedChild, serveChild, stopChild } from "./child.ts";
import { generateTree } from "./generate.ts";
import { BIN } from "./process.ts";

/** A row of the bench table (the shape `bench/run.ts` prints). */
export interface McpRow {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

const COUNT = 10_000;
const CLIENTS = 16;
const READS_PER_CLIENT = 200;
/** Counted runs of the concurrent-read load, each against the server then the baseline (after one of each not counted). */
const LOAD_ROUNDS = 5;
const BASELINE = new URL("./mcp-baseline-serve.js", import.meta.url).pathname;

// Takes the result as it is: the bench measures the server, not the client's validation.
const ANY = { "~standard": { version: 1 as const, vendor: "bench", validate: (value: unknown) => ({ value }) } };

interface Page {
	skills: { uri: string; resources: { uri: string }[] }[];
	nextCursor?: string;
}

async function connect(url: string): Promise<Client> {
	const client = new Client({ name: "bench", version: "1" });
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	return client;
}

async function listPage(client: Client, cursor?: string): Promise<Page> {
	const params = cursor === undefined ? {} : { cursor };
	return (await client.request({ method: "skills/list", params }, ANY)) as Page;
}

/** Pages through every skill; returns the time and every file URI. */
async function enumerate(client: Client): Promise<{ ms: number; skills: number; files: string[] }> {
	const started = performance.now();
	const files: string[] = [];
	let skills = 0;
	let cursor: string | undefined;
	do {
		const page = await listPage(client, cursor);
		skills += page.skills.length;
		for (const skill of page.skills) for (const resource of skill.resources) files.push(resource.uri);
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	return { ms: performance.now() - started, skills, files };
}

/** The naive way to publish digests: list every file under the root and hash each whole file. */
async function naiveDigests(root: string): Promise<number> {
	const names = await readdir(root, { recursive: true, withFileTypes: true });
	let count = 0;
	for (const entry of names) {
		if (!entry.isFile()) continue;
		createHash("sha256").update(await readFile(join(entry.parentPath, entry.name)));
		count++;
	}
	return count;
}

function percentile(times: number[], p: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 1000) / 1000;
}

/** What one run of the load clients saw. */
interface LoadRun {
	latencies: number[];
	wallMs: number;
	failures: number;
}

/** Runs the load clients in a worker thread and returns every read's latency. */
function readersInWorker(job: { url: string; files: string[]; clients: number; reads: number }): Promise<LoadRun> {
	const worker = new Worker(new URL("./mcp-readers.js", import.meta.url), { workerData: job });
	return new Promise((resolve, reject) => {
		worker.once("message", (result: LoadRun) => {
			worker.terminate().then(() => resolve(result), reject);
		});
		worker.once("error", reject);
	});
}

/** Both servers' runs of the concurrent-read load. */
interface LoadRuns {
	runs: { load: LoadRun; naive: LoadRun }[];
	/** The p50 ratio of the first runs, which are not counted. */
	first: string;
}

/**
 * The concurrent-read load against the skills server and the baseline, each in a process of its own as they are
 * deployed (the server is the built CLI; neither shares a heap or an event loop with the bench or its clients). One
 * run of each comes first and is not counted: it measures compiling the server's code, not serving. Then they
 * alternate, `LOAD_ROUNDS` runs each: load from elsewhere on the machine drifts over seconds, and a single pair of
 * runs measured it as much as the servers.
 */
async function concurrentReads(root: string, files: string[]): Promise<LoadRuns> {
	const home = await mkdtemp(join(tmpdir(), "skillset-bench-mcp-home-"));
	const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLSET_CACHE_DIR: join(home, "cache") };
	const servers: ServedChild[] = [];
	try {
		const serverArgs = [BIN, "mcp", "--http", "127.0.0.1:0", "--no-default-roots", "--root", root];
		const ours = await serveChild(serverArgs, { cwd: root, env, timeoutMs: 300_000 });
		servers.push(ours);
		const bare = await serveChild([BASELINE, root], { cwd: root, env });
		servers.push(bare);
		const job = { files, clients: CLIENTS, reads: READS_PER_CLIENT };
		const p50Ratio = (run: { load: LoadRun; naive: LoadRun }) =>
			(percentile(run.load.latencies, 0.5) / percentile(run.naive.latencies, 0.5)).toFixed(2);
		const round = async () => ({
			load: await readersInWorker({ url: ours.url, ...job }),
			naive: await readersInWorker({ url: bare.url, ...job }),
		});
		const first = p50Ratio(await round());
		const runs: { load: LoadRun; naive: LoadRun }[] = [];
		for (let i = 0; i < LOAD_ROUNDS; i++) runs.push(await round());
		return { runs, first };
	} finally {
		for (const served of servers) await stopChild(served.child);
		await rm(home, { recursive: true, force: true });
	}
}

/** The MCP rows: skills/list first page and full enumeration (cold and warm digest cache), reads under load. */
export async function benchMcp(): Promise<McpRow[]> {
	const root = join(tmpdir(), `skillset-bench-mcp-${COUNT}`);
	await generateTree(root, COUNT);
	const options: DiscoverOptions = {
		cwd: root,
		home: root,
		defaultRoots: false,
		roots: [root],
		limits: { maxDirs: 100_000, maxEntries: 1_000_000 },
	};
	const rows: McpRow[] = [];
	const startup = performance.now();
	const server = await createSkillServer({ ...options, tools: false });
	rows.push({
		skills: COUNT,
		measure: "mcp: server start (discover + serve plan)",
		medianMs: Math.round(performance.now() - startup),
		note: `${server.served.length} served, ${server.leftOut.length} left out`,
	});
	const serving = await serveHttp(server, { port: 0 });
	const client = await connect(serving.url);

	const first = performance.now();
	const page = await listPage(client);
	rows.push({
		skills: COUNT,
		measure: "mcp: skills/list first page, cold digests",
		medianMs: Math.round((performance.now() - first) * 10) / 10,
		note: `${page.skills.length} entries`,
	});
	const baselineStarted = performance.now();
	const hashed = await naiveDigests(root);
	const baseline = Math.round(performance.now() - baselineStarted);
	const cold = await enumerate(client);
	rows.push({
		skills: COUNT,
		measure: "mcp: skills/list full enumeration, cold digests",
		medianMs: Math.round(cold.ms),
		baselineMs: baseline,
		note: `${cold.skills} skills, ${cold.files.length} files; baseline hashes ${hashed} files, no protocol`,
	});
	const warmTimes: number[] = [];
	for (let i = 0; i < 3; i++) warmTimes.push((await enumerate(client)).ms);
	rows.push({
		skills: COUNT,
		measure: "mcp: skills/list full enumeration, warm digests",
		medianMs: Math.round(percentile(warmTimes, 0.5)),
		note: `median of 3, ${server.cachedDigests} digests cached; target ≤ 300 ms`,
	});

	const sequential: number[] = [];
	for (let i = 0; i < 500; i++) {
		const at = performance.now();
		await client.readResource({ uri: cold.files[(i * 104_729) % cold.files.length] ?? "" });
		sequential.push(performance.now() - at);
	}
	rows.push({
		skills: COUNT,
		measure: "mcp: resources/read p50, one client",
		medianMs: percentile(sequential, 0.5),
		note: `p99 ${percentile(sequential, 0.99)} ms; 500 reads one after another by the SDK client, in the server's thread`,
	});
	const { runs, first: uncounted } = await concurrentReads(root, cold.files);
	const p50s = (pick: (run: { load: LoadRun; naive: LoadRun }) => LoadRun) =>
		runs.map((run) => percentile(pick(run).latencies, 0.5));
	const served = p50s((run) => run.load);
	const baselines = p50s((run) => run.naive);
	const all = (pick: (run: { load: LoadRun; naive: LoadRun }) => LoadRun) => runs.flatMap((run) => pick(run).latencies);
	const failures = runs.reduce((sum, run) => sum + run.load.failures, 0);
	const ratios = served.map((p50, i) => (p50 / (baselines[i] ?? p50)).toFixed(2)).join(" / ");
	rows.push({
		skills: COUNT,
		measure: `mcp: resources/read p50, ${CLIENTS} concurrent clients`,
		medianMs: percentile(served, 0.5),
		baselineMs: percentile(baselines, 0.5),
		note: `median of ${LOAD_ROUNDS} runs alternating with the baseline (ratios ${ratios}; the uncounted first runs ${uncounted}); p99 ${percentile(
			all((run) => run.load),
			0.99,
		)} ms (baseline ${percentile(
			all((run) => run.naive),
			0.99,
		)}); ${CLIENTS}×${READS_PER_CLIENT} reads a run (${failures} failed), keep-alive clients in a worker, each server in its own process (the built CLI's \`mcp --http\`); target p50 ≤ 1.5× the baseline`,
	});
	await client.close();
	await serving.close();
	await server.close();
	return rows;
}
