/** Counts tokens for one model family. Plug in your model's tokenizer for exact budgets. */
export interface Tokenizer {
	/** A name for reports, e.g. `o200k_base`. */
	readonly name: string;
	/** The number of tokens `text` takes for this model family. */
	count(text: string): number;
}

const encoder = new TextEncoder();

/** The fallback when no real tokenizer is available: UTF-8 bytes / 4, rounded up. An estimate, and named so. */
export const estimateTokenizer: Tokenizer = {
	name: "estimate-bytes/4",
	count: (text) => Math.ceil(encoder.encode(text).length / 4),
};
