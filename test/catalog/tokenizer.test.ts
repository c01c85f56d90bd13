// Issue 8 §1: token counting is linear and bounded, and exact counts for normal text do not change.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { countInBoundedRuns, loadDefaultTokenizer, MAX_TOKEN_RUN_CHARS, parseSkillMd } from "skillset";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/temp.ts";

function corpusSkills(): { file: string; description: string; body: string }[] {
	const root = join(SHARED_DIR, "corpus");
	const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((p) => p.endsWith("SKILL.md"));
	return files.map((file) => {
		const parsed = parseSkillMd(readFileSync(join(root, file)), { profile: "lenient", file });
		const description = parsed.frontmatter?.data.description;
		return { file, description: typeof description === "string" ? description : "", body: parsed.body ?? "" };
	});
}

describe("the default tokenizer (o200k_base)", () => {
	it("gives the exact counts of the plain BPE count for every description and body of the shared corpus", async () => {
		const tokenizer = await loadDefaultTokenizer();
		const skills = corpusSkills();
		expect(skills.length).toBeGreaterThan(10);
		for (const { description, body } of skills) {
			expect(description.length).toBeGreaterThan(0);
			expect(tokenizer.count(description)).toBe(countTokens(description));
			expect(tokenizer.count(body)).toBe(countTokens(body));
		}
	});

	// The plain count took 4.4 s for 64 KiB of `x` and a minute for 256 KiB; these finish well inside the timeout.
	it.each([
		["64 KiB of x", "x".repeat(64 * 1024), 8192],
		["256 KiB of x", "x".repeat(256 * 1024), 32_768],
		["1 MiB of x", "x".repeat(1024 * 1024), 131_072],
		["1 MiB of one symbol", "!".repeat(1024 * 1024), undefined],
		["1 MiB of spaces", " ".repeat(1024 * 1024), undefined],
		["256 Ki CJK characters", "漢".repeat(256 * 1024), undefined],
		["128 Ki emoji", "😀".repeat(128 * 1024), undefined],
	])("counts %s without a quadratic blow-up", async (_what, text, exact) => {
		const tokenizer = await loadDefaultTokenizer();
		const count = tokenizer.count(text);
		if (exact !== undefined) expect(count).toBe(exact);
		expect(count).toBeGreaterThan(0);
		expect(count).toBeLessThanOrEqual(text.length);
	});
});

describe("countInBoundedRuns", () => {
	it("counts text without long runs in one call, and long runs in parts of at most the bound", () => {
		const calls: string[] = [];
		const record = (text: string) => {
			calls.push(text);
			return 1;
		};
		expect(countInBoundedRuns("short words only", record)).toBe(1);
		const long = `intro ${"y".repeat(MAX_TOKEN_RUN_CHARS * 2 + 5)} outro`;
		calls.length = 0;
		expect(countInBoundedRuns(long, record)).toBe(5);
		expect(calls).toEqual([
			"intro ",
			"y".repeat(MAX_TOKEN_RUN_CHARS),
			"y".repeat(MAX_TOKEN_RUN_CHARS),
			"yyyyy",
			" outro",
		]);
	});

	it("hands the tokenizer no run longer than the bound, whatever the characters (property)", () => {
		const longRun = /[\p{L}\p{M}]{9,}|[^\s\p{L}\p{M}\p{N}]{9,}|\s{9,}/u;
		// Runs of one class, each mixing ASCII and other characters, next to each other in any order.
		const classes = [
			["a", "Z", "é", "漢", "\u0301"],
			["!", "-", "😀", "€"],
			[" ", "\n", "\u3000", "\u00a0"],
			["1", "١"],
		];
		const run = fc.oneof(
			...classes.map((chars) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 12 })),
		);
		fc.assert(
			fc.property(fc.array(run, { maxLength: 20 }), (runs) => {
				const text = runs.flat().join("");
				const parts: string[] = [];
				countInBoundedRuns(text, (part) => parts.push(part), 8);
				expect(parts.join("")).toBe(text);
				for (const part of parts) expect(longRun.test(part)).toBe(false);
			}),
			{ numRuns: 2000 },
		);
	});

	it("never splits a surrogate pair", () => {
		const parts: string[] = [];
		countInBoundedRuns(`a${"😀".repeat(300)}`, (text) => parts.push(text), 255);
		expect(parts.join("")).toBe(`a${"😀".repeat(300)}`);
		for (const part of parts) expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(part)).toBe(false);
	});
});
