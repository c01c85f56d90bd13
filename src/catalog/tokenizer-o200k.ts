import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BpeRanks, createBpeCounter } from "./bpe.ts";
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
 * Parses a tiktoken ranks file (`<base64 bytes> <rank>` per line) into a map from latin1 byte strings to ranks.
 * Throws on a malformed line: a partial vocabulary would give wrong counts silently.
 */
export function parseTiktokenRanks(text: string): BpeRanks {
	const ranks = new Map<string, number>();
	for (const line of text.split("\n")) {
		if (line === "") continue;
		const space = line.indexOf(" ");
		const rank = Number(line.slice(space + 1));
		if (space <= 0 || !Number.isInteger(rank)) throw new Error(`malformed tiktoken ranks line: ${line.slice(0, 40)}`);
		ranks.set(Buffer.from(line.slice(0, space), "base64").toString("latin1"), rank);
	}
	return ranks;
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
const counter = createBpeCounter(O200K_PATTERN, parseTiktokenRanks(readFileSync(locateData(), "utf8")));

/**
 * Exact o200k_base token counts (the encoding of GPT-4o, GPT-4.1, o-series and GPT-5 models) for all real text;
 * runs of over 256 bytes without a break are counted in 256-byte chunks, which keeps counting linear. Special-token
 * text such as `<|endoftext|>` counts as ordinary text.
 */
export const o200kTokenizer: Tokenizer = {
	name: "o200k_base",
	count: (text) => counter.count(text),
};
