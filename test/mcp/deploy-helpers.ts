// Shared set-up for the deployment tests: instances of the built CLI (`skillset mcp --http`) as child processes on
// free loopback ports, each killed after the file's tests.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll } from "vitest";
import { BIN } from "./mcp-helpers.ts";

/** A running `skillset mcp --http` process. */
export interface Instance {
	port: number;
	/** `http://127.0.0.1:PORT` (no path). */
	base: string;
	child: ChildProcess;
	stderr(): string;
	/** The exit code (null when killed by a signal), once the process ends. */
	exited: Promise<number | null>;
}

const started: ChildProcess[] = [];
afterAll(() => {
	for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** A port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
		});
	});
}

/** Starts the built CLI's `mcp DIR --http 127.0.0.1:PORT ARGS` in `cwd`; resolves once it listens. */
export async function startInstance(
	cwd: string,
	args: string[],
	env: Record<string, string> = {},
	port?: number,
): Promise<Instance> {
	const chosen = port ?? (await freePort());
	const child = spawn(process.execPath, [BIN, "mcp", ...args, "--http", `127.0.0.1:${chosen}`], {
		cwd,
		env: { PATH: process.env.PATH ?? "", HOME: cwd, NO_COLOR: "1", ...env },
		stdio: ["ignore", "ignore", "pipe"],
	});
	started.push(child);
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	const listening = await Promise.race([
		new Promise<boolean>((resolve) => {
			const check = () => {
				if (stderr.includes("listening on")) resolve(true);
				else setTimeout(check, 25);
			};
			check();
		}),
		exited.then(() => false),
		new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000)),
	]);
	if (!listening) {
		child.kill("SIGKILL");
		throw new Error(`skillset mcp did not start on ${chosen}: ${stderr}`);
	}
	return { port: chosen, base: `http://127.0.0.1:${chosen}`, child, stderr: () => stderr, exited };
}

/** A GET or POST with a bounded wait: the status, headers and body text. */
export async function fetchText(
	url: string,
	init: RequestInit = {},
): Promise<{ status: number; headers: Headers; text: string }> {
	const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
	return { status: response.status, headers: response.headers, text: await response.text() };
}

/** An SDK client connected to `url` (2025 sessions, or `protocol` pinned), with headers on every request. */
export async function connectClient(
	url: string,
	protocol?: string,
	headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
	const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
	const negotiation = protocol ? { versionNegotiation: { mode: { pin: protocol } } } : {};
	const client = new Client({ name: "skillset-deploy-test", version: "1" }, negotiation);
	await client.connect(transport);
	return { client, transport };
}

/** A JSON-RPC initialize body for the 2025 protocol. */
export function initializeBody(id = 1): string {
	return JSON.stringify({
		jsonrpc: "2.0",
		id,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
	});
}

/** Headers of a raw MCP POST. */
export const MCP_POST = { "content-type": "application/json", accept: "application/json, text/event-stream" };
