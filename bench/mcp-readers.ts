// Worker for bench/mcp.ts: 16 MCP sessions reading resources over loopback HTTP, apart from the server's thread.
// The clients speak the protocol with plain keep-alive requests (initialize, initialized, then resources/read),
// so the latencies measure the server and the loopback rather than a client library's own overhead.
import { Agent, request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

interface Job {
	url: string;
	files: string[];
	clients: number;
	reads: number;
}

const job = workerData as Job;
const agent = new Agent({ keepAlive: true, maxSockets: job.clients });

function post(body: unknown, session?: string): Promise<{ status: number; session?: string; text: string }> {
	const headers: Record<string, string> = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
	};
	return new Promise((resolve, reject) => {
		const req = request(job.url, { method: "POST", agent, headers }, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				text += chunk;
			});
			res.on("end", () => {
				const id = res.headers["mcp-session-id"];
				resolve({ status: res.statusCode ?? 0, text, ...(typeof id === "string" ? { session: id } : {}) });
			});
		});
		req.on("error", reject);
		req.end(JSON.stringify(body));
	});
}

async function openSession(): Promise<string> {
	const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } };
	const opened = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params });
	if (!opened.session) throw new Error(`initialize failed: ${opened.status} ${opened.text}`);
	await post({ jsonrpc: "2.0", method: "notifications/initialized" }, opened.session);
	return opened.session;
}

const sessions = await Promise.all(Array.from({ length: job.clients }, openSession));
const latencies: number[] = [];
let failures = 0;
const started = performance.now();
await Promise.all(
	sessions.map(async (session, c) => {
		for (let i = 0; i < job.reads; i++) {
			const uri = job.files[(c * 7919 + i * 104_729) % job.files.length] ?? "";
			const at = performance.now();
			const answer = await post({ jsonrpc: "2.0", id: i + 1, method: "resources/read", params: { uri } }, session);
			latencies.push(performance.now() - at);
			if (answer.status !== 200 || !answer.text.includes('"contents"')) failures++;
		}
	}),
);
const wallMs = performance.now() - started;
agent.destroy();
parentPort?.postMessage({ latencies, wallMs, failures });
