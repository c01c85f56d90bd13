import type { AgentJsonSchema } from "./json-schema.ts";

/** A tool call the model asked for: its id, the tool's name and the arguments as the model wrote them (JSON). */
export interface ModelToolCall {
	id: string;
	name: string;
	arguments: string;
}

/** One message of a conversation, in the shape every chat API shares. */
export type ChatMessage =
	| { role: "system"; content: string }
	| { role: "user"; content: string }
	| { role: "assistant"; content: string; toolCalls?: ModelToolCall[] }
	| { role: "tool"; toolCallId: string; content: string };

/** A tool as the model sees it: name, description and a JSON Schema for the arguments. */
export interface ModelTool {
	name: string;
	description: string;
	parameters: AgentJsonSchema;
}

/** One request: the whole conversation as the model should see it, and the tools it may call. */
export interface ModelRequest {
	messages: readonly ChatMessage[];
	tools: readonly ModelTool[];
}

/** The model's answer: its text and any tool calls. */
export interface ModelResponse {
	content: string;
	toolCalls: ModelToolCall[];
	finishReason?: string;
}

/** Per-call options: cancellation and streamed text. */
export interface ModelCallOptions {
	signal?: AbortSignal;
	/** Receives text as it streams in. */
	onText?: (delta: string) => void;
}

/**
 * A chat model. skillset ships an OpenAI-compatible client (`createOpenAIClient`); a host can plug any other
 * provider by implementing this one method. It throws on failure (after its own retries) and on cancellation.
 */
export interface ModelClient {
	/** One model call: the messages and tools in, the answer or tool calls out. Throws on failure or cancellation. */
	complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}
