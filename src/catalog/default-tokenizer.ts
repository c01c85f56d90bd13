import { estimateTokenizer, type Tokenizer } from "./tokenizer.ts";

// The choice between the two tokenizers, above both: `tokenizer-o200k.ts` (the `skillset/tokenizer` entry, heavy)
// and the estimate beside the `Tokenizer` interface in `tokenizer.ts`.

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
