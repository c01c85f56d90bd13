import { join } from "node:path";
import fc from "fast-check";
import {
	buildCatalog,
	buildSkillsSection,
	type CatalogEntry,
	type CatalogFormat,
	codePointLength,
	discover,
	ELLIPSIS,
	estimateTokenizer,
	loadDefaultTokenizer,
	renderCatalog,
	resolveBudget,
	SkillsetError,
	systemPromptSection,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { generateTree } from "../../bench/generate.ts";
import { tempDir } from "../helpers/temp.ts";

const WORDS =
	"extract convert review deploy summarise tables charts forms release notes when the user asks about".split(" ");

/** Deterministic entries in precedence order: varied description lengths, some long. */
function entries(count: number, seed = 1): CatalogEntry[] {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state;
	};
	return Array.from({ length: count }, (_, i) => {
		const words = 3 + (next() % 60);
		const description = Array.from({ length: words }, () => WORDS[next() % WORDS.length]).join(" ");
		return {
			name: `skill-${String(i).padStart(4, "0")}`,
			description: `${description}.`,
			location: `/skills/${i}/SKILL.md`,
		};
	});
}

let count: (text: string) => number;
beforeAll(async () => {
	const tokenizer = await loadDefaultTokenizer();
	expect(tokenizer.name).toBe("o200k_base");
	count = (text) => tokenizer.count(text);
});

describe("buildCatalog budgets", () => {
	it("lists everything unchanged when it fits, and counts tokens exactly", async () => {
		const list = entries(5);
		const catalog = await buildCatalog(list, { budget: { tokens: 10_000 } });
		expect(catalog.text).toBe(renderCatalog(list));
		expect(catalog.report).toMatchObject({ step: "fits", omitted: [], truncated: [], tokens: count(catalog.text) });
	});

	it("caps every description at 1,024 code points first", async () => {
		const long = { name: "long", description: `${"word ".repeat(400)}end`, location: "/l/SKILL.md" };
		const catalog = await buildCatalog([long]);
		const description = catalog.entries[0]?.description ?? "";
		expect(codePointLength(description)).toBeLessThanOrEqual(1024);
		expect(description.endsWith(`word${ELLIPSIS}`)).toBe(true);
		expect(catalog.report.truncated[0]?.name).toBe("long");
	});

	it("shares the room round-robin: every skill stays, short descriptions finish, long ones are cut at words", async () => {
		const list = [
			{ name: "short", description: "Tiny.", location: "/a" },
			...entries(6).map((e) => ({ ...e, description: `${e.description} ${"extra words here ".repeat(20)}` })),
		];
		const catalog = await buildCatalog(list, { budget: { tokens: 250 } });
		expect(catalog.report.step).toBe("shared");
		expect(catalog.report.kept).toHaveLength(list.length);
		expect(catalog.entries[0]?.description).toBe("Tiny.");
		for (const [i, entry] of catalog.entries.entries()) {
			const original = list[i]?.description ?? "";
			if (entry.description === original) continue;
			expect(entry.description.endsWith(ELLIPSIS)).toBe(true);
			const head = entry.description.slice(0, -1);
			expect(original.startsWith(head)).toBe(true);
			expect(original[head.length]).toMatch(/\s/);
		}
		// Round-robin by word: the cut descriptions differ by at most a couple of tokens.
		const costs = catalog.entries.slice(1).map((e) => count(e.description));
		expect(Math.max(...costs) - Math.min(...costs)).toBeLessThanOrEqual(3);
	});

	it("lists the skills whose descriptions do not fit by name, so every skill stays in the catalog", async () => {
		const list = entries(60);
		const catalog = await buildCatalog(list, { budget: { tokens: 700 } });
		const { kept, named, omitted, step } = catalog.report;
		expect(step).toBe("named");
		expect(omitted).toEqual([]);
		expect(kept.length).toBeGreaterThan(0);
		expect([...kept, ...named].sort()).toEqual(list.map((e) => e.name));
		const lines = catalog.text.split("\n");
		expect(lines).toHaveLength(kept.length + 1);
		expect(lines.at(-1)).toBe(`- Also available — load by name or search_skills: ${named.join(", ")}`);
		// Text order stays rank-then-name: the described entries, then the names, each in entry order.
		expect(kept).toEqual([...kept].sort());
		expect(named).toEqual([...named].sort());
		expect(catalog.report.tokens).toBeLessThanOrEqual(700);
	});

	it("leaves a skill out only when its name does not fit, the lowest precedence first, and says how many", async () => {
		const list = entries(200).map((e, i) => ({ ...e, rank: i < 100 ? 0 : 1 }));
		const catalog = await buildCatalog(list, { budget: { tokens: 400 } });
		const { kept, named, omitted } = catalog.report;
		expect(catalog.report.step).toBe("dropped");
		expect(kept).toEqual([]);
		expect(named.length).toBeGreaterThan(20);
		expect(named.length + omitted.length).toBe(200);
		// Every name of the higher rank goes before any name of the lower one.
		expect(named.length).toBeLessThan(100);
		for (const name of named) expect(Number(name.slice(-4))).toBeLessThan(100);
		const lines = catalog.text.split("\n");
		expect(lines).toEqual([
			`- Available — load by name or search_skills: ${named.join(", ")}`,
			`- ${omitted.length} more skills are not listed: use search_skills to find them.`,
		]);
		expect(catalog.report.tokens).toBeLessThanOrEqual(400);
	});

	it("turns a context window into 2% of it by default", async () => {
		expect(resolveBudget({ contextWindow: 200_000 })).toEqual({ unit: "tokens", limit: 4000 });
		expect(resolveBudget({ contextWindow: 200_000, fraction: 0.01 })).toEqual({ unit: "tokens", limit: 2000 });
		expect(resolveBudget({ contextWindow: 10 })).toEqual({ unit: "tokens", limit: 1 });
		expect(() => resolveBudget({ tokens: -1 })).toThrow(SkillsetError);
		expect(() => resolveBudget({ contextWindow: 1000, fraction: 2 })).toThrow(SkillsetError);
	});

	it("gives no text for no skills", async () => {
		const catalog = await buildCatalog([], { budget: { tokens: 100 } });
		expect([catalog.text, catalog.report.tokens, catalog.report.kept]).toEqual(["", 0, []]);
		expect(systemPromptSection(catalog)).toBe("");
	});

	it("always fits: the text's exact cost is within the budget, names before descriptions, nothing is lost unsaid", async () => {
		const pool = entries(120, 7);
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 1, max: 120 }),
				fc.integer({ min: 60, max: 3000 }),
				fc.constantFrom<CatalogFormat>("markdown", "xml", "json"),
				fc.constantFrom("tokens", "chars"),
				async (n, limit, format, unit) => {
					const list = pool.slice(0, n);
					const budget = unit === "tokens" ? { tokens: limit } : { chars: limit };
					const catalog = await buildCatalog(list, { format, budget });
					const cost = unit === "tokens" ? count(catalog.text) : codePointLength(catalog.text);
					const { kept, named, omitted } = catalog.report;
					expect(cost).toBeLessThanOrEqual(limit);
					expect([...kept, ...named, ...omitted].sort()).toEqual(list.map((e) => e.name));
					// Names go before descriptions: a skill is left out only when nothing is described.
					if (omitted.length > 0) expect(kept).toEqual([]);
					for (const name of named) expect(catalog.text).toContain(name);
					const listed = kept.length + named.length;
					if (listed > 0 && omitted.length > 0) expect(catalog.text).toContain(`${omitted.length} more skill`);
					if (listed === 0 && catalog.text !== "") expect(catalog.text).toMatch(new RegExp(`\\b${omitted.length}\\b`));
					expect(catalog.report.tokens).toBe(count(catalog.text));
				},
			),
			{ numRuns: 120 },
		);
	});

	it("uses a plugged-in tokenizer, such as the bytes/4 estimate", async () => {
		const catalog = await buildCatalog(entries(30), { tokenizer: estimateTokenizer, budget: { tokens: 300 } });
		expect(catalog.report.tokenizer).toBe("estimate-bytes/4");
		expect(estimateTokenizer.count(catalog.text)).toBeLessThanOrEqual(300);
	});
});

describe("systemPromptSection", () => {
	it("adds the tool-activation instruction, or the file-read one when locations are listed", async () => {
		const list = entries(2);
		const tool = systemPromptSection(await buildCatalog(list), { toolName: "activate_skill" });
		expect(tool).toContain("call the activate_skill tool with the skill's name");
		expect(tool).toContain(renderCatalog(list));
		const withPaths = await buildCatalog(list, { location: true });
		expect(systemPromptSection(withPaths, { activation: "file-read" })).toContain("read the SKILL.md at its location");
	});

	it("refuses file-read activation for a catalog without locations", async () => {
		const catalog = await buildCatalog(entries(2));
		expect(() => systemPromptSection(catalog, { activation: "file-read" })).toThrow(SkillsetError);
	});
});

describe("buildSkillsSection", () => {
	it("fits the whole section, instruction included, and returns the catalog in it", async () => {
		const list = entries(80);
		for (const tokens of [300, 1200]) {
			const { text, catalog } = await buildSkillsSection(list, { budget: { tokens } });
			expect(count(text)).toBeLessThanOrEqual(tokens);
			expect(text).toBe(systemPromptSection(catalog));
			expect(text).toContain("call the load_skill tool");
			expect(catalog.report.kept.length + catalog.report.named.length + catalog.report.omitted.length).toBe(80);
		}
	});

	it("fits a collection whose names alone overflow the budget (1,000 skills in the agent's 2% of 128k)", async () => {
		// The bench's tree: the refit used to stall a token over the budget and give up with an error.
		const tree = await generateTree(join(await tempDir(), "skills"), 1000);
		const { index } = await discover({ home: tree.root, defaultRoots: false, roots: [tree.root] });
		for (const tokens of [2560, 2000, 3000]) {
			const { text, catalog } = await buildSkillsSection(index, { budget: { tokens } });
			expect(count(text), `1,000 skills in ${tokens} tokens`).toBeLessThanOrEqual(tokens);
			expect(catalog.report.kept.length + catalog.report.named.length).toBeGreaterThan(0);
		}
	}, 60_000);

	it("takes a host's own instruction, and says when the budget cannot hold even that", async () => {
		const instruction = "Read a skill's SKILL.md resource before you start.";
		const { text } = await buildSkillsSection(entries(5), { budget: { chars: 2000 }, instruction });
		expect(text).toMatch(
			/^## Skills\n\nSkills are folders of instructions and resources for particular tasks\. Read a/,
		);
		expect(codePointLength(text)).toBeLessThanOrEqual(2000);
		await expect(buildSkillsSection(entries(5), { budget: { tokens: 20 } })).rejects.toMatchObject({
			code: "invalid-option",
		});
		// So small that not even the catalog's count line fits: an error, not a section that silently hides every skill.
		for (const tokens of [1, 5])
			await expect(buildSkillsSection(entries(5), { budget: { tokens } })).rejects.toMatchObject({
				code: "invalid-option",
			});
		const file = await buildSkillsSection(entries(3), { activation: "file-read" });
		expect(file.text).toContain("/skills/0/SKILL.md");
	});
});
