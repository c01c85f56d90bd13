import { Buffer, isUtf8 } from "node:buffer";
import type { Finding, Position } from "./diagnostics.ts";

/** A byte range of SKILL.md decoded to text, with CRLF read as LF. */
export interface DecodedText {
	text: string;
	findings: Finding[];
}

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Decodes `bytes[start, end)` as UTF-8. Invalid sequences become U+FFFD with an `encoding.invalid-utf8` finding at
 * the first bad byte; CRLF becomes LF with an `encoding.crlf` finding. `firstLine` is the line `start` is on.
 */
export function decodeRange(bytes: Uint8Array, start: number, end: number, firstLine: number): DecodedText {
	const slice = bytes.subarray(start, end);
	const findings: Finding[] = [];
	const valid = isUtf8(slice);
	if (!valid) {
		const bad = firstInvalidUtf8(slice);
		findings.push({
			code: "encoding.invalid-utf8",
			message: `Invalid UTF-8 at byte ${start + bad}`,
			at: bytePosition(slice, bad, firstLine),
		});
	}
	// Valid UTF-8 decodes the same either way; a Buffer's own decoder is the cheaper call for small inputs.
	let text = valid && Buffer.isBuffer(slice) ? slice.toString("utf8") : decoder.decode(slice);
	const crlf = text.indexOf("\r\n");
	if (crlf !== -1) {
		findings.push({
			code: "encoding.crlf",
			message: "CRLF line endings were read as LF",
			at: { line: firstLine + countLines(text, crlf), column: 1 },
		});
		text = text.replaceAll("\r\n", "\n");
	}
	return { text, findings };
}

/** Index of the first NUL byte in `bytes[start, end)`, or -1. */
export function findNul(bytes: Uint8Array, start: number, end: number): number {
	// A Buffer searches with memchr: many times faster than Uint8Array#indexOf on a 4 KiB chunk.
	if (Buffer.isBuffer(bytes)) {
		const at = bytes.indexOf(0, start);
		return at === -1 || at >= end ? -1 : at;
	}
	const at = Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)).indexOf(0);
	return at === -1 ? -1 : start + at;
}

/** The 1-based line and code-point column of byte `offset` in `bytes`, whose first byte is on `firstLine`. */
function bytePosition(bytes: Uint8Array, offset: number, firstLine: number): Position {
	let line = firstLine;
	let lineStart = 0;
	for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) {
		line++;
		lineStart = i + 1;
	}
	const before = decoder.decode(bytes.subarray(lineStart, offset));
	return { line, column: [...before].length + 1 };
}

function countLines(text: string, end: number): number {
	let count = 0;
	for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) count++;
	return count;
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidUtf8(bytes: Uint8Array): number {
	let i = 0;
	while (i < bytes.length) {
		const length = sequenceLength(bytes, i);
		if (length === 0) return i;
		i += length;
	}
	return bytes.length;
}

/** Length of the well-formed sequence starting at `i`, or 0 when it is malformed. */
function sequenceLength(bytes: Uint8Array, i: number): number {
	const lead = bytes[i] ?? 0;
	if (lead < 0x80) return 1;
	// Second-byte ranges exclude overlong forms, surrogates and code points above U+10FFFF.
	let length: number;
	let low = 0x80;
	let high = 0xbf;
	if (lead >= 0xc2 && lead <= 0xdf) length = 2;
	else if (lead >= 0xe0 && lead <= 0xef) {
		length = 3;
		if (lead === 0xe0) low = 0xa0;
		if (lead === 0xed) high = 0x9f;
	} else if (lead >= 0xf0 && lead <= 0xf4) {
		length = 4;
		if (lead === 0xf0) low = 0x90;
		if (lead === 0xf4) high = 0x8f;
	} else return 0;
	for (let k = 1; k < length; k++) {
		const byte = bytes[i + k];
		if (byte === undefined) return 0;
		if (k === 1 ? byte < low || byte > high : byte < 0x80 || byte > 0xbf) return 0;
	}
	return length;
}
