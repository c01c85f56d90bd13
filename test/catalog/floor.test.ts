import fc from "fast-check";
import {
	buildCatalog,
	type CatalogEntry,
	DEFAULT_FLOOR_WORDS,
	ELLIPSIS,
	FLOOR_CAP_WORDS,
	loadDefaultTokenizer,
	type Tokenizer,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { letterSpread } from "../helpers/catalog-measure.ts";
import { indexOf, skillMd } from "../helpers/temp.ts";

let tokenizer: Tokenizer;
beforeAll(async () => {
	tokenizer = await loadDefaultTokenizer();
});

const FILLER = "helps with many related tasks across the whole project and answers questions about them in detail";

/** Skills with long, realistic descriptions: an "Expert …" opening sentence longer than the floor, then more. */
function longEntries(count: number): CatalogEntry[] {
	return Array.from({ length: count }, (_, i) => ({
		name: `skill-${String(i).padStart(4, "0")}`,
		description: `Expert assistant for topic ${i} that ${FILLER}. Use it when the user asks about topic ${i}.`,
		location: `/skills/${i}/SKILL.md`,
	}));
}

function words(description: string): number {
	return description.replace(ELLIPSIS, "").split(/\s+/).filter(Boolean).length;
}

describe("the description floor", () => {
	it("keeps at least 12 words of every described skill, and lists every other skill by name", async () => {
		const list = longEntries(547);
		const catalog = await buildCatalog(list, { budget: { tokens: 4000 }, tokenizer });
		const { kept, named, omitted, step } = catalog.report;
		expect(step).toBe("named");
		expect(omitted).toEqual([]);
		expect(kept.length).toBeGreaterThan(20);
		expect([...kept, ...named].sort()).toEqual(list.map((e) => e.name));
		for (const entry of catalog.entries) expect(words(entry.description)).toBeGreaterThanOrEqual(DEFAULT_FLOOR_WORDS);
		expect(catalog.text.split("\n").at(-1)).toMatch(/^- Also available — load by name or search_skills: skill-\d{4}, /);
		expect(tokenizer.count(catalog.text)).toBeLessThanOrEqual(4000);
		// Moving a skill to the names line frees what it cost, not one unit per unit over: the budget stays used.
		expect(tokenizer.count(catalog.text)).toBeGreaterThan(3800);
		// Not the first skills in name order: described skills come from the whole list.
		expect(kept.filter((name) => Number(name.slice(-4)) >= 274).length).toBeGreaterThan(kept.length / 4);
	});

	it("keeps 12 words when the first sentence is shorter: a slogan is not a floor", async () => {
		const list = Array.from({ length: 200 }, (_, i) => ({
			name: `s-${i}`,
			description: `Fills PDF forms ${i}. Then it ${FILLER} and ${FILLER}.`,
			location: `/s/${i}`,
		}));
		const catalog = await buildCatalog(list, { budget: { tokens: 2500 }, tokenizer });
		expect(catalog.report.step).toBe("named");
		for (const entry of catalog.entries) {
			expect(entry.description.startsWith("Fills PDF forms")).toBe(true);
			expect(words(entry.description)).toBeGreaterThanOrEqual(DEFAULT_FLOOR_WORDS);
		}
	});

	it("keeps a 'Use when' clause that comes late, after the opening, within about 30 words", async () => {
		const list = Array.from({ length: 200 }, (_, i) => ({
			name: `late-${i}`,
			description: `Every product will be AI-powered. The skill ${FILLER} and ${FILLER}. Use when the user builds feature ${i} with a model.`,
			location: `/l/${i}`,
		}));
		const catalog = await buildCatalog(list, { budget: { tokens: 3000 }, tokenizer });
		expect(catalog.report.step).toBe("named");
		expect(catalog.entries.length).toBeGreaterThan(10);
		for (const entry of catalog.entries) {
			const i = entry.name.slice(5);
			expect(entry.description).toMatch(
				new RegExp(`^Every product will be AI-powered\\. .*Use when the user builds feature ${i} with a model\\.$`),
			);
			expect(entry.description).toContain(` ${ELLIPSIS} `);
			expect(words(entry.description)).toBeLessThanOrEqual(FLOOR_CAP_WORDS + 3);
		}
		expect(catalog.report.truncated.length).toBe(catalog.entries.length);
	});

	it("is configurable: a lower floor describes more skills", async () => {
		const list = longEntries(300);
		const byFloor = async (floorWords: number) =>
			(await buildCatalog(list, { budget: { tokens: 3000 }, tokenizer, floorWords })).report.kept.length;
		const [twelve, four, zero] = [await byFloor(12), await byFloor(4), await byFloor(0)];
		expect(four).toBeGreaterThan(twelve);
		expect(zero).toBeGreaterThan(four);
		await expect(buildCatalog(list, { budget: { tokens: 3000 }, floorWords: -1 })).rejects.toThrow(/floorWords/);
	});

	it("shares room above the floor when every skill can have its floor", async () => {
		const list = longEntries(20);
		const catalog = await buildCatalog(list, { budget: { tokens: 700 }, tokenizer });
		expect(catalog.report.step).toBe("shared");
		expect(catalog.report.kept).toHaveLength(20);
		for (const entry of catalog.entries) expect(words(entry.description)).toBeGreaterThanOrEqual(12);
	});
});

describe("which skills keep a description: precedence, the query, recent use, then a hash of the name", () => {
	const list = longEntries(150).map((e, i) =>
		i === 140
			? {
					...e,
					name: "kubernetes-deploy",
					description: `Deploys services to a Kubernetes cluster with Helm and ${FILLER}.`,
				}
			: e,
	);

	it("describes the skills that match the query, even from the back of the list", async () => {
		const without = await buildCatalog(list, { budget: { tokens: 1500 }, tokenizer });
		expect(without.report.named).toContain("kubernetes-deploy");
		const withQuery = await buildCatalog(list, { budget: { tokens: 1500 }, tokenizer, query: "deploy to kubernetes" });
		expect(withQuery.report.kept).toContain("kubernetes-deploy");
		expect(tokenizer.count(withQuery.text)).toBeLessThanOrEqual(1500);
		expect(withQuery.report.kept.length + withQuery.report.named.length).toBe(150);
		// The text keeps entry order: the match is described in its place, not first.
		const kept = new Set(withQuery.report.kept);
		expect(withQuery.report.kept).toEqual(list.map((e) => e.name).filter((name) => kept.has(name)));
	});

	it("describes the skills used recently next, in the order given", async () => {
		const plain = await buildCatalog(list, { budget: { tokens: 1500 }, tokenizer });
		const recent = plain.report.named.slice(-2);
		const withRecent = await buildCatalog(list, { budget: { tokens: 1500 }, tokenizer, recent });
		for (const name of recent) expect(withRecent.report.kept).toContain(name);
		// The query still comes first.
		const both = await buildCatalog(list, { budget: { tokens: 1500 }, tokenizer, recent, query: "kubernetes" });
		expect(both.report.kept).toContain("kubernetes-deploy");
		await expect(buildCatalog(list, { recent: "x" as never })).rejects.toThrow(/recent/);
	});

	it("owes nothing to the alphabet, is the same in every run, and moves little when a skill is added", async () => {
		const letters = "abcdefghijklmnopqrstuvwxyz";
		const alphabet = Array.from({ length: 520 }, (_, i) => ({
			name: `${letters[i % 26]}${letters[Math.floor(i / 26) % 26]}-tool-${i}`,
			description: `Expert assistant for area ${i} that ${FILLER}. Use it when the user asks about area ${i}.`,
			location: `/a/${i}/SKILL.md`,
		}));
		const catalog = await buildCatalog(alphabet, { budget: { tokens: 4000 }, tokenizer });
		const spread = letterSpread(
			alphabet.map((e) => e.name),
			catalog.report.kept,
			5,
		);
		for (const range of spread) expect(range.ratio).toBeLessThanOrEqual(2);
		expect((await buildCatalog(alphabet, { budget: { tokens: 4000 }, tokenizer })).text).toBe(catalog.text);
		const added = [...alphabet, { ...(alphabet[0] as CatalogEntry), name: "zz-new-tool", location: "/z/SKILL.md" }];
		const after = await buildCatalog(added, { budget: { tokens: 4000 }, tokenizer });
		const before = new Set(catalog.report.kept);
		const changed = after.report.kept.filter((name) => !before.has(name)).length;
		expect(changed).toBeLessThanOrEqual(3);
	});

	it("matches triggers too, and gives no description to a lower precedence even when relevant", async () => {
		const { index } = await indexOf({
			"alpha/SKILL.md": skillMd("alpha", `Alpha ${FILLER}.`),
			"beta/SKILL.md": skillMd("beta", `Beta ${FILLER}.`, "read_when:\n  - the user mentions zebras"),
			"gamma/SKILL.md": skillMd("gamma", `Gamma ${FILLER}.`),
		});
		const entries = (await buildCatalog(index)).entries;
		const ranked: CatalogEntry[] = [
			...entries,
			{ name: "zebra-low", description: `Zebras ${FILLER}.`, location: "/u/zebra/SKILL.md", rank: 5 },
		];
		// Room for the names and one skill at its floor.
		const small = { budget: { tokens: 45 }, tokenizer, query: "zebras" };
		const fromIndex = await buildCatalog(index, small);
		expect(fromIndex.report.kept).toEqual(["beta"]);
		expect(fromIndex.report.named).toEqual(["alpha", "gamma"]);
		const withRanks = await buildCatalog(ranked, small);
		expect(withRanks.report.kept).toEqual(["beta"]);
		expect(withRanks.report.named).toContain("zebra-low");
	});
});

describe("tiny budgets", () => {
	it("always stay within the budget, down to only the line that says how many skills exist", async () => {
		const list = longEntries(50);
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 1, max: 120 }),
				fc.constantFrom("markdown" as const, "xml" as const, "json" as const),
				async (tokens, format) => {
					const catalog = await buildCatalog(list, { budget: { tokens }, tokenizer, format });
					expect(tokenizer.count(catalog.text)).toBeLessThanOrEqual(tokens);
					const { kept, named, omitted } = catalog.report;
					if (kept.length + named.length === 0 && catalog.text) expect(catalog.text).toMatch(/\b50\b/);
					if (omitted.length > 0 && named.length > 0) expect(catalog.text).toContain(`${omitted.length} more`);
				},
			),
			{ numRuns: 80 },
		);
		const nine = await buildCatalog(list, { budget: { tokens: 9 }, tokenizer });
		expect(nine.text).toBe("- 50 skills: use search_skills");
		expect((await buildCatalog(list, { budget: { tokens: 3 }, tokenizer })).text).toBe("");
	});
});
