import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server received: its path, parsed JSON body, and whether it asked for a stream. */
export interface RecordedRequest {
	path: string;
	body: {
		messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
		tools?: { function: { name: string; description: string; parameters: unknown } }[];
		stream?: boolean;
		[key: string]: unknown;
	};
}

/** One scripted answer: text and/or tool calls, or an HTTP error status. */
export interface ScriptedReply {
	content?: string;
	toolCalls?: { name: string; arguments: unknown; id?: string }[];
	status?: number;
	/** Streaming only: wait this long before each chunk (a word of the content). */
	delayMs?: number;
	/** Wait this long before answering at all. */
	headerDelayMs?: number;
}

/** A reply, or a function that builds one from the request. */
export type ScriptStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

/** A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 that records every request. */
export interface ScriptedLlm {
	/** The base URL for the SDK, ending in /v1. */
	url: string;
	requests: RecordedRequest[];
	/** Replaces the remaining script. */
	script(steps: ScriptStep[]): void;
	close(): Promise<void>;
}

/**
 * Starts the server. Each request takes the next step of the script (when the script is empty it answers
 * "done"); `stream: true` requests get server-sent events, the others one JSON completion.
 */
export async function startScriptedLlm(steps: ScriptStep[] = []): Promise<ScriptedLlm> {
	let queue = [...steps];
	const requests: RecordedRequest[] = [];
	let counter = 0;
	const server: Server = createServer(async (request, response) => {
		const text = await readBody(request);
		const recorded: RecordedRequest = { path: request.url ?? "", body: text ? JSON.parse(text) : { messages: [] } };
		requests.push(recorded);
		const step = queue.shift() ?? { content: "done" };
		const reply = typeof step === "function" ? step(recorded) : step;
		if (reply.headerDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.headerDelayMs));
		if (response.destroyed) return;
		if (reply.status && reply.status !== 200) {
			response.writeHead(reply.status, { "content-type": "application/json", "retry-after-ms": "10" });
			response.end(JSON.stringify({ error: { message: `scripted ${reply.status}`, type: "server_error" } }));
			return;
		}
		const calls = (reply.toolCalls ?? []).map((call) => ({
			id: call.id ?? `call_${++counter}`,
			type: "function",
			function: {
				name: call.name,
				arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
			},
		}));
		if (recorded.body.stream) await stream(response, reply, calls);
		else respondJson(response, reply, calls);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		script(next) {
			queue = [...next];
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

type Call = { id: string; type: string; function: { name: string; arguments: string } };

function respondJson(response: import("node:http").ServerResponse, reply: ScriptedReply, calls: Call[]): void {
	response.writeHead(200, { "content-type": "application/json" });
	response.end(
		JSON.stringify({
			id: "chatcmpl-scripted",
			object: "chat.completion",
			created: 1_700_000_000,
			model: "scripted",
			choices: [
				{
					index: 0,
					message: {
						role: "assistant",
						content: reply.content ?? null,
						...(calls.length ? { tool_calls: calls } : {}),
					},
					finish_reason: calls.length ? "tool_calls" : "stop",
				},
			],
		}),
	);
}

async function stream(
	response: import("node:http").ServerResponse,
	reply: ScriptedReply,
	calls: Call[],
): Promise<void> {
	response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	let closed = false;
	response.on("close", () => {
		closed = true;
	});
	const send = (delta: Record<string, unknown>, finish: string | null = null) =>
		response.write(
			`data: ${JSON.stringify({ id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1_700_000_000, model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
		);
	send({ role: "assistant", content: "" });
	const words = (reply.content ?? "").match(/\S+\s*/g) ?? [];
	for (const word of words) {
		if (closed) return;
		if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
		send({ content: word });
	}
	calls.forEach((call, index) => {
		const half = Math.floor(call.function.arguments.length / 2);
		send({
			tool_calls: [
				{
					index,
					id: call.id,
					type: "function",
					function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) },
				},
			],
		});
		send({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] });
	});
	if (closed) return;
	send({}, calls.length ? "tool_calls" : "stop");
	response.end("data: [DONE]\n\n");
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
}

/** The system prompt of a recorded request. */
export function systemOf(request: RecordedRequest | undefined): string {
	return String(request?.body.messages[0]?.content ?? "");
}

/** The tool results of a recorded request, in order. */
export function toolResultsOf(request: RecordedRequest | undefined): string[] {
	return (request?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
}
