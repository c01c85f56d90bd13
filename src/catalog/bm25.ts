/** A document for the search index: an id and weighted fields of text. */
export interface SearchDocument {
	id: string;
	fields: { text: string; weight: number }[];
}

/** A hit: the document id and its BM25 score. */
export interface SearchHit {
	id: string;
	score: number;
}

const K1 = 1.2;
const B = 0.75;

/** Lowercased words of letters and digits; `pdf-tools` gives `pdf` and `tools`. */
export function tokenize(text: string): string[] {
	return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A small BM25 index (k1 = 1.2, b = 0.75). A field's weight repeats its terms, so a match in a name counts more
 * than one in a description.
 */
export class Bm25Index {
	readonly #docs: { id: string; terms: Map<string, number>; length: number }[] = [];
	readonly #documentFrequency = new Map<string, number>();
	readonly #averageLength: number;

	constructor(documents: readonly SearchDocument[]) {
		for (const document of documents) {
			const terms = new Map<string, number>();
			let length = 0;
			for (const field of document.fields) {
				for (const term of tokenize(field.text)) {
					terms.set(term, (terms.get(term) ?? 0) + field.weight);
					length += field.weight;
				}
			}
			for (const term of terms.keys()) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
			this.#docs.push({ id: document.id, terms, length });
		}
		this.#averageLength = this.#docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.#docs.length);
	}

	/** The best `limit` matches for `query`, best first; documents matching no term are left out. */
	search(query: string, limit = 5): SearchHit[] {
		const terms = [...new Set(tokenize(query))];
		const count = this.#docs.length;
		const hits: SearchHit[] = [];
		for (const doc of this.#docs) {
			let score = 0;
			for (const term of terms) {
				const frequency = doc.terms.get(term);
				if (!frequency) continue;
				const df = this.#documentFrequency.get(term) ?? 0;
				const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
				const norm = frequency + K1 * (1 - B + (B * doc.length) / (this.#averageLength || 1));
				score += (idf * frequency * (K1 + 1)) / norm;
			}
			if (score > 0) hits.push({ id: doc.id, score });
		}
		hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
		return hits.slice(0, limit);
	}
}
