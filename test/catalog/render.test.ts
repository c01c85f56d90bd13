import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type CatalogEntry, catalogEntries, discover, escapeXml, renderCatalog } from "skillset";
import { describe, expect, it } from "vitest";
import { SHARED_DIR, tempDir, writeTree } from "../helpers/temp.ts";

interface PromptCase {
	id: string;
	dir_name: string | null;
	skill_md: string | null;
	source_test: string;
	prompt_assertions?: {
		equals?: string;
		contains?: string[];
		not_contains?: string[];
		count?: Record<string, number>;
	};
}

const cases: PromptCase[] = JSON.parse(readFileSync(join(SHARED_DIR, "conformance", "skills-ref-cases.json"), "utf8"));
const promptCases = cases.filter((c) => c.prompt_assertions);
const byTest = new Map<string, PromptCase[]>();
for (const c of promptCases) byTest.set(c.source_test, [...(byTest.get(c.source_test) ?? []), c]);

describe("xml catalog parity with skills-ref to-prompt", () => {
	it("renders no skills exactly as the reference does", () => {
		const empty = promptCases.find((c) => c.dir_name === null);
		expect(renderCatalog([], { format: "xml" })).toBe(empty?.prompt_assertions?.equals);
	});

	it.each([...byTest.entries()].filter(([, group]) => group.some((c) => c.dir_name !== null)))(
		"%s",
		async (_test, group) => {
			const root = join(await tempDir(), "skills");
			for (const c of group) await writeTree(join(root, c.dir_name ?? ""), { "SKILL.md": c.skill_md ?? "" });
			const { index } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [root] });
			const text = renderCatalog(catalogEntries(index), { format: "xml" });
			for (const c of group) {
				const assertions = c.prompt_assertions ?? {};
				for (const needle of assertions.contains ?? []) expect(text).toContain(needle);
				for (const needle of assertions.not_contains ?? []) expect(text).not.toContain(needle);
				for (const [needle, count] of Object.entries(assertions.count ?? {})) {
					expect(text.split(needle).length - 1).toBe(count);
				}
			}
		},
	);

	it("is byte-identical to the reference layout: one line per tag and value, no trailing newline", () => {
		const entries: CatalogEntry[] = [
			{
				name: "pdf-processing",
				description: "Extract PDF text & fill forms. Use when handling PDFs.",
				location: "/abs/pdf/SKILL.md",
			},
		];
		expect(renderCatalog(entries, { format: "xml" })).toBe(
			[
				"<available_skills>",
				"<skill>",
				"<name>",
				"pdf-processing",
				"</name>",
				"<description>",
				"Extract PDF text &amp; fill forms. Use when handling PDFs.",
				"</description>",
				"<location>",
				"/abs/pdf/SKILL.md",
				"</location>",
				"</skill>",
				"</available_skills>",
			].join("\n"),
		);
	});

	it("escapes as Python html.escape with quotes", () => {
		expect(escapeXml(`a & b <c> "d" 'e'`)).toBe("a &amp; b &lt;c&gt; &quot;d&quot; &#x27;e&#x27;");
	});
});

describe("renderCatalog formats", () => {
	const entries: CatalogEntry[] = [
		{ name: "a", description: "First.", location: "/s/a/SKILL.md" },
		{ name: "b", description: "", location: "/s/b/SKILL.md" },
	];

	it("writes markdown as `- name: description` lines, with locations only on request", () => {
		expect(renderCatalog(entries)).toBe("- a: First.\n- b");
		expect(renderCatalog(entries, { location: true })).toBe(
			"- a: First. (file: /s/a/SKILL.md)\n- b (file: /s/b/SKILL.md)",
		);
	});

	it("writes json that parses, and says how many skills were left out", () => {
		expect(JSON.parse(renderCatalog(entries, { format: "json" }))).toEqual({ skills: entries });
		const cut = JSON.parse(renderCatalog(entries.slice(0, 1), { format: "json", location: false }, { omitted: 3 }));
		expect(cut).toEqual({
			skills: [{ name: "a", description: "First." }],
			omitted: 3,
			note: "3 more skills are not listed: use search_skills to find them.",
		});
	});

	it("lists skills without room for a description on one line of names, quoting a name that is not plain", () => {
		const named = ["b", "odd name, with comma", "c@user"];
		expect(renderCatalog(entries.slice(0, 1), {}, { named, omitted: 2 })).toBe(
			[
				"- a: First.",
				'- Also available — load by name or search_skills: b, "odd name, with comma", c@user',
				"- 2 more skills are not listed: use search_skills to find them.",
			].join("\n"),
		);
		expect(renderCatalog([], {}, { named: ["b"] })).toBe("- Available — load by name or search_skills: b");
		const xml = renderCatalog(entries.slice(0, 1), { format: "xml" }, { named: ["b"] });
		expect(xml.split("\n").slice(-2)).toEqual([
			"</available_skills>",
			"Also available — load by name or search_skills: b",
		]);
		const json = JSON.parse(renderCatalog(entries.slice(0, 1), { format: "json", location: false }, { named: ["b"] }));
		expect(json).toEqual({
			skills: [{ name: "a", description: "First." }],
			also_available: ["b"],
			note: "also_available: load by name or search_skills.",
		});
	});

	it("ends with a line that says how many skills were left out", () => {
		expect(renderCatalog(entries.slice(0, 1), {}, { omitted: 1 })).toBe(
			"- a: First.\n- 1 more skill is not listed: use search_skills to find them.",
		);
		expect(renderCatalog([], { format: "xml" }, { omitted: 2 }).split("\n").at(-1)).toBe(
			"2 more skills are not listed: use search_skills to find them.",
		);
	});
});
