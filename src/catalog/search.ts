import type { SkillIndex } from "../discovery/index.ts";
import { Bm25Index } from "./bm25.ts";
import { listText } from "./safe-text.ts";

/** One search hit: the skill's name, its description, and its BM25 score (three decimals). */
export interface SkillSearchResult {
	name: string;
	description: string;
	score: number;
}

/**
 * Search over the skills a catalog may list (selected, trusted, enabled, model-invocable): BM25 over names (weight
 * 3), descriptions and WorkBuddy `read_when` triggers, best first, at most `limit` (default 5) hits. The one search
 * behind `search_skills` and `skillset search`, so both find the same skills in the same order.
 */
export function createSkillSearch(index: SkillIndex): (query: string, limit?: number) => SkillSearchResult[] {
	const skills = index.catalogSkills;
	const bm25 = new Bm25Index(
		skills.map((s) => ({
			id: s.name,
			fields: [
				{ text: s.name, weight: 3 },
				{ text: s.description, weight: 1 },
				{ text: (s.properties.readWhen ?? []).join(" "), weight: 1 },
			],
		})),
	);
	const byName = new Map(skills.map((s) => [s.name, s]));
	return (query, limit = 5) =>
		bm25.search(query, limit).map((hit) => ({
			name: hit.id,
			description: byName.get(hit.id)?.description ?? "",
			score: Math.round(hit.score * 1000) / 1000,
		}));
}

/**
 * Hits as `search_skills` gives them to a model: one `- name: description` line each, every field folded to one
 * line with no markup, or one line saying nothing matched.
 */
export function renderSearchResults(results: readonly SkillSearchResult[], query: string): string {
	if (results.length === 0) return `No skill matches '${listText(query)}'.`;
	return results.map((r) => `- ${listText(r.name)}: ${listText(r.description)}`).join("\n");
}
