import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A captured request: path and parsed JSON body. */
export interface CapturedRequest {
	path: string;
	body: Record<string, unknown>;
}

/** A local HTTP server that records each request and answers with the next canned JSON response. */
export interface FakeLlm {
	url: string;
	requests: CapturedRequest[];
	close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 with the given responses, one per request (the last repeats). */
export async function startFakeLlm(responses: Record<string, unknown>[]): Promise<FakeLlm> {
	const requests: CapturedRequest[] = [];
	const server: Server = createServer(async (request, response) => {
		const body = await readBody(request);
		requests.push({ path: request.url ?? "", body: body ? JSON.parse(body) : {} });
		const answer = responses[Math.min(requests.length - 1, responses.length - 1)] ?? {};
		response.writeHead(200, { "content-type": "application/json" });
		response.end(JSON.stringify(answer));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
}

/** A minimal OpenAI chat completion, optionally calling one tool. */
export function chatCompletion(toolCall?: { id: string; name: string; arguments: string }): Record<string, unknown> {
	const message = toolCall
		? {
				role: "assistant",
				content: null,
				tool_calls: [
					{ id: toolCall.id, type: "function", function: { name: toolCall.name, arguments: toolCall.arguments } },
				],
			}
		: { role: "assistant", content: "done" };
	return {
		id: "chatcmpl-1",
		object: "chat.completion",
		created: 1_700_000_000,
		model: "gpt-test",
		choices: [{ index: 0, message, finish_reason: toolCall ? "tool_calls" : "stop" }],
		usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
	};
}
