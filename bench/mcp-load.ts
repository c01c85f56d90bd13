// A request loop against `skillset mcp --http` for the memory check (bench) and its test: plain keep-alive HTTP
// requests, mostly 2026-07-28 ones (each served by a fresh server, no session), with a 2025 session opened, used
// and closed every fiftieth round. Every answer must be a 200 (202 for notifications, 200 or 204 for a DELETE).
import { Agent, request } from "node:http";

/** What a run of the loop sent, and the first few failures. */
export interface LoadResult {
	sent: number;
	failed: string[];
}

/** A request loop against one endpoint. */
export interface Load {
	/** Sends `count` requests, `concurrency` at a time; stops early when `alive` says the server is gone. */
	run(count: number, alive?: () => boolean): Promise<LoadResult>;
	close(): void;
}

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const META = {
	"io.modelcontextprotocol/protocolVersion": MODERN,
	"io.modelcontextprotocol/clientInfo": { name: "load", version: "1" },
	"io.modelcontextprotocol/clientCapabilities": {},
};

/** The stateless requests, in turn. */
const CALLS: { method: string; params: Record<string, unknown>; name?: string }[] = [
	{ method: "tools/list", params: {} },
	{ method: "tools/call", params: { name: "load_skill", arguments: { name: "skill-0" } }, name: "load_skill" },
	{ method: "prompts/get", params: { name: "skill-1" }, name: "skill-1" },
	{
		method: "resources/read",
		params: { uri: "skill://skill-0/references/guide.md" },
		name: "skill://skill-0/references/guide.md",
	},
	{ method: "skills/list", params: {} },
	{ method: "prompts/list", params: {} },
];

interface Answer {
	status: number;
	session?: string;
	text: string;
}

/** Creates the loop for `url` (`http://host:port/mcp`). */
export function createLoad(url: string, concurrency = 4): Load {
	const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
	const send = (method: string, body: unknown, headers: Record<string, string>): Promise<Answer> =>
		new Promise((resolve, reject) => {
			const all = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
			const req = request(url, { method, agent, headers: all }, (res) => {
				let text = "";
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => {
					if (text.length < 4096) text += chunk;
				});
				res.on("end", () => {
					const id = res.headers["mcp-session-id"];
					resolve({ status: res.statusCode ?? 0, text, ...(typeof id === "string" ? { session: id } : {}) });
				});
			});
			req.on("error", reject);
			req.end(body === undefined ? undefined : JSON.stringify(body));
		});

	const modern = async (round: number): Promise<string | undefined> => {
		const call = CALLS[round % CALLS.length] ?? { method: "ping", params: {} };
		const headers: Record<string, string> = { "mcp-protocol-version": MODERN, "mcp-method": call.method };
		if (call.name) headers["mcp-name"] = call.name;
		const body = { jsonrpc: "2.0", id: round, method: call.method, params: { ...call.params, _meta: META } };
		const answer = await send("POST", body, headers);
		const ok = answer.status === 200 && answer.text.includes('"result"');
		return ok ? undefined : `${call.method}: ${answer.status} ${answer.text.slice(0, 200)}`;
	};

	const session = async (round: number): Promise<string | undefined> => {
		const params = { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "load", version: "1" } };
		const opened = await send("POST", { jsonrpc: "2.0", id: round, method: "initialize", params }, {});
		if (opened.status !== 200 || !opened.session) return `initialize: ${opened.status} ${opened.text.slice(0, 200)}`;
		const headers = { "mcp-session-id": opened.session, "mcp-protocol-version": LEGACY };
		await send("POST", { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
		const listed = await send("POST", { jsonrpc: "2.0", id: round + 1, method: "tools/list", params: {} }, headers);
		const closed = await send("DELETE", undefined, headers);
		if (listed.status !== 200) return `tools/list in a session: ${listed.status} ${listed.text.slice(0, 200)}`;
		return closed.status === 200 || closed.status === 204 ? undefined : `DELETE: ${closed.status}`;
	};

	return {
		async run(count, alive = () => true) {
			const failed: string[] = [];
			let next = 0;
			let sent = 0;
			const worker = async (): Promise<void> => {
				while (next < count && alive()) {
					const round = next++;
					const problem = await (round % 50 === 49 ? session(round) : modern(round)).catch(
						(error: Error) => `${error.message}`,
					);
					sent++;
					if (problem && failed.length < 5) failed.push(problem);
				}
			};
			await Promise.all(Array.from({ length: concurrency }, worker));
			return { sent, failed };
		},
		close: () => agent.destroy(),
	};
}
