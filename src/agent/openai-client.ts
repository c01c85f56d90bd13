import OpenAI from "openai";
import type {
	ChatCompletion,
	ChatCompletionChunk,
	ChatCompletionMessageParam,
	ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { ChatMessage, ModelClient, ModelRequest, ModelResponse, ModelToolCall } from "./model.ts";
import { describeModelError } from "./model-errors.ts";

/** Options for {@link createOpenAIClient}. */
export interface OpenAIClientOptions {
	model: string;
	/** An OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1` (Ollama). Default: OpenAI's. */
	baseURL?: string;
	/** Default: `OPENAI_API_KEY` as the SDK reads it; local servers accept any key. */
	apiKey?: string;
	/** Per-request timeout in ms (until the answer starts; for a whole answer, until it has all come). Default 120,000. */
	timeoutMs?: number;
	/** Retries on 408/409/429/5xx and connection errors, with exponential backoff (the SDK's). Default 3. */
	maxRetries?: number;
	/** Stream the answer (default true). */
	stream?: boolean;
	temperature?: number;
	/**
	 * Largest answer, in characters (of the raw chunks when streamed, of the body otherwise); past it the call fails
	 * and the connection is closed. Default 16 Mi.
	 */
	maxAnswerChars?: number;
}

const DEFAULT_MAX_ANSWER_CHARS = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * A {@link ModelClient} for any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio,
 * llama.cpp server), streaming by default. Retries and timeouts are the `openai` SDK's.
 */
export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
	const client = new OpenAI({
		apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed",
		...(options.baseURL ? { baseURL: options.baseURL } : {}),
		timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		maxRetries: options.maxRetries ?? 3,
	});
	const stream = options.stream !== false;
	const maxChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	return {
		async complete(request, call = {}) {
			const body = {
				model: options.model,
				messages: request.messages.map(toOpenAIMessage),
				...(request.tools.length > 0 ? { tools: request.tools.map(toOpenAITool) } : {}),
				...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
			};
			// One controller per call, tied to the caller's signal only while the call runs: the SDK adds an abort
			// listener per request and never removes it, so a turn's signal would collect one per model call.
			const controller = new AbortController();
			const onAbort = () => controller.abort(call.signal?.reason);
			if (call.signal?.aborted) controller.abort(call.signal.reason);
			else call.signal?.addEventListener("abort", onAbort, { once: true });
			try {
				if (!stream) {
					const raw = client.chat.completions.create({ ...body, stream: false }, { signal: controller.signal });
					const response = await readWhole(raw.asResponse(), controller, maxChars, timeoutMs);
					if (response.content) call.onText?.(response.content);
					return response;
				}
				const chunks = await client.chat.completions.create({ ...body, stream: true }, { signal: controller.signal });
				return await collectStream(watchIdle(chunks, controller, timeoutMs), call.onText, maxChars);
			} catch (error) {
				// What went wrong, with the URL it went wrong at: "Connection error." alone says neither.
				throw describeModelError(error, client.baseURL);
			} finally {
				call.signal?.removeEventListener("abort", onAbort);
				// Ends a body that is still coming (a cap was hit, or a parse failed): nothing else reads it.
				controller.abort();
			}
		},
	};
}

/**
 * Reads a whole (not streamed) answer with the same cap as a streamed one, within `timeoutMs` for the whole body
 * (the SDK's timeout ends when the headers arrive), and parses it.
 */
async function readWhole(
	pending: Promise<Response>,
	controller: AbortController,
	maxChars: number,
	timeoutMs: number,
): Promise<ModelResponse> {
	const timer = setTimeout(() => controller.abort(new Error(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
	try {
		const response = await pending;
		const decoder = new TextDecoder();
		let text = "";
		for await (const chunk of response.body ?? []) {
			text += decoder.decode(chunk as Uint8Array, { stream: true });
			// An endless or huge answer (a broken or hostile server) ends the call instead of filling memory.
			if (text.length > maxChars) throw new Error(`the model's answer passed ${maxChars} characters`);
		}
		text += decoder.decode();
		let completion: ChatCompletion;
		try {
			completion = JSON.parse(text) as ChatCompletion;
		} catch {
			if (controller.signal.aborted && controller.signal.reason instanceof Error) throw controller.signal.reason;
			throw new Error(`the model's answer is not JSON (${text.length} characters)`);
		}
		return fromCompletion(completion);
	} finally {
		clearTimeout(timer);
	}
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
	switch (message.role) {
		case "tool":
			return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
		case "assistant":
			return message.toolCalls?.length
				? {
						role: "assistant",
						content: message.content || null,
						tool_calls: message.toolCalls.map((call) => ({
							id: call.id,
							type: "function",
							function: { name: call.name, arguments: call.arguments },
						})),
					}
				: { role: "assistant", content: message.content };
		default:
			return { role: message.role, content: message.content };
	}
}

function toOpenAITool(tool: ModelRequest["tools"][number]): ChatCompletionTool {
	return {
		type: "function",
		function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
	};
}

function fromCompletion(completion: ChatCompletion): ModelResponse {
	const choice = completion.choices[0];
	const toolCalls: ModelToolCall[] = [];
	for (const call of choice?.message.tool_calls ?? []) {
		if (call.type === "function")
			toolCalls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
	}
	return {
		content: choice?.message.content ?? "",
		toolCalls,
		...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
	};
}

/**
 * The stream's chunks, ending it with an error when nothing comes for `timeoutMs` (the SDK's timeout ends when the
 * headers arrive, so a server that stalls mid-answer would otherwise hold the turn forever).
 */
async function* watchIdle<T>(
	chunks: AsyncIterable<T>,
	controller: AbortController,
	timeoutMs: number,
): AsyncIterable<T> {
	const stalled = new Error(`the model sent nothing for ${timeoutMs} ms`);
	let timer = setTimeout(() => controller.abort(stalled), timeoutMs);
	try {
		for await (const chunk of chunks) {
			clearTimeout(timer);
			yield chunk;
			timer = setTimeout(() => controller.abort(stalled), timeoutMs);
		}
		// The SDK ends an aborted stream quietly: what came was partial.
		if (controller.signal.reason === stalled) throw stalled;
	} catch (error) {
		if (controller.signal.reason === stalled) throw stalled;
		throw error;
	} finally {
		clearTimeout(timer);
	}
}

/** Joins streamed deltas: text in order, tool calls by index (id and name once, arguments in pieces). */
async function collectStream(
	chunks: AsyncIterable<ChatCompletionChunk>,
	onText: ((delta: string) => void) | undefined,
	maxChars: number,
): Promise<ModelResponse> {
	let content = "";
	let finishReason: string | undefined;
	const calls = new Map<number, ModelToolCall>();
	let size = 0;
	for await (const chunk of chunks) {
		size += JSON.stringify(chunk).length;
		// An endless or huge answer (a broken or hostile server) ends the call instead of filling memory.
		if (size > maxChars) throw new Error(`the model's answer passed ${maxChars} characters`);
		const choice = chunk.choices[0];
		if (!choice) continue;
		const text = choice.delta.content;
		if (text) {
			content += text;
			onText?.(text);
		}
		for (const delta of choice.delta.tool_calls ?? []) {
			const call = calls.get(delta.index) ?? { id: "", name: "", arguments: "" };
			if (delta.id) call.id = delta.id;
			if (delta.function?.name) call.name += delta.function.name;
			if (delta.function?.arguments) call.arguments += delta.function.arguments;
			calls.set(delta.index, call);
		}
		if (choice.finish_reason) finishReason = choice.finish_reason;
	}
	const toolCalls = [...calls.entries()]
		.sort(([a], [b]) => a - b)
		.map(([index, call]) => ({
			...call,
			id: call.id || `call_${index}`,
		}));
	return { content, toolCalls, ...(finishReason ? { finishReason } : {}) };
}
