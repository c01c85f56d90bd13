import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateTree } from "../../bench/generate.ts";
// The differential tests compare the fast path with the full path directly, so they import the stage's modules.
import { decodeRange } from "../../src/skill/decode.ts";
import { locateFrontmatter } from "../../src/skill/fences.ts";
import { parseFrontmatterYaml, parseFrontmatterYamlFull } from "../../src/skill/yaml.ts";
import { parseFrontmatterFast } from "../../src/skill/yaml-fast.ts";
import { parseRepairedFast } from "../../src/skill/yaml-fast-repair.ts";
import { SHARED_DIR, tempDir } from "../helpers/temp.ts";

/**
 * Checks the fast paths against the full one in both profiles: the fast reader alone, and `parseFrontmatterYaml`
 * as callers see it (fast reader, then the fast colon repair under `lenient`). Returns whether a fast path answered.
 */
function agrees(text: string): boolean {
	const fast = parseFrontmatterFast(text);
	let answered = fast !== undefined;
	for (const profile of ["strict", "lenient"] as const) {
		const full = parseFrontmatterYamlFull(text, { profile });
		if (fast) expect(fast, JSON.stringify(text)).toStrictEqual(full);
		expect(parseFrontmatterYaml(text, { profile }), `${profile} ${JSON.stringify(text)}`).toStrictEqual(full);
	}
	if (!answered && parseRepairedFast(text)) answered = true;
	return answered;
}

/** The YAML text between the fences of a SKILL.md, decoded as discovery decodes it. */
function frontmatterOf(bytes: Uint8Array): string | undefined {
	const fences = locateFrontmatter(bytes, { complete: true });
	if (fences.kind !== "found") return undefined;
	return decodeRange(bytes, fences.yamlStart, fences.yamlEnd, fences.openLine + 1).text;
}

function skillFiles(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((path) => path.endsWith("SKILL.md"))
		.map((path) => join(dir, path));
}

const CORPUS = skillFiles(join(SHARED_DIR, "corpus")).map((file) => frontmatterOf(readFileSync(file)) ?? "");
const CONFORMANCE: string[] = (
	JSON.parse(readFileSync(join(SHARED_DIR, "conformance", "skills-ref-cases.json"), "utf8")) as {
		skill_md: string | null;
	}[]
).flatMap((c) => (c.skill_md ? [frontmatterOf(new TextEncoder().encode(c.skill_md)) ?? c.skill_md] : []));

// Characters that mean something to YAML, or to the fast path's refusals, mixed into generated text.
const TRICKY = [..."abcXYZ019 :#-'\"\\|>[]{},&*!%@`~.+eEoxn\t\r\u00a0\u0085\u2028\ufeffé😀ﬁ"];
const trickyText = fc.array(fc.constantFrom(...TRICKY), { maxLength: 24 }).map((chars) => chars.join(""));
const CORE_LOOKALIKES = [
	"true",
	"True",
	"TRUE",
	"tRUE",
	"false",
	"null",
	"Null",
	"~",
	"yes",
	"no",
	"on",
	"0",
	"-0",
	"+12",
	"007",
	"1.0",
	"1.",
	".5",
	"-1.50",
	"1.0.0",
	"0x1F",
	"0o17",
	"1e3",
	"1E-3",
	".inf",
	"-.Inf",
	".nan",
	"123456789012345678901",
	"1_000",
	"12:30",
	"2024-01-01",
];
const trickyScalar = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
	{ weight: 3, arbitrary: trickyText },
	{ weight: 2, arbitrary: fc.constantFrom(...CORE_LOOKALIKES) },
	{ weight: 2, arbitrary: fc.lorem({ maxCount: 6 }) },
);
// Text as real descriptions have it: words, punctuation, quotes, colons not followed by a space, emoji.
const cleanScalar = fc.oneof(
	{ weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .,;()/'"!?&*|>%@`=+é-]{0,40}[A-Za-z0-9.)]$/) },
	{ weight: 1, arbitrary: fc.constantFrom("Bash(git log:*)", "C# and F#", "😀 emoji", "ﬁle ligature", "a:b", "x - y") },
	// Values the lenient colon repair quotes: `: ` inside, or a trailing colon.
	{ weight: 2, arbitrary: fc.constantFrom("Use when: the user asks", "Note: x: y", "ends with:", "a: b # c", "x:  y") },
	{ weight: 2, arbitrary: fc.constantFrom(...CORE_LOOKALIKES) },
	{ weight: 2, arbitrary: fc.lorem({ maxCount: 8 }) },
);

const keyArb = (tricky: boolean) =>
	tricky
		? fc.oneof(
				{ weight: 6, arbitrary: fc.stringMatching(/^[a-z_][a-z0-9_-]{0,10}$/) },
				{ weight: 1, arbitrary: fc.constantFrom("name", "__proto__", "constructor", "null", "True", "a b", "1", "-x") },
			)
		: fc.stringMatching(/^[a-z_][a-z0-9_-]{0,10}$/);

/** Frontmatter of the shape the fast path is for; `tricky` mixes in characters and forms it must decline. */
function frontmatterArb(tricky: boolean): fc.Arbitrary<string> {
	const scalarText = tricky ? trickyScalar : cleanScalar;
	const key = keyArb(tricky);
	const spaces = tricky ? fc.constantFrom("", "", "", " ", "  ", "\t") : fc.constantFrom("", "", "", " ", "  ");
	// One scalar written plain, double-quoted (JSON escapes), or single-quoted, with optional trailing spaces.
	const inlineScalar = fc
		.tuple(scalarText, fc.constantFrom("plain", "plain", "double", "single"), spaces)
		.map(([text, style, trailing]) => {
			if (style === "double") return `${JSON.stringify(text)}${trailing}`;
			if (style === "single") return `'${text.replaceAll("'", "''")}'${trailing}`;
			return `${text}${trailing}`;
		});
	const indent = fc.constantFrom(" ", "  ", "  ", "    ");
	const blockLine = fc.oneof(
		scalarText,
		fc.constant(""),
		fc.constant("   "),
		scalarText.map((t) => `  ${t}`),
	);
	const headers = tricky ? ["|", ">", "|-", ">-", "|+", ">+", "|2", "> #c"] : ["|", ">", "|-", ">-", "|+", ">+"];
	const folded = fc
		.tuple(inlineScalar, fc.array(fc.tuple(fc.boolean(), indent, scalarText), { maxLength: 3 }))
		.map(([first, more]) => ` ${first}${more.map(([gap, pad, text]) => `\n${gap ? "\n" : ""}${pad}${text}`).join("")}`);
	const block = fc
		.tuple(fc.constantFrom(...headers), spaces, indent, scalarText, fc.array(blockLine, { maxLength: 5 }))
		.map(
			([header, trailing, pad, first, lines]) =>
				` ${header}${trailing}\n${[first, ...lines].map((l) => (l === "" ? "" : `${pad}${l}`)).join("\n")}`,
		);
	const list = fc
		.tuple(fc.constantFrom("", "  ", "    "), fc.array(inlineScalar, { minLength: 1, maxLength: 4 }))
		.map(([pad, items]) => `\n${items.map((item) => `${pad}- ${item}`).join("\n")}`);
	const map = fc
		.tuple(indent, fc.uniqueArray(fc.tuple(key, inlineScalar), { minLength: 1, maxLength: 4, selector: ([k]) => k }))
		.map(([pad, entries]) => `\n${entries.map(([k, v]) => `${pad}${k}: ${v}`).join("\n")}`);
	const value = fc.oneof(
		{ weight: 5, arbitrary: inlineScalar.map((v) => ` ${v}`) },
		{ weight: 1, arbitrary: spaces },
		{ weight: 2, arbitrary: folded },
		{ weight: 2, arbitrary: block },
		{ weight: 2, arbitrary: list },
		{ weight: 2, arbitrary: map },
	);
	const gaps = tricky ? ["", "", "", "\n", "\n  \n"] : ["", "", "", "\n", "\n\n"];
	return fc
		.uniqueArray(fc.tuple(key, value, fc.constantFrom(...gaps)), { minLength: 1, maxLength: 7, selector: ([k]) => k })
		.map((entries) => entries.map(([k, v, gap]) => `${k}:${v}\n${gap}`).join(""));
}

/** Small edits of a text: insert tricky characters, delete, duplicate or re-indent a line. */
const mutation = fc.tuple(
	fc.constantFrom("insert", "delete", "duplicate", "indent", "dedent"),
	fc.nat(),
	fc.nat({ max: 6 }),
	trickyText,
);
function mutate(text: string, edits: [string, number, number, string][]): string {
	let out = text;
	for (const [kind, at, size, chars] of edits) {
		const pos = out.length === 0 ? 0 : at % out.length;
		const lineStart = out.lastIndexOf("\n", pos - 1) + 1;
		const lineEnd = out.indexOf("\n", pos) === -1 ? out.length : out.indexOf("\n", pos) + 1;
		if (kind === "insert") out = out.slice(0, pos) + chars + out.slice(pos);
		else if (kind === "delete") out = out.slice(0, pos) + out.slice(pos + size);
		else if (kind === "duplicate") out = out.slice(0, lineEnd) + out.slice(lineStart, lineEnd) + out.slice(lineEnd);
		else if (kind === "indent") out = `${out.slice(0, lineStart)}${" ".repeat(size)}${out.slice(lineStart)}`;
		else if (out.startsWith(" ", lineStart)) out = out.slice(0, lineStart) + out.slice(lineStart + 1);
	}
	return out;
}

// Thousands of full parses each: generous timeouts for a loaded machine.
describe("parseFrontmatterFast", { timeout: 120_000 }, () => {
	it("answers every real corpus and conformance frontmatter exactly as the full parser does", () => {
		const texts = [...CORPUS, ...CONFORMANCE];
		expect(CORPUS.length).toBeGreaterThan(15);
		const answered = texts.filter((text) => agrees(text));
		// The fast path is for real files: it must take nearly all of them, or it speeds up nothing.
		expect(answered.length / texts.length).toBeGreaterThan(0.8);
	});

	it.each([
		["common", false, 0.3],
		["near-miss", true, 0.05],
	] as const)("declines or agrees on generated %s frontmatter, and answers a share of it", (_, tricky, share) => {
		let answered = 0;
		let total = 0;
		fc.assert(
			fc.property(frontmatterArb(tricky), (text) => {
				total++;
				if (agrees(text)) answered++;
			}),
			{ numRuns: 2000 },
		);
		expect(answered / total).toBeGreaterThan(share);
	});

	it("declines or agrees on mutations of the real corpus", () => {
		const sources = [...CORPUS, ...CONFORMANCE].filter((text) => text.length > 0);
		fc.assert(
			fc.property(fc.constantFrom(...sources), fc.array(mutation, { minLength: 1, maxLength: 4 }), (text, edits) => {
				agrees(mutate(text, edits));
			}),
			{ numRuns: 2000 },
		);
	});

	it.each([
		["a duplicate key", "name: a\nname: b\n"],
		["a duplicate key in a map", "metadata:\n  k: 1\n  k: 2\n"],
		["a __proto__ key", "__proto__: x\n"],
		["a constructor key in a map", "metadata:\n  constructor: x\n"],
		["a value with ': ' (left to the colon repair)", "description: Use when: asked\n"],
		["a comment", "name: a # note\n"],
		["a comment line", "# note\nname: a\n"],
		["a flow sequence", "tools: [a, b]\n"],
		["an anchor and alias", "a: &x 1\nb: *x\n"],
		["a tag", "a: !!str 1\n"],
		["a directive", "%YAML 1.2\n---\na: 1\n"],
		["a second document", "a: 1\n---\nb: 2\n"],
		["a tab", "a:\tb\n"],
		["CR", "a: b\r\n"],
		["a BOM inside", "a: \ufeffb\n"],
		["a hex number", "a: 0x1F\n"],
		["an escape it does not know", 'a: "\\x41"\n'],
		["a block scalar with an indentation indicator", "a: |2\n   x\n"],
		["nothing but blank lines", "\n  \n"],
		["no final newline", "a: b"],
		["a `: ` inside a flow sequence", "tools: [a: b, c]\n"],
		["a `: ` inside a flow mapping", "metadata: {a: b: c}\n"],
		["a comment after a quoted value", 'description: "x" # note\n'],
		["a comment between list items", "tools:\n  - a\n  # note\n  - b\n"],
		["a `: ` on a folded continuation line", "description: one\n  two: three\n"],
		["a double-quoted scalar over two lines", 'description: "one\n  two"\n'],
		["an anchor on a map", "metadata: &m\n  a: b\n"],
		["a tag on a key", "!!str name: x\n"],
		["a duplicate key after a block scalar", "a: |\n  x\na: y\n"],
		["CRLF line ends", "name: a\r\ndescription: b\r\n"],
		["a leading BOM", "\ufeffname: a\n"],
		["a tab before a value", "name:\ta\n"],
		["a `- ` list item as a value", "name: - a\n"],
		["a lone hyphen as a value", "name: -\n"],
		["a hyphen starting a folded continuation line", "description: one\n  -two\n"],
		["257 keys", Array.from({ length: 257 }, (_, i) => `k${i}: v\n`).join("")],
		// The hostile rows of DESIGN.md "Bad input" that reach the YAML parser.
		["deep flow nesting", `name: x\nx: ${"[".repeat(3000)}\n`],
		["deep block nesting", `${Array.from({ length: 40 }, (_, d) => `${"  ".repeat(d)}k${d}:`).join("\n")} leaf\n`],
		["an alias bomb", "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"],
		["more keys than the fast path takes", Array.from({ length: 1001 }, (_, i) => `k${i}: v\n`).join("")],
		["a non-mapping document", "- a\n- b\n"],
		["a plain scalar document", "just text\n"],
		["a nested __proto__", "permissions:\n  __proto__:\n    isAdmin: true\n"],
	])("declines %s", (_, text) => {
		expect(parseFrontmatterFast(text)).toBeUndefined();
		expect(parseFrontmatterYaml(text)).toStrictEqual(parseFrontmatterYamlFull(text));
	});

	it.each([
		["colons inside double quotes", 'description: "Use when: the user asks: x"\n'],
		["colons inside single quotes", "description: 'Use when: it''s asked'\n"],
		["a `#` inside quotes", 'description: "C # and F #"\n'],
		["a `#` with no space before it", "description: C# and F#\n"],
		["a colon with no space after it", "allowed-tools: Read Bash(git log:*)\n"],
		["a plain value starting with a hyphen", "name: -my-skill\ndescription: x\n"],
		["a plain value starting with a hyphen in a map", "metadata:\n  version: -rc1\n"],
		["a negative number", "metadata:\n  n: -12\n"],
		["a list item starting with a hyphen", "tools:\n  - -x\n"],
		["three hyphens as a value", "name: ---\n"],
		["256 keys", Array.from({ length: 256 }, (_, i) => `k${i}: v\n`).join("")],
	])("answers %s exactly as the full parser does", (_, text) => {
		expect(parseFrontmatterFast(text)).toBeDefined();
		expect(agrees(text)).toBe(true);
	});

	it("answers every frontmatter the bench generator writes, as the full parser does", async () => {
		const tree = await generateTree(join(await tempDir(), "tree"), 400);
		let fenced = 0;
		for (const file of tree.files) {
			const text = frontmatterOf(readFileSync(file));
			if (text === undefined) continue;
			fenced++;
			expect(agrees(text), text).toBe(true);
		}
		expect(fenced).toBeGreaterThan(350);
	});

	it("repairs `key: value: more` like the lenient full path, and leaves key-like words in it to that path", () => {
		const text = "name: pdf\ndescription: Use when: the user asks\n";
		expect(parseRepairedFast(text)).toStrictEqual(parseFrontmatterYamlFull(text, { profile: "lenient" }));
		expect(parseRepairedFast(text)?.findings.map((f) => f.code)).toEqual(["yaml.repaired"]);
		// The full parser's error recovery reads `x` as a second key here and refuses to repair.
		const collision = "a: Note: x: y\nx:\n  k: v\n";
		expect(parseRepairedFast(collision)).toBeUndefined();
		expect(parseFrontmatterYaml(collision, { profile: "lenient" }).data).toBeNull();
	});

	it("reads the common shape: quoted and plain scalars, folded lines, block scalars, a list and a map", () => {
		const text = [
			"name: pdf-tools",
			'description: "Fills \\"PDF\\" forms"',
			"license: 'Apache-2.0'",
			"summary: one",
			"  two",
			"",
			"  three",
			"body: >-",
			"  folded",
			"  text",
			"allowed-tools:",
			"  - Read",
			"  - Bash(git log:*)",
			"metadata:",
			"  version: 1.0",
			"  author: me",
			"",
		].join("\n");
		expect(agrees(text)).toBe(true);
		const data = parseFrontmatterFast(text)?.data;
		expect(data?.summary).toBe("one two\nthree");
		expect(data?.metadata).toStrictEqual(Object.assign(Object.create(null), { version: 1, author: "me" }));
	});
});
