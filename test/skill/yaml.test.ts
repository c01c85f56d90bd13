import { MAX_YAML_DEPTH, parseFrontmatterYaml, parseSkillMd } from "skillset";
import { describe, expect, it } from "vitest";

const codes = (yaml: string, profile: "strict" | "lenient" = "strict") =>
	parseFrontmatterYaml(yaml, { profile }).findings.map((f) => f.code);

describe("parseFrontmatterYaml", () => {
	it("types scalars with the core schema and keeps their source text", () => {
		const parsed = parseFrontmatterYaml("n: 1.0\nb: true\nz:\ns: 'quoted: yes'\nx: null\n");
		expect(parsed.data).toEqual({ n: 1, b: true, z: null, s: "quoted: yes", x: null });
		const texts = Object.fromEntries([...parsed.fields.values()].map((f) => [f.key, f.text]));
		expect(texts).toEqual({ n: "1.0", b: "true", z: "", s: "quoted: yes", x: "null" });
	});

	it("does not switch schema under a %YAML 1.1 directive: it rejects the directive", () => {
		expect(codes("%YAML 1.1\n---\na: yes\n")).toContain("yaml.directive");
	});

	it("rejects deep flow nesting before parsing, twice in one process without crashing", () => {
		const deep = `a: ${"[".repeat(5000)}`;
		for (let round = 0; round < 2; round++) {
			const parsed = parseFrontmatterYaml(deep);
			expect(parsed.data).toBeNull();
			expect(parsed.findings.map((f) => f.code)).toEqual(["yaml.too-deep"]);
		}
	});

	it("rejects deep block nesting after parsing", () => {
		const lines = Array.from({ length: MAX_YAML_DEPTH + 2 }, (_, depth) => `${"  ".repeat(depth)}k${depth}:`);
		expect(codes(`${lines.join("\n")} leaf\n`)).toEqual(["yaml.too-deep"]);
		const shallow = Array.from({ length: 10 }, (_, depth) => `${"  ".repeat(depth)}k${depth}:`);
		expect(codes(`${shallow.join("\n")} leaf\n`)).toEqual([]);
	});

	it("rejects anchors and aliases, so an alias bomb never expands", () => {
		const bomb = [
			"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
			...Array.from({ length: 8 }, (_, i) => {
				const prev = String.fromCharCode(97 + i);
				const next = String.fromCharCode(98 + i);
				return `${next}: &${next} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
			}),
		].join("\n");
		const started = performance.now();
		const parsed = parseFrontmatterYaml(bomb, { profile: "lenient" });
		expect(performance.now() - started).toBeLessThan(1000);
		expect(parsed.data).toBeNull();
		expect(new Set(parsed.findings.map((f) => f.code))).toEqual(new Set(["yaml.alias"]));
	});

	it("rejects duplicate keys at any depth", () => {
		expect(codes("a: 1\na: 2\n")).toEqual(["yaml.duplicate-key"]);
		expect(codes("m:\n  k: 1\n  k: 2\n")).toEqual(["yaml.duplicate-key"]);
	});

	it.each(["__proto__", "constructor", "prototype"])("rejects the key %s anywhere", (key) => {
		expect(codes(`${key}: {isAdmin: true}\n`, "lenient")).toEqual(["yaml.forbidden-key"]);
		expect(codes(`permissions:\n  ${key}:\n    isAdmin: true\n`)).toEqual(["yaml.forbidden-key"]);
		expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
	});

	it("rejects explicit and unknown tags, and never runs them", () => {
		expect(codes("a: !!str 5\n")).toEqual(["yaml.tag"]);
		expect(codes("a: !!js/function 'function () { return 1 }'\n")).toContain("yaml.tag");
		expect(codes("a: !custom x\n")).toContain("yaml.tag");
		expect(codes("a: !!binary aGVsbG8=\n")).toContain("yaml.tag");
	});

	it("rejects several documents", () => {
		expect(codes("a: 1\n...\nb: 2\n")).toEqual(["yaml.multiple-documents"]);
		expect(codes("a: 1\n--- \nb: 2\n")).toEqual(["yaml.multiple-documents"]);
	});

	it("bounds the key count, since duplicate detection is quadratic", () => {
		const many = Array.from({ length: 1500 }, (_, i) => `k${i}: v`).join("\n");
		expect(codes(many)).toEqual(["yaml.too-many-keys"]);
	});

	it("reports flow collections only under strict, as the reference validator rejects them", () => {
		expect(codes("tools: [a, b]\n")).toEqual(["yaml.flow-style"]);
		expect(codes("tools: [a, b]\n", "lenient")).toEqual([]);
		expect(parseFrontmatterYaml("tools: [a, b]\n", { profile: "lenient" }).data).toEqual({ tools: ["a", "b"] });
	});

	it("quotes values with ': ' under lenient and records each repaired line", () => {
		const yaml = "name: a\ndescription: Use when: the user asks\n  about PDFs: forms\nlicense: MIT\n";
		expect(codes(yaml)).toEqual(["yaml.invalid"]);
		const parsed = parseFrontmatterYaml(yaml, { profile: "lenient" });
		expect(parsed.data).toEqual({
			name: "a",
			description: "Use when: the user asks about PDFs: forms",
			license: "MIT",
		});
		expect(parsed.findings.map((f) => [f.code, f.at])).toEqual([["yaml.repaired", 8]]);
	});

	it("leaves YAML that the repair cannot fix as it was reported", () => {
		const parsed = parseFrontmatterYaml("a: [x\nb: y: z\n", { profile: "lenient" });
		expect(parsed.data).toBeNull();
		expect(parsed.findings.every((f) => f.code === "yaml.invalid")).toBe(true);
	});

	it("gives positions for nested fields", () => {
		const parsed = parseFrontmatterYaml("metadata:\n  a: 1\n  b: [x]\n");
		const metadata = parsed.fields.get("metadata");
		expect(metadata?.kind).toBe("mapping");
		expect(metadata?.children?.get("b")?.kind).toBe("sequence");
		expect(metadata?.children?.get("a")?.valueOffset).toBe("metadata:\n  a: ".length);
	});
});

describe("parseSkillMd with a hostile frontmatter", () => {
	it("keeps the line of a repaired value true to the file", () => {
		const source = "---\nname: a\ndescription: When: now\n---\nBody";
		const repaired = parseSkillMd(source, { profile: "lenient" }).diagnostics.find((d) => d.code === "yaml.repaired");
		expect([repaired?.line, repaired?.column, repaired?.severity]).toEqual([3, 1, "warning"]);
	});
});
