// `npm run bench`, deploy part (issue 24 §1): requests per second through a real nginx (the README's "Deploying for
// a team" config) to one and to three `skillset mcp --http` instances of the built CLI, with the same client load:
// 16 MCP sessions reading resources (bench/mcp-readers.ts, in a worker). Skipped with a message without nginx.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { stopChild } from "./child.ts";
import { generateTree } from "./generate.ts";

/** A row of the bench table (the shape `bench/run.ts` prints). */
export interface DeployRow {
	skills: number;
	measure: string;
	medianMs: number;
	note?: string;
}

const COUNT = 1000;
const CLIENTS = 16;
const READS_PER_CLIENT = 150;
const REPO = join(import.meta.dirname, "..", "..");
const BIN = join(REPO, "dist", "cli", "bin.js");
const ANY = { "~standard": { version: 1 as const, vendor: "bench", validate: (value: unknown) => ({ value }) } };

function nginxPath(): string | undefined {
	const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin"].filter(Boolean);
	const found = dirs.map((dir) => join(dir, "nginx")).find((path) => existsSync(path));
	return found && spawnSync(found, ["-v"], { stdio: "ignore" }).status === 0 ? found : undefined;
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
		});
	});
}

async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
	for (let i = 0; i < 1200; i++) {
		if (await check()) return;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error(`${what} did not start`);
}

const answers = (url: string) => () =>
	fetch(url, { signal: AbortSignal.timeout(2000) }).then(
		() => true,
		() => false,
	);

/** The README's nginx block with `ports` in place of 8101-8103 and `listen` in place of 8080. */
async function readmeConfig(ports: number[], listen: number): Promise<string> {
	const text = await readFile(join(REPO, "docs", "deploying.md"), "utf8");
	const block = /<!-- deploy-nginx:start -->\n```nginx\n([\s\S]*?)```\n<!-- deploy-nginx:end -->/.exec(text)?.[1] ?? "";
	let config = block.replace("listen 8080;", `listen 127.0.0.1:${listen};`);
	for (const [i, port] of ports.entries()) config = config.replaceAll(`127.0.0.1:${8101 + i}`, `127.0.0.1:${port}`);
	return config;
}

async function startNginx(nginx: string, dir: string, http: string, port: number): Promise<ChildProcess> {
	await mkdir(join(dir, "logs"), { recursive: true });
	const temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
		(name) => `${name}_temp_path ${join(dir, name)};`,
	);
	const conf = `pid ${join(dir, "nginx.pid")};\nerror_log ${join(dir, "logs", "error.log")} warn;\nworker_processes 1;\nevents { worker_connections 1024; }\nhttp { access_log off; ${temps.join(" ")}\n${http}\n}\n`;
	await writeFile(join(dir, "nginx.conf"), conf);
	const child = spawn(nginx, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: "ignore" });
	await waitUntil(answers(`http://127.0.0.1:${port}/mcp`), "nginx");
	return child;
}

/** Every file URI, paged through skills/list. */
async function fileUris(url: string): Promise<string[]> {
	const client = new Client({ name: "bench", version: "1" });
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	const files: string[] = [];
	let cursor: string | undefined;
	do {
		const page = (await client.request({ method: "skills/list", params: cursor ? { cursor } : {} }, ANY)) as {
			skills: { resources: { uri: string }[] }[];
			nextCursor?: string;
		};
		for (const skill of page.skills) for (const resource of skill.resources) files.push(resource.uri);
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	await client.close();
	return files;
}

function readers(url: string, files: string[]): Promise<{ latencies: number[]; wallMs: number; failures: number }> {
	const worker = new Worker(new URL("./mcp-readers.js", import.meta.url), {
		workerData: { url, files, clients: CLIENTS, reads: READS_PER_CLIENT },
	});
	return new Promise((resolve, reject) => {
		worker.once("message", (result: { latencies: number[]; wallMs: number; failures: number }) => {
			worker.terminate().then(() => resolve(result), reject);
		});
		worker.once("error", reject);
	});
}

function percentile(times: number[], p: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 1000) / 1000;
}

/** The deploy rows: rps and p50/p99 through nginx to 1 and to 3 instances, and the ratio; none without nginx. */
export async function benchDeploy(): Promise<DeployRow[]> {
	const nginx = nginxPath();
	if (!nginx) {
		console.log("bench deploy: skipped, nginx is not installed (apt-get install -y nginx)");
		return [];
	}
	const root = join(tmpdir(), `skillset-bench-deploy-${COUNT}`);
	await generateTree(root, COUNT);
	const scratch = await mkdtemp(join(tmpdir(), "skillset-bench-nginx-"));
	// nginx's workers run as `nobody`: they must reach their temp folders.
	await chmod(scratch, 0o755);
	const children: ChildProcess[] = [];
	const rows: DeployRow[] = [];
	try {
		const ports = [await freePort(), await freePort(), await freePort()];
		for (const [i, port] of ports.entries()) {
			const args = [BIN, "mcp", root, "--no-default-roots", "--root", root, "--http", `127.0.0.1:${port}`];
			children.push(spawn(process.execPath, [...args, "--instance-id", `s${i + 1}`], { stdio: "ignore" }));
			await waitUntil(answers(`http://127.0.0.1:${port}/readyz`), `instance s${i + 1}`);
		}
		const rps: number[] = [];
		for (const [label, targets] of [
			["1 instance", [ports[0], ports[0], ports[0]]],
			["3 instances", ports],
		] as const) {
			const front = await freePort();
			const dir = join(scratch, label.replace(" ", "-"));
			const proxy = await startNginx(nginx, dir, await readmeConfig(targets.map(Number), front), front);
			children.push(proxy);
			const url = `http://127.0.0.1:${front}/mcp`;
			const files = await fileUris(url);
			const load = await readers(url, files);
			const perSecond = Math.round((load.latencies.length / load.wallMs) * 1000);
			rps.push(perSecond);
			rows.push({
				skills: COUNT,
				measure: `deploy: resources/read through nginx, ${label}, p50`,
				medianMs: percentile(load.latencies, 0.5),
				note: `${perSecond} requests/s, p99 ${percentile(load.latencies, 0.99)} ms, ${load.failures} failed; ${CLIENTS} sessions × ${READS_PER_CLIENT} reads`,
			});
			await stopChild(proxy);
		}
		rows.push({
			skills: COUNT,
			measure: "deploy: requests/s ratio, 3 instances / 1",
			medianMs: Math.round(((rps[1] ?? 0) / (rps[0] || 1)) * 100) / 100,
			note: "a ratio, not ms; same client load, all on one machine (the instances share its cores)",
		});
	} finally {
		await Promise.all(children.map((child) => stopChild(child)));
		await rm(scratch, { recursive: true, force: true });
	}
	return rows;
}
