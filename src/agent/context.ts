import type { Tokenizer } from "../catalog/index.ts";
import type { ChatMessage } from "./model.ts";

/** Ordinary tool results longer than this (characters) keep their head and tail. */
export const DEFAULT_RESULT_LIMIT_CHARS = 4_000;
/** Ordinary tool results older than this many user turns become a one-line placeholder. */
export const DEFAULT_KEEP_TURNS = 3;

/** One message of the conversation with what the context policy needs to know about it. */
export interface Entry {
	message: ChatMessage;
	/** The user turn it belongs to (1-based; 0 for a compaction summary). */
	turn: number;
	/** For tool results: which tool, with which arguments, and whether it is protected skill content. */
	tool?: { name: string; args: string; protected: boolean; skills?: string[] };
	/** Token counts, computed once. */
	tokens?: { full?: number; placeholder?: number };
}

/**
 * Keeps the head and tail of an ordinary result over `limit` characters, with a marker in the middle that says how
 * much was cut and how to get the rest.
 */
export function clipResult(content: string, limit: number = DEFAULT_RESULT_LIMIT_CHARS): string {
	if (content.length <= limit) return content;
	const head = Math.floor(limit * 0.6);
	const tail = limit - head;
	const cut = content.length - head - tail;
	const marker = `\n[... ${cut} of ${content.length} characters cut here. To see the rest, read it in parts (read_file with offset and limit) or narrow the command (grep, head, tail).]\n`;
	return `${content.slice(0, head)}${marker}${content.slice(content.length - tail)}`;
}

/** The one line an old ordinary result is replaced with: the tool and its arguments. */
export function placeholderFor(tool: { name: string; args: string }): string {
	const args = tool.args.length > 200 ? `${tool.args.slice(0, 200)}…` : tool.args;
	return `[Older result of ${tool.name}(${args}) removed to save context; call the tool again if you need it.]`;
}

/** Whether an entry is shown as its placeholder at `turn`: an ordinary tool result from before the last K turns. */
export function isStale(entry: Entry, turn: number, keepTurns: number): boolean {
	return entry.tool !== undefined && !entry.tool.protected && entry.turn <= turn - keepTurns;
}

/** The messages as the model sees them at `turn`: old ordinary results replaced, skill content always whole. */
export function viewMessages(entries: readonly Entry[], turn: number, keepTurns: number): ChatMessage[] {
	return entries.map((entry) => {
		if (!isStale(entry, turn, keepTurns) || entry.message.role !== "tool" || !entry.tool) return entry.message;
		return { ...entry.message, content: placeholderFor(entry.tool) };
	});
}

/** Tokens of the conversation as the model sees it at `turn`; counts are cached on the entries. */
export function countTokens(entries: readonly Entry[], turn: number, keepTurns: number, tokenizer: Tokenizer): number {
	let total = 0;
	for (const entry of entries) {
		const stale = isStale(entry, turn, keepTurns);
		entry.tokens ??= {};
		if (stale && entry.tool) {
			entry.tokens.placeholder ??= tokenizer.count(placeholderFor(entry.tool)) + 4;
			total += entry.tokens.placeholder;
		} else {
			entry.tokens.full ??= messageTokens(entry.message, tokenizer);
			total += entry.tokens.full;
		}
	}
	return total;
}

/** Tokens of one message: its text and tool calls, plus a few for the framing every chat format adds. */
export function messageTokens(message: ChatMessage, tokenizer: Tokenizer): number {
	let total = 4 + tokenizer.count(message.content);
	if (message.role === "assistant")
		for (const call of message.toolCalls ?? []) total += tokenizer.count(call.name) + tokenizer.count(call.arguments);
	return total;
}

/** A plain-text transcript of entries for the model to summarise; skill content is named, not repeated. */
export function renderTranscript(entries: readonly Entry[]): string {
	return entries
		.map((entry) => {
			const message = entry.message;
			if (message.role === "tool") {
				if (entry.tool?.protected) {
					const what = entry.tool.skills?.length ? `for ${entry.tool.skills.join(", ")}` : `(${entry.tool.args})`;
					return `[tool ${entry.tool.name}: skill content ${what}, not repeated here]`;
				}
				return `[tool ${entry.tool?.name ?? "result"}]\n${clipResult(message.content, 1_500)}`;
			}
			if (message.role === "assistant") {
				const calls = (message.toolCalls ?? []).map((call) => `[calls ${call.name}(${call.arguments})]`);
				return [`assistant: ${message.content}`, ...calls].join("\n");
			}
			return `${message.role}: ${message.content}`;
		})
		.join("\n\n");
}
