import type { IndexedSkill } from "../discovery/index.ts";
import { Bm25Index, tokenize } from "../tools/index.ts";

/** Smallest BM25 score that counts as a match for a hint. */
const MIN_SCORE = 1;
const STOP_WORDS = new Set(
	"a an and are as at be but by can do for from how i in is it me my of on or please the this to use we what when with you your".split(
		" ",
	),
);

/**
 * Matches a user message against the catalog's skills: `read_when` phrases (every word of a phrase in the message)
 * first, then BM25 over names and descriptions. Built once per index.
 */
export class TriggerMatcher {
	readonly #index: Bm25Index;
	readonly #phrases: { name: string; words: string[] }[];

	constructor(skills: readonly IndexedSkill[]) {
		this.#index = new Bm25Index(
			skills.map((skill) => ({
				id: skill.name,
				fields: [
					{ text: skill.name, weight: 3 },
					{ text: skill.description, weight: 1 },
				],
			})),
		);
		this.#phrases = skills.flatMap((skill) =>
			(skill.properties.readWhen ?? [])
				.map((phrase) => ({ name: skill.name, words: tokenize(phrase).filter((w) => !STOP_WORDS.has(w)) }))
				.filter((phrase) => phrase.words.length > 0),
		);
	}

	/** Up to `limit` skill names that may help with `message`, best first, leaving out `exclude` (active ones). */
	match(message: string, exclude: ReadonlySet<string>, limit = 3): string[] {
		const words = tokenize(message).filter((w) => !STOP_WORDS.has(w));
		if (words.length === 0) return [];
		const present = new Set(words);
		const names: string[] = [];
		const add = (name: string) => {
			if (!exclude.has(name) && !names.includes(name) && names.length < limit) names.push(name);
		};
		for (const phrase of this.#phrases) if (phrase.words.every((w) => present.has(w))) add(phrase.name);
		const hits = this.#index.search(words.join(" "), limit + exclude.size);
		const best = hits[0]?.score ?? 0;
		for (const hit of hits) if (hit.score >= MIN_SCORE && hit.score >= best / 2) add(hit.id);
		return names;
	}
}

/** The hint appended to a user message. */
export function renderHint(names: readonly string[]): string {
	return `[skillset: skills that may help: ${names.join(", ")} — load with load_skill]`;
}
