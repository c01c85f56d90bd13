import { parseSkillFrontmatter, parseSkillMd, validateSkillMd } from "skillset";
import { describe, expect, it } from "vitest";

const codes = (source: string | Uint8Array, profile: "strict" | "lenient" = "strict") =>
	parseSkillMd(source, { profile }).diagnostics.map((d) => d.code);

const MINIMAL = "---\nname: my-skill\ndescription: Does a thing.\n---\n# Body\n";

describe("parseSkillMd", () => {
	it("reads the frontmatter fields and the trimmed body", () => {
		const parsed = parseSkillMd(MINIMAL);
		expect(parsed.diagnostics).toEqual([]);
		expect(parsed.frontmatter?.data).toEqual({ name: "my-skill", description: "Does a thing." });
		expect(parsed.body).toBe("# Body");
	});

	it("returns null-prototype data so no key is inherited", () => {
		const data = parseSkillMd("---\nname: a\nmetadata:\n  k: v\n---\n").frontmatter?.data;
		expect(Object.getPrototypeOf(data)).toBeNull();
		expect(Object.getPrototypeOf(data?.metadata)).toBeNull();
		expect((data as Record<string, unknown>).toString).toBeUndefined();
	});

	it("ends the frontmatter only at a line that is exactly ---, so --- inside values stays", () => {
		const parsed = parseSkillMd("---\nname: a\ndescription: before---after --- x\n---\nBody\n");
		expect(parsed.frontmatter?.data.description).toBe("before---after --- x");
		expect(parsed.body).toBe("Body");
	});

	it("keeps a --- line inside a block scalar's indentation out of the fence rule", () => {
		const parsed = parseSkillMd("---\nname: a\ndescription: |\n  one\n  ---\n  two\n---\nBody");
		expect(parsed.frontmatter?.data.description).toBe("one\n---\ntwo\n");
	});

	it("allows trailing spaces on the fences and a closing fence at end of file", () => {
		const parsed = parseSkillMd("---  \nname: a\ndescription: d\n--- \t");
		expect(parsed.diagnostics).toEqual([]);
		expect(parsed.body).toBe("");
	});

	it("strips a BOM with a diagnostic and keeps columns as the editor shows them", () => {
		const parsed = parseSkillMd("\uFEFF---\nname: a\ndescription: d\n---\n");
		expect(parsed.frontmatter?.data.name).toBe("a");
		expect(parsed.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["encoding.bom", 1, 1]]);
	});

	it("reads CRLF files like LF files and says so once", () => {
		const parsed = parseSkillMd("---\r\nname: a\r\ndescription: two words\r\n---\r\nBody\r\nmore\r\n");
		expect(parsed.frontmatter?.data.description).toBe("two words");
		expect(parsed.body).toBe("Body\nmore");
		expect(parsed.diagnostics.map((d) => d.code)).toEqual(["encoding.crlf"]);
	});

	it.each([
		["an empty file", "", "file.empty"],
		["a whitespace-only file", " \n\n\t\n", "file.empty"],
		["no frontmatter", "# Title\n\ntext", "frontmatter.missing"],
		["an opening fence with text after it", "--- name: a\n---\n", "frontmatter.missing"],
		["an unclosed frontmatter", "---\nname: a\ndescription: d\n", "frontmatter.unclosed"],
		["only an opening fence", "---", "frontmatter.unclosed"],
		["an empty frontmatter", "---\n---\nBody", "frontmatter.not-mapping"],
		["a list as frontmatter", "---\n- a\n- b\n---\n", "frontmatter.not-mapping"],
		["a scalar as frontmatter", "---\njust text\n---\n", "frontmatter.not-mapping"],
	])("reports %s", (_name, source, code) => {
		expect(codes(source)).toContain(code);
		expect(parseSkillMd(source).frontmatter).toBeNull();
	});

	it("accepts blank lines before the opening fence only leniently", () => {
		const source = "\n\n---\nname: a\ndescription: d\n---\n";
		expect(parseSkillMd(source, { profile: "lenient" }).frontmatter?.data.name).toBe("a");
		const strict = parseSkillMd(source, { profile: "strict" }).diagnostics;
		expect(strict.map((d) => [d.code, d.severity])).toEqual([["frontmatter.leading-blank", "error"]]);
	});

	it("places YAML errors at their line and column in the file", () => {
		const parsed = parseSkillMd("---\nname: a\ndescription: d\nbad: x: y\n---\n");
		const error = parsed.diagnostics.find((d) => d.code === "yaml.invalid");
		expect([error?.line, error?.column]).toEqual([4, 6]);
	});

	it("counts columns in code points", () => {
		const result = validateSkillMd("---\n😀😀: x\nname: a\ndescription: d\n---\nb", { dirName: "a" });
		const unknown = result.diagnostics.find((d) => d.code === "field.unknown");
		expect(unknown?.line).toBe(2);
		const name = validateSkillMd("---\ndescription: d\nname: 😀_x\n---\nb", { dirName: "a" });
		expect(name.diagnostics.find((d) => d.code === "name.invalid-chars")?.column).toBe(7);
	});

	it("rejects a file over the size cap without parsing it", () => {
		const big = `${MINIMAL}${"x".repeat(300 * 1024)}`;
		expect(codes(big)).toEqual(["file.too-large"]);
		expect(codes(big.slice(0, 2000), "strict")).toEqual([]);
		expect(parseSkillMd(big, { maxFileBytes: 1024 * 1024 }).frontmatter?.data.name).toBe("my-skill");
	});

	it("rejects frontmatter over the frontmatter cap", () => {
		const source = `---\nname: a\ndescription: ${"d".repeat(70 * 1024)}\n---\n`;
		expect(codes(source)).toEqual(["frontmatter.too-large"]);
		expect(parseSkillMd(source, { maxFrontmatterBytes: 100 * 1024 }).frontmatter).not.toBeNull();
	});

	it("reports invalid UTF-8 at the first bad byte and decodes the rest", () => {
		const bytes = new Uint8Array([...new TextEncoder().encode("---\nname: a\ndescription: caf"), 0xe9, 0x0a]);
		const withFence = new Uint8Array([...bytes, ...new TextEncoder().encode("---\nBody")]);
		const parsed = parseSkillMd(withFence, { profile: "lenient" });
		const bad = parsed.diagnostics.find((d) => d.code === "encoding.invalid-utf8");
		expect([bad?.severity, bad?.line, bad?.column]).toEqual(["warning", 3, 17]);
		expect(parsed.frontmatter?.data.description).toBe("caf\uFFFD");
		expect(parseSkillMd(withFence).diagnostics.find((d) => d.code === "encoding.invalid-utf8")?.severity).toBe("error");
	});

	it("treats NUL bytes as a binary file", () => {
		const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]);
		expect(codes(bytes)).toEqual(["file.binary"]);
		expect(codes(`${MINIMAL}\u0000`)).toEqual(["file.binary"]);
	});
});

describe("parseSkillFrontmatter", () => {
	const encode = (text: string) => new TextEncoder().encode(text);

	it("asks for more bytes until the closing fence is in view", () => {
		const source = encode(MINIMAL);
		expect(parseSkillFrontmatter(source.subarray(0, 10), { complete: false })).toEqual({ needMore: true });
		const cut = MINIMAL.indexOf("# Body");
		expect(parseSkillFrontmatter(source.subarray(0, cut - 2), { complete: false })).toEqual({ needMore: true });
		const parsed = parseSkillFrontmatter(source.subarray(0, cut), { complete: false });
		expect("needMore" in parsed).toBe(false);
		if ("needMore" in parsed) return;
		expect(parsed.frontmatter?.data.name).toBe("my-skill");
		expect(parsed.body).toBeUndefined();
		expect(parsed.bodyOffset).toBe(cut);
		expect(parsed.bodyLine).toBe(5);
	});

	it("answers at once when the prefix shows there is no frontmatter", () => {
		const parsed = parseSkillFrontmatter(encode("# Title\nmore"), { complete: false });
		expect("needMore" in parsed ? [] : parsed.diagnostics.map((d) => d.code)).toEqual(["frontmatter.missing"]);
	});

	it("gives the same frontmatter as a whole-file parse, with the body offset in bytes", () => {
		const source = encode("---\nname: café\ndescription: ünïcödé\n---\nBody ✓\n");
		const prefix = parseSkillFrontmatter(source, { complete: true });
		const whole = parseSkillMd(source);
		if ("needMore" in prefix) throw new Error("complete input never needs more");
		expect(prefix.frontmatter?.data).toEqual(whole.frontmatter?.data);
		expect(new TextDecoder().decode(source.subarray(prefix.bodyOffset))).toBe("Body ✓\n");
	});
});
