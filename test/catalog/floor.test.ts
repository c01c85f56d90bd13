import fc from "fast-check";
import {
	buildCatalog,
	type CatalogEntry,
	DEFAULT_FLOOR_WORDS,
	ELLIPSIS,
	loadDefaultTokenizer,
	type Tokenizer,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
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
	it("never cuts a description below 12 words: drops whole skills instead, and says how many", async () => {
		const list = longEntries(547);
		const catalog = await buildCatalog(list, { budget: { tokens: 4000 }, tokenizer });
		const { kept, omitted, step } = catalog.report;
		expect(step).toBe("dropped");
		expect(kept.length).toBeGreaterThan(50);
		expect(kept.length + omitted.length).toBe(547);
		for (const entry of catalog.entries) expect(words(entry.description)).toBeGreaterThanOrEqual(DEFAULT_FLOOR_WORDS);
		expect(catalog.text.split("\n").at(-1)).toBe(
			`- ${omitted.length} more skills are not listed: use search_skills to find them.`,
		);
		expect(tokenizer.count(catalog.text)).toBeLessThanOrEqual(4000);
		// Dropping skills frees room by what they cost, not one per token over: the budget stays used.
		expect(tokenizer.count(catalog.text)).toBeGreaterThan(3800);
		// Precedence order: the skills kept are the first ones.
		expect(kept).toEqual(list.slice(0, kept.length).map((e) => e.name));
	});

	it("stops at the end of the first sentence when that is shorter than 12 words", async () => {
		const list = Array.from({ length: 200 }, (_, i) => ({
			name: `s-${i}`,
			description: `Fills PDF forms ${i}. Then it ${FILLER} and ${FILLER}.`,
			location: `/s/${i}`,
		}));
		const catalog = await buildCatalog(list, { budget: { tokens: 2500 }, tokenizer });
		for (const entry of catalog.entries) expect(entry.description.startsWith(`Fills PDF forms`)).toBe(true);
		expect(catalog.entries.some((e) => e.description.endsWith(`.${ELLIPSIS}`))).toBe(true);
		for (const entry of catalog.entries) expect(words(entry.description)).toBeGreaterThanOrEqual(4);
	});

	it("is configurable: a lower floor keeps more skills, 0 keeps every name it can", async () => {
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

describe("dropping by precedence, then by relevance to a query", () => {
	const list = longEntries(400).map((e, i) =>
		i === 390
			? { ...e, name: "kubernetes-deploy", description: "Deploys services to a Kubernetes cluster with Helm." }
			: e,
	);

	it("keeps the skills that match the query, even from the back of the list", async () => {
		const without = await buildCatalog(list, { budget: { tokens: 2000 }, tokenizer });
		expect(without.report.omitted).toContain("kubernetes-deploy");
		const withQuery = await buildCatalog(list, { budget: { tokens: 2000 }, tokenizer, query: "deploy to kubernetes" });
		expect(withQuery.report.kept).toContain("kubernetes-deploy");
		expect(tokenizer.count(withQuery.text)).toBeLessThanOrEqual(2000);
		// The text keeps precedence order: the match is listed last, after the first skills.
		expect(withQuery.report.kept.at(-1)).toBe("kubernetes-deploy");
		expect(withQuery.report.kept.length + withQuery.report.omitted.length).toBe(400);
	});

	it("matches triggers too, and drops the lowest precedence first even when relevant", async () => {
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
		// Room for the "more" line and one skill at its floor.
		const small = { budget: { tokens: 40 }, tokenizer, query: "zebras" };
		const fromIndex = await buildCatalog(index, small);
		expect(fromIndex.report.kept).toEqual(["beta"]);
		expect((await buildCatalog(index, { ...small, query: "" })).report.kept).toEqual(["alpha"]);
		const withRanks = await buildCatalog(ranked, small);
		expect(withRanks.report.omitted).toContain("zebra-low");
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
					if (catalog.report.kept.length === 0 && catalog.text) expect(catalog.text).toMatch(/\b50\b/);
				},
			),
			{ numRuns: 80 },
		);
		const nine = await buildCatalog(list, { budget: { tokens: 9 }, tokenizer });
		expect(nine.text).toBe("- 50 skills: use search_skills");
		expect((await buildCatalog(list, { budget: { tokens: 3 }, tokenizer })).text).toBe("");
	});
});
