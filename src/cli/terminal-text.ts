// Text from a model, a server or a skill reaches the terminal only as characters a person can see: an escape
// sequence, a carriage return or a bidi control could move the cursor, redraw a permission prompt, set the
// clipboard (OSC 52) or the title, clear the screen, or reorder what is shown. Each such character is written as
// a visible escape instead (`\x1b`, `\r`, `\u{202e}`), so nothing is hidden and nothing acts.

/** Format and separator characters that hide or reorder text (bidi controls, zero-width, tag characters, …). */
const FORMAT = /^[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u;
/** Anything but printable ASCII, newline and tab (a plain character class: the cheapest search). */
const NOT_PLAIN = /[^\u0020-\u007e\n\t]/;
/** Any character {@link terminalSafe} may write otherwise: controls but newline and tab, DEL, C1, format characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const NEEDS_ESCAPE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** Joiners that emoji sequences need: kept in running text, made visible in exact text. */
const JOINERS = new Set(["\u200c", "\u200d"]);

/**
 * Running text (an answer, a message, tool output) made safe for a terminal: newlines and tabs stay, every other
 * control character (C0, DEL, C1, so every escape sequence) and every invisible format character is shown as a
 * visible escape. Ordinary text, emoji sequences included, is unchanged.
 */
export function terminalSafe(text: string): string {
	// Nearly all text has no character to escape: one native search spares the walk by code point (10k names and
	// URIs cost ~100 ms that way). Joiners are format characters too, so text with one takes the walk.
	if (!NOT_PLAIN.test(text) || !NEEDS_ESCAPE.test(text)) return text;
	let out = "";
	for (const char of text) {
		if (char === "\n" || char === "\t" || JOINERS.has(char)) out += char;
		else out += visible(char) ?? char;
	}
	return out;
}

/**
 * Text shown exactly, on one line, for a person to approve: every control and format character is escaped,
 * newlines and tabs included (`\n`, `\t`), and a backslash is doubled, so two different strings never look alike
 * and nothing can move the cursor.
 */
export function exactText(text: string): string {
	let out = "";
	for (const char of text) {
		if (char === "\\") out += "\\\\";
		else if (char === "\n") out += "\\n";
		else if (char === "\t") out += "\\t";
		else out += visible(char) ?? char;
	}
	return out;
}

/** The number of characters (code points) in `text`: what a prompt reports as its length. */
export function characterCount(text: string): number {
	let count = 0;
	for (const _ of text) count++;
	return count;
}

/**
 * A JSON document for a terminal: the same data, with DEL, C1 controls, bidi, zero-width and other format
 * characters written as `\u` escapes (`JSON.stringify` escapes only C0 controls).
 */
export function terminalJson(value: unknown, indent?: number): string {
	return escapeJsonText(JSON.stringify(value, null, indent));
}

function escapeJsonText(json: string): string {
	// Only DEL and units above ASCII can need an escape that JSON.stringify does not make. Nearly every report is
	// plain ASCII: its UTF-8 length equals its length (a native count) and it holds no DEL (a native search), which
	// costs a fraction of the Unicode-aware scan it spares.
	if (Buffer.byteLength(json, "utf8") === json.length && !json.includes("\u007f")) return json;
	return json.replace(/[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu, (char) =>
		Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
	);
}

/** About how many characters each piece of {@link terminalJsonChunks} holds. */
const JSON_CHUNK_CHARS = 64 * 1024;
/** Plain objects and arrays this shallow are written member by member; deeper values in one `JSON.stringify`. */
const SPLIT_DEPTH = 2;

/**
 * {@link terminalJson}'s text, indented, in pieces of about 64 KiB to write as they are made: a report of 10,000
 * skills is then never one string, nor the copies that escaping and writing it would make. The pieces join to
 * exactly `terminalJson(value, indent)`; they split only between JSON values, never inside a string.
 */
export function* terminalJsonChunks(value: unknown, indent: number): Generator<string> {
	// Appended, not collected and joined: the pieces are few and large, and a string made of them is flat only once.
	let pending = "";
	for (const piece of jsonPieces(value, " ".repeat(indent), "", 0)) {
		pending += piece;
		if (pending.length >= JSON_CHUNK_CHARS) {
			yield escapeJsonText(pending);
			pending = "";
		}
	}
	if (pending.length > 0) yield escapeJsonText(pending);
}

/** Members of an array whose members are written whole go to `JSON.stringify` this many at a time. */
const BATCH_MEMBERS = 128;

function* jsonPieces(value: unknown, step: string, at: string, depth: number): Generator<string> {
	const inner = at + step;
	if (depth < SPLIT_DEPTH && Array.isArray(value) && value.length > 0 && !hasToJson(value)) {
		if (depth + 1 >= SPLIT_DEPTH) {
			yield* batchedMembers(value, step, depth);
			return;
		}
		for (const [i, item] of value.entries()) {
			yield `${i === 0 ? "[" : ","}\n${inner}`;
			// As JSON.stringify: a member it cannot write is null in an array.
			if (omitted(item)) yield "null";
			else yield* jsonPieces(item, step, inner, depth + 1);
		}
		yield `\n${at}]`;
		return;
	}
	if (depth < SPLIT_DEPTH && isPlainObject(value)) {
		// As JSON.stringify: a member it cannot write is left out of an object.
		const keys = Object.keys(value).filter((key) => !omitted(value[key]));
		if (keys.length > 0) {
			for (const [i, key] of keys.entries()) {
				yield `${i === 0 ? "{" : ","}\n${inner}${JSON.stringify(key)}: `;
				yield* jsonPieces(value[key], step, inner, depth + 1);
			}
			yield `\n${at}}`;
			return;
		}
	}
	const text = JSON.stringify(value, null, step) ?? "null";
	// The only line breaks in JSON text are its own indentation (a string's are escaped).
	yield at === "" ? text : text.replaceAll("\n", `\n${at}`);
}

/**
 * The members of `array` (at `depth`), written whole, a batch per `JSON.stringify`: each batch is nested in `depth`
 * one-member arrays so that `JSON.stringify` indents it where it stands, and the wrapping is cut off again. The
 * text is the same as one `JSON.stringify` per member re-indented, without a string and a copy per member.
 */
function* batchedMembers(array: readonly unknown[], step: string, depth: number): Generator<string> {
	let head = 1;
	let tail = 0;
	for (let level = 0; level < depth; level++) {
		head += 1 + step.length * (level + 1) + 1;
		tail += 1 + step.length * level + 1;
	}
	// The batch's own closing line: a newline, its indentation and the bracket.
	tail += 1 + step.length * depth + 1;
	for (let start = 0; start < array.length; start += BATCH_MEMBERS) {
		let wrapped: unknown = array.slice(start, start + BATCH_MEMBERS);
		for (let level = 0; level < depth; level++) wrapped = [wrapped];
		const text = JSON.stringify(wrapped, null, step);
		yield `${start === 0 ? "[" : ","}${text.slice(head, text.length - tail)}`;
	}
	yield `\n${step.repeat(depth)}]`;
}

function omitted(value: unknown): boolean {
	return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function hasToJson(value: object): boolean {
	return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (value === null || typeof value !== "object" || hasToJson(value)) return false;
	const prototype = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
}

// The visible form of a character that must not reach the terminal as it is, or undefined for an ordinary one.
function visible(char: string): string | undefined {
	const code = char.codePointAt(0) ?? 0;
	if (code === 0x0d) return "\\r";
	if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
	if (code >= 0x80 && code <= 0x9f) return `\\u${code.toString(16).padStart(4, "0")}`;
	if (FORMAT.test(char)) return `\\u{${code.toString(16)}}`;
	return undefined;
}
