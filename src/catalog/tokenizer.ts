/** Counts tokens for one model family. Plug in your model's tokenizer for exact budgets. */
export interface Tokenizer {
	/** A name for reports, e.g. `o200k_base`. */
	readonly name: string;
	count(text: string): number;
}

const encoder = new TextEncoder();

/** The fallback when no real tokenizer is available: UTF-8 bytes / 4, rounded up. An estimate, and named so. */
export const estimateTokenizer: Tokenizer = {
	name: "estimate-bytes/4",
	count: (text) => Math.ceil(encoder.encode(text).length / 4),
};

/**
 * The default tokenizer, o200k_base (GPT-4o and later), from `gpt-tokenizer`. It is loaded on first use, so
 * importing skillset stays light; if the package cannot be loaded, the bytes/4 estimate stands in.
 */
export async function loadDefaultTokenizer(): Promise<Tokenizer> {
	try {
		const { o200kTokenizer } = await import("./tokenizer-o200k.ts");
		return o200kTokenizer;
	} catch {
		return estimateTokenizer;
	}
}
