import fc from "fast-check";
import { Bm25Index } from "skillset";
import { describe, expect, it } from "vitest";
import { bm25Scores } from "../../src/catalog/bm25.ts";

const word = fc.constantFrom(
	"pdf",
	"PDF",
	"forms",
	"deploy",
	"deploys",
	"kubernetes",
	"ünïcode",
	"日本",
	"x1",
	"𝔘nit",
	"İstanbul",
);
const text = fc
	.array(fc.oneof(word, fc.constantFrom(" ", "-", ", ", ".\n", "—")), { maxLength: 30 })
	.map((p) => p.join(""));

describe("bm25Scores, the one-pass ranking the catalog uses", () => {
	it("gives the same scores as the search index", () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 12 }), text, (docs, query) => {
				const documents = docs.map(([name, description], i) => ({
					id: String(i),
					fields: [
						{ text: name, weight: 3 },
						{ text: description, weight: 1 },
					],
				}));
				const scores = bm25Scores(documents, query);
				const expected = new Array<number>(docs.length).fill(0);
				for (const hit of new Bm25Index(documents).search(query, docs.length)) expected[Number(hit.id)] = hit.score;
				for (const [i, score] of scores.entries()) expect(score).toBeCloseTo(expected[i] ?? 0, 9);
			}),
			{ numRuns: 300 },
		);
	});
});
