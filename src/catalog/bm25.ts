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
				score += termScore(frequency, df, count, doc.length / (this.#averageLength || 1));
			}
			if (score > 0) hits.push({ id: doc.id, score });
		}
		hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
		return hits.slice(0, limit);
	}
}

/** One term's BM25 contribution: its frequency in a document, its document frequency, and the length ratio. */
function termScore(frequency: number, df: number, count: number, relativeLength: number): number {
	const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
	return (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + B * relativeLength));
}

/**
 * The BM25 score of every document for one query, in document order (0 for no match): the same scores as
 * {@link Bm25Index.search}, in one pass that counts only the query's terms, for ranking a whole catalog once.
 */
export function bm25Scores(documents: readonly SearchDocument[], query: string): number[] {
	const terms = new Map([...new Set(tokenize(query))].map((term, i) => [term, i]));
	const scores = new Array<number>(documents.length).fill(0);
	if (terms.size === 0) return scores;
	const width = terms.size;
	const list = [...terms.keys()];
	const frequencies = new Float64Array(documents.length * width);
	const lengths = new Float64Array(documents.length);
	for (const [d, document] of documents.entries()) {
		for (const field of document.fields) {
			lengths[d] =
				(lengths[d] ?? 0) +
				field.weight *
					scanWords(field.text.toLowerCase(), list, (k) => {
						frequencies[d * width + k] = (frequencies[d * width + k] ?? 0) + field.weight;
					});
		}
	}
	const df = new Array<number>(width).fill(0);
	for (let i = 0; i < frequencies.length; i++) if ((frequencies[i] ?? 0) > 0) df[i % width] = (df[i % width] ?? 0) + 1;
	const average = lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, documents.length) || 1;
	for (let d = 0; d < documents.length; d++) {
		for (let k = 0; k < width; k++) {
			const frequency = frequencies[d * width + k] ?? 0;
			if (frequency > 0)
				scores[d] = (scores[d] ?? 0) + termScore(frequency, df[k] ?? 0, documents.length, (lengths[d] ?? 0) / average);
		}
	}
	return scores;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** ASCII letters and digits, by char code. */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) =>
	(c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0,
);

/** The length in code units of the code point at `i`. */
function width(code: number): number {
	return code >= 0xd800 && code < 0xdc00 ? 2 : 1;
}

/** True when the code point at `i` of `text` (first unit `code`) is a letter or digit, as {@link tokenize} says. */
function isWordChar(text: string, i: number, code: number): boolean {
	if (code < 128) return ASCII_WORD[code] === 1;
	return LETTER_OR_DIGIT.test(String.fromCodePoint(text.codePointAt(i) ?? code));
}

/**
 * Counts the words of lowercased `text` as {@link tokenize} splits them, calling `found(k)` for each word equal
 * to `terms[k]`; no word strings are made, so ranking a whole catalog stays cheap.
 */
function scanWords(text: string, terms: readonly string[], found: (k: number) => void): number {
	let words = 0;
	let i = 0;
	while (i < text.length) {
		const code = text.charCodeAt(i);
		if (!isWordChar(text, i, code)) {
			i += width(code);
			continue;
		}
		const start = i;
		i += width(code);
		while (i < text.length) {
			const next = text.charCodeAt(i);
			if (!isWordChar(text, i, next)) break;
			i += width(next);
		}
		words++;
		for (let k = 0; k < terms.length; k++) {
			const term = terms[k] as string;
			if (term.length === i - start && text.startsWith(term, start)) found(k);
		}
	}
	return words;
}
