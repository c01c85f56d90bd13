import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { countInBoundedRuns } from "./token-runs.ts";
import type { Tokenizer } from "./tokenizer.ts";

/**
 * Exact o200k_base token counts (the encoding of GPT-4o, GPT-4.1, o-series and GPT-5 models), linear in the text:
 * runs of letters, symbols or spaces over 256 characters are counted in parts.
 */
export const o200kTokenizer: Tokenizer = { name: "o200k_base", count: (text) => countInBoundedRuns(text, countTokens) };
