import { randomBytes } from "node:crypto";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { DEFERRED_BYTES } from "./deferred.ts";

/** A message around its one large string: the JSON line before it (opening quote included), the string, the rest. */
export interface SplitMessage {
	before: string;
	value: string;
	after: string;
}

/**
 * A `resources/read` answer whose content (text or base64 blob) is over {@link DEFERRED_BYTES}, split around that
 * string, so the line can be written in slices (`JSON.stringify` of 8 MiB at once holds the event loop for tens of
 * milliseconds); undefined for any other message. The parts joined are `JSON.stringify(message)` and a newline.
 */
export function splitLarge(message: JSONRPCMessage): SplitMessage | undefined {
	if (!("result" in message) || typeof message.result !== "object" || message.result === null) return undefined;
	const contents = (message.result as { contents?: unknown }).contents;
	if (!Array.isArray(contents)) return undefined;
	const index = contents.findIndex((content) => largeField(content) !== undefined);
	if (index < 0) return undefined;
	const content = contents[index] as Record<string, unknown>;
	const field = largeField(content) as "text" | "blob";
	const marker = `skillset-deferred-${randomBytes(24).toString("hex")}`;
	const replaced = contents.map((each, i) => (i === index ? { ...content, [field]: marker } : each));
	const json = JSON.stringify({ ...message, result: { ...message.result, contents: replaced } });
	const at = json.indexOf(`"${marker}"`);
	return {
		before: json.slice(0, at + 1),
		value: content[field] as string,
		after: `${json.slice(at + marker.length + 1)}\n`,
	};
}

function largeField(content: unknown): "text" | "blob" | undefined {
	if (typeof content !== "object" || content === null) return undefined;
	const { text, blob } = content as { text?: unknown; blob?: unknown };
	if (typeof text === "string" && text.length > DEFERRED_BYTES) return "text";
	if (typeof blob === "string" && blob.length > DEFERRED_BYTES) return "blob";
	return undefined;
}

/** Characters per slice of a large string. */
const SLICE_CHARS = 64 * 1024;

/**
 * `JSON.stringify(value)` without its quotes, in slices whose concatenation is exactly that: a slice never ends
 * between the two halves of a surrogate pair (escaped alone, each half would become `\ud83d`).
 */
export function* stringSlices(value: string): Generator<string> {
	for (let start = 0; start < value.length; ) {
		let end = Math.min(start + SLICE_CHARS, value.length);
		const last = value.charCodeAt(end - 1);
		if (end < value.length && last >= 0xd800 && last <= 0xdbff) end--;
		yield JSON.stringify(value.slice(start, end)).slice(1, -1);
		start = end;
	}
}
