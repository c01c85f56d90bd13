import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BpeRanks, createBpeCounter } from "./bpe.ts";

export type { BpeRanks } from "./bpe.ts";

import type { Tokenizer } from "./tokenizer.ts";

/** The vocabulary file shipped beside the built module (`npm run build` copies it from the dev dependency). */
export const O200K_DATA_FILE = "o200k_base.tiktoken";

// o200k_base's pre-tokeniser (tiktoken's published pattern). JavaScript has no inline `(?i:…)`, so the
// contractions spell out both cases.
const CONTRACTION = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?";
const O200K_PATTERN = new RegExp(
	[
		`[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+${CONTRACTION}`,
		`[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*${CONTRACTION}`,
		"\\p{N}{1,3}",
		" ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
		"\\s*[\\r\\n]+",
		"\\s+(?!\\S)",
		"\\s+",
	].join("|"),
	"gu",
);

/**
 * Parses a tiktoken ranks file (`<base64 bytes> <rank>` per line) into a map from latin1 byte strings to ranks. It
 * decodes straight from the file's bytes into one scratch buffer, so loading makes no garbage per line (a 200k-line
 * vocabulary read through strings and a Buffer per line left ~90 MiB of resident memory behind). Throws on a
 * malformed line: a partial vocabulary would give wrong counts silently.
 */
export function parseTiktokenRanks(file: Uint8Array): BpeRanks {
	const ranks = new Map<string, number>();
	const scratch = Buffer.alloc(256);
	let line = 0;
	for (let at = 0; at < file.length; line++) {
		let end = file.indexOf(0x0a, at);
		if (end < 0) end = file.length;
		if (end > at) {
			const space = file.indexOf(0x20, at);
			if (space <= at || space >= end) throw new Error(`malformed tiktoken ranks line ${line + 1}`);
			const size = decodeBase64(file, at, space, scratch);
			const rank = decimal(file, space + 1, end);
			if (size < 0 || rank < 0) throw new Error(`malformed tiktoken ranks line ${line + 1}`);
			ranks.set(scratch.toString("latin1", 0, size), rank);
		}
		at = end + 1;
	}
	return ranks;
}

const BASE64 = new Int16Array(256).fill(-1);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries()) {
	BASE64[c.charCodeAt(0)] = i;
}

/** Decodes base64 `bytes[from, to)` into `out`; the decoded length, or -1 for a bad character or an overflow. */
function decodeBase64(bytes: Uint8Array, from: number, to: number, out: Uint8Array): number {
	let bits = 0;
	let held = 0;
	let size = 0;
	for (let i = from; i < to; i++) {
		const code = bytes[i] as number;
		if (code === 0x3d) break;
		const value = BASE64[code] as number;
		if (value < 0) return -1;
		bits = (bits << 6) | value;
		held += 6;
		if (held >= 8) {
			held -= 8;
			if (size >= out.length) return -1;
			out[size++] = (bits >> held) & 0xff;
		}
	}
	return size;
}

function decimal(bytes: Uint8Array, from: number, to: number): number {
	let value = 0;
	for (let i = from; i < to; i++) {
		const digit = (bytes[i] as number) - 0x30;
		if (digit < 0 || digit > 9 || i - from > 9) return -1;
		value = value * 10 + digit;
	}
	return to > from ? value : -1;
}

/** Where the vocabulary is: beside this module when built, else in the `gpt-tokenizer` dev dependency. */
function locateData(): string {
	const beside = join(dirname(fileURLToPath(import.meta.url)), O200K_DATA_FILE);
	if (existsSync(beside)) return beside;
	const entry = createRequire(import.meta.url).resolve("gpt-tokenizer");
	return join(dirname(entry), "..", "data", O200K_DATA_FILE);
}

// Read when this module is first imported (it is imported lazily), so a missing vocabulary fails the import and
// `loadDefaultTokenizer` falls back to the stated estimate instead of failing later mid-count.
const counter = createBpeCounter(O200K_PATTERN, parseTiktokenRanks(readFileSync(locateData())));

/**
 * Exact o200k_base token counts (the encoding of GPT-4o, GPT-4.1, o-series and GPT-5 models) for all real text;
 * runs of over 256 bytes without a break are counted in 256-byte chunks, which keeps counting linear. Special-token
 * text such as `<|endoftext|>` counts as ordinary text.
 */
export const o200kTokenizer: Tokenizer = {
	name: "o200k_base",
	count: (text) => counter.count(text),
};
