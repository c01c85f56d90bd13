import { randomBytes } from "node:crypto";
import type { ServerContext } from "@modelcontextprotocol/server";

/**
 * Contents over this many bytes, read for an HTTP request, are not handed to the SDK: it would serialize the whole
 * result in one `JSON.stringify` (tens of milliseconds for 8 MiB, during which no other request is served). The
 * SDK gets a placeholder instead, and the HTTP layer writes the content in its place, a slice at a time.
 */
export const DEFERRED_BYTES: number = 256 * 1024;

/** A file's bytes, as a `resources/read` answer carries them: JSON text (decoded as said) or base64. */
export interface FileBytes {
	bytes: Uint8Array;
	mimeType: string;
	/** How the bytes become the answer: `text` decoded as Latin-1 (ASCII only) or UTF-8, or a base64 `blob`. */
	encoding: "latin1" | "utf8" | "base64";
	/**
	 * Gives the bytes' buffer back to its pool: called by the writer of a deferred answer once the last byte is handed
	 * to the system or the answer is given up, never earlier. Absent for bytes of their own.
	 */
	release?: () => void;
}

/** A content the HTTP layer writes itself: the JSON string in the SDK's answer that stands for it, and its bytes. */
export interface DeferredContent {
	/** The placeholder as it appears in the SDK's JSON body, quotes included. */
	needle: string;
	file: FileBytes;
}

/**
 * The contents deferred while one HTTP request is answered. Each placeholder is random (a client cannot name or
 * forge one); one the answer does not carry (the request failed after the read) is simply dropped with this object.
 */
export class Deferrals {
	readonly #items: DeferredContent[] = [];

	/** The contents deferred so far. */
	get items(): readonly DeferredContent[] {
		return this.#items;
	}

	/** Defers `file`; returns what the SDK answers in its place. */
	defer(file: FileBytes): { text: string; mimeType: string } | { bytes: Uint8Array; mimeType: string } {
		if (file.encoding === "base64") {
			// 48 bytes are 64 base64 characters without padding: the SDK's own encoding of them is the needle.
			const marker = randomBytes(48);
			this.#items.push({ needle: `"${marker.toString("base64")}"`, file });
			return { bytes: marker, mimeType: file.mimeType };
		}
		const marker = `skillset-deferred-${randomBytes(24).toString("hex")}`;
		this.#items.push({ needle: `"${marker}"`, file });
		return { text: marker, mimeType: file.mimeType };
	}
}

// Keyed by the Fetch request the HTTP layer made (the SDK hands it to the handler as `ctx.http.req`); an entry goes
// with its request, so nothing here outlives one answer.
const byRequest = new WeakMap<Request, Deferrals>();

/** Lets large contents read for `request` be deferred; the HTTP layer then writes them into the answer. */
export function deferralsFor(request: Request): Deferrals {
	const deferrals = new Deferrals();
	byRequest.set(request, deferrals);
	return deferrals;
}

/** `file` as the SDK should answer it: the content itself, or a placeholder when the HTTP layer will write it. */
export function answerFor(
	file: FileBytes,
	ctx: ServerContext | undefined,
): { text: string; mimeType: string } | { bytes: Uint8Array; mimeType: string } {
	const request = ctx?.http?.req;
	const deferrals = request ? byRequest.get(request) : undefined;
	if (deferrals && file.bytes.length > DEFERRED_BYTES) return deferrals.defer(file);
	if (file.encoding === "base64") return { bytes: file.bytes, mimeType: file.mimeType };
	const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
	return { text: bytes.toString(file.encoding), mimeType: file.mimeType };
}

/** Bytes per slice of a deferred content: a multiple of 3, so base64 slices join without padding in between. */
const SLICE_BYTES = 3 * 16 * 1024;

/**
 * What `JSON.stringify` writes for each ASCII byte it escapes (quote, backslash, control characters), taken from
 * `JSON.stringify` itself. It escapes nothing else in well-formed text: every other byte of UTF-8 text, multi-byte
 * sequences included (their bytes are all over 0x7f), stands for itself.
 */
const ESCAPES: readonly (Buffer | undefined)[] = Array.from({ length: 256 }, (_, byte) => {
	if (byte > 0x7f) return undefined;
	const escaped = JSON.stringify(String.fromCharCode(byte)).slice(1, -1);
	return escaped.length === 1 ? undefined : Buffer.from(escaped, "latin1");
});

/**
 * The JSON string of a content, quotes excluded, as UTF-8 bytes in slices whose concatenation is exactly what
 * `JSON.stringify` gives for the whole, UTF-8 encoded: text is escaped byte by byte (never decoded), base64 is cut
 * at multiples of 3 bytes. An escaped slice is written into one buffer the generator reuses for the next slice: the
 * caller must be done with a slice (written out, not only queued) before it asks for the next. A copy per slice
 * doubled what a large read allocates, and with it the collector's pauses that every other request waits out.
 */
export function* jsonSlices(file: FileBytes): Generator<Uint8Array> {
	const { bytes } = file;
	const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const scratch = file.encoding === "base64" ? undefined : Buffer.allocUnsafe(SLICE_BYTES + MAX_ESCAPE_GROWTH);
	for (let start = 0; start < buffer.length; start += SLICE_BYTES) {
		const end = Math.min(start + SLICE_BYTES, buffer.length);
		yield scratch
			? escapeSlice(buffer, start, end, scratch)
			: Buffer.from(buffer.toString("base64", start, end), "latin1");
	}
}

/** The bytes JSON escapes. */
const SPECIAL: readonly number[] = ESCAPES.flatMap((sequence, byte) => (sequence ? [byte] : []));
/** More escapes than this in a slice (a file of tabs, say): `JSON.stringify` over the slice beats a search per escape. */
const SEARCH_LIMIT = 512;
/** The most an escaped slice grows on the searched path: each escape is at most 6 bytes for 1. */
const MAX_ESCAPE_GROWTH = 5 * SEARCH_LIMIT;

/**
 * `bytes[start, end)` with every byte JSON escapes replaced by its escape, written into `into`; the bytes themselves
 * when none is.
 */
function escapeSlice(bytes: Buffer, start: number, end: number, into: Buffer): Uint8Array {
	const slice = bytes.subarray(start, end);
	const at = escapesIn(slice);
	if (at === undefined) return escapeEvery(slice);
	if (at.length === 0) return slice;
	let run = 0;
	let length = 0;
	for (const i of at) {
		length += slice.copy(into, length, run, i);
		length += (ESCAPES[slice[i] ?? 0] as Buffer).copy(into, length);
		run = i + 1;
	}
	length += slice.copy(into, length, run);
	return into.subarray(0, length);
}

/**
 * Where `slice` has bytes to escape, in order. Most text has few (a newline per line): each is found by the native
 * byte search, which skips the rest much faster than a loop. Undefined past `SEARCH_LIMIT` (a file of tabs).
 */
function escapesIn(slice: Buffer): number[] | undefined {
	const found: number[] = [];
	for (const byte of SPECIAL) {
		for (let i = slice.indexOf(byte); i !== -1; i = slice.indexOf(byte, i + 1)) {
			found.push(i);
			if (found.length > SEARCH_LIMIT) return undefined;
		}
	}
	return found.sort((a, b) => a - b);
}

/**
 * A slice dense with bytes to escape, through `JSON.stringify` itself: read as Latin-1, every byte is one character
 * (bytes over 0x7f stay as they are, being no escape's business), so writing the result as Latin-1 gives the bytes
 * back with the escapes in place, whatever UTF-8 sequence a slice boundary cut.
 */
function escapeEvery(slice: Buffer): Uint8Array {
	return Buffer.from(JSON.stringify(slice.toString("latin1")).slice(1, -1), "latin1");
}
