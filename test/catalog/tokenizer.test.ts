import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { loadDefaultTokenizer, type Tokenizer } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/temp.ts";

// The reference counts come from gpt-tokenizer, a dev dependency only: the published package carries just the
// o200k_base vocabulary and counts with its own merge.
let tokenizer: Tokenizer;
beforeAll(async () => {
	tokenizer = await loadDefaultTokenizer();
});

function textFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? textFiles(join(dir, entry.name))
			: /\.(md|txt|py|js|ts|sh|json|xml|html)$/i.test(entry.name)
				? [join(dir, entry.name)]
				: [],
	);
}

describe("the default o200k_base tokenizer", () => {
	it("counts every text file of the shared corpus exactly as the reference encoder does", () => {
		const files = textFiles(join(SHARED_DIR, "corpus"));
		expect(files.length).toBeGreaterThan(100);
		for (const file of files) {
			const text = readFileSync(file, "utf8");
			if (text.includes("<|")) continue; // the reference refuses special-token text; see below
			expect(tokenizer.count(text), file).toBe(countTokens(text));
		}
	});

	it("agrees with the reference on generated text of any script, with runs up to 240 bytes", () => {
		const word = fc.oneof(
			fc.string({ unit: "grapheme", maxLength: 12 }),
			fc.string({ unit: fc.constantFrom("a", "b", "x", "Q", "é", "中", "🙂", "1", "_"), maxLength: 60 }),
			fc.constantFrom(" ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "...", "://", "1234567"),
		);
		// Words are joined by a space so that no run passes the 256-byte chunk size, where counts may differ.
		const text = fc.array(word, { maxLength: 40 }).map((words) => words.join(" "));
		fc.assert(
			fc.property(text, (sample) => {
				fc.pre(!sample.includes("<|"));
				expect(tokenizer.count(sample)).toBe(countTokens(sample));
			}),
			{ numRuns: 400 },
		);
	});

	it("counts special-token text as ordinary text instead of throwing", () => {
		expect(() => countTokens("stop at <|endoftext|>")).toThrow();
		expect(tokenizer.count("stop at <|endoftext|>")).toBeGreaterThan(3);
	});

	it("counts a megabyte without a space in bounded chunks, close to the exact count", () => {
		const exactPer4k = countTokens("x".repeat(4096));
		expect(tokenizer.count("x".repeat(4096))).toBe(exactPer4k);
		expect(tokenizer.count("x".repeat(1 << 20))).toBe(exactPer4k * 256);
		const base64 = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 2654435761) % 251)).toString("base64");
		const exact = countTokens(base64);
		expect(Math.abs(tokenizer.count(base64) - exact)).toBeLessThanOrEqual(Math.ceil(base64.length / 256) + 1);
	});
});
