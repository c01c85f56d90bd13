import { describe, expect, it } from "vitest";
import { FLOOR_CAP_WORDS, planWords, useWhenClause } from "../../src/catalog/floor.ts";
import { createSlot, describeSlot } from "../../src/catalog/slot.ts";

const FILLER =
	"It covers setup, configuration, error handling, retries, logging, metrics, alerts, dashboards, runbooks, reviews, migrations, rollbacks, secrets, environments, costs, quotas, limits, backups, restores and audits in depth.";

/** The description as its floor shows it (and, with `extra`, that many words above the floor). */
function floorOf(description: string, floorWords = 12, extra = 0): string {
	const slot = createSlot({ name: "x", description, location: "/x" }, 0, floorWords);
	slot.taken = Math.min(slot.words.length, slot.floor + extra);
	return describeSlot(slot).description;
}

describe("planWords: the floor says what the skill is and when to use it", () => {
	it.each([
		[
			"a slogan first sentence is not a floor: 12 words",
			"Every product will be AI-powered. The question is whether you'll build it right or ship a demo that falls apart.",
			"Every product will be AI-powered. The question is whether you'll build it…",
		],
		[
			"a clause that ends within the cap is kept whole, as a prefix",
			"Creates PDFs from templates. Use when the user asks for a PDF report, an invoice or a letter. It also merges files.",
			"Creates PDFs from templates. Use when the user asks for a PDF report, an invoice or a letter.…",
		],
		[
			"a late clause follows the opening sentence",
			`Memory is the cornerstone of intelligent agents. ${FILLER} Use this skill when building agents that remember users across sessions.`,
			"Memory is the cornerstone of intelligent agents. … Use this skill when building agents that remember users across sessions.",
		],
		[
			"'This skill should be used when' starts the clause at 'This'",
			`Guide for creating effective skills. ${FILLER} This skill should be used when users want to create a new skill.`,
			"Guide for creating effective skills. … This skill should be used when users want to create a new skill.",
		],
		[
			"a clause after a semicolon starts at 'use'",
			`Turns Notion specs into plans, tasks and progress tracking for teams of any size and shape ${FILLER.toLowerCase()}; use it when implementing PRDs from Notion. More text follows here.`,
			"Turns Notion specs into plans, tasks and progress tracking for teams of … use it when implementing PRDs from Notion.…",
		],
		[
			"a clause longer than the cap is cut at the cap",
			`Use when: ${Array.from({ length: 40 }, (_, i) => `topic${i},`).join(" ")} and more.`,
			`Use when: ${Array.from({ length: 28 }, (_, i) => `topic${i},`).join(" ")}…`,
		],
		[
			"'use' without 'when' is not a clause",
			"Use the Stripe API to create charges, refunds and subscriptions for customers in any currency and region.",
			"Use the Stripe API to create charges, refunds and subscriptions for customers…",
		],
		["a short description is whole", "Fills PDF forms.", "Fills PDF forms."],
	])("%s", (_case, description, floor) => {
		expect(floorOf(description)).toBe(floor);
		const words = floor.replaceAll("…", " ").split(/\s+/).filter(Boolean).length;
		expect(words).toBeLessThanOrEqual(FLOOR_CAP_WORDS + 1);
	});

	it("gives words back above the floor: the rest of the clause, then the opening, then what follows", () => {
		const description = `Memory matters. ${FILLER} Use when building agents that remember. Then more text.`;
		const words = description.match(/\s*\S+/g) ?? [];
		const clause = useWhenClause(words);
		expect(clause && words.slice(clause.start, clause.end).join("").trim()).toBe(
			"Use when building agents that remember.",
		);
		const { order, floor } = planWords(words, 12);
		// The opening sentence and the clause make 8 words: the opening grows to make up the 12.
		expect(floor).toBe(12);
		expect(order.slice(0, floor).map((i) => words[i]?.trim())).toEqual([
			"Memory",
			"matters.",
			"It",
			"covers",
			"setup,",
			"configuration,",
			"Use",
			"when",
			"building",
			"agents",
			"that",
			"remember.",
		]);
		expect(floorOf(description)).toBe(
			"Memory matters. It covers setup, configuration, … Use when building agents that remember.…",
		);
		expect(floorOf(description, 12, 2)).toBe(
			"Memory matters. It covers setup, configuration, error handling, … Use when building agents that remember.…",
		);
		expect([...order].sort((a, b) => a - b)).toEqual(words.map((_, i) => i));
	});

	it("keeps nothing with floor 0, and the whole description when it is shorter than the floor", () => {
		expect(planWords(["a", " b"], 0)).toEqual({ order: [0, 1], floor: 0 });
		expect(floorOf("Fills PDF forms. Use when asked.", 0)).toBe("");
		expect(planWords(["a", " b"], 12).floor).toBe(2);
	});
});
