import { buildSkillsSection, type Catalog, type Tokenizer } from "../catalog/index.ts";
import type { SkillIndex } from "../discovery/index.ts";
import { SkillsetError } from "../skill/index.ts";

/** What the instructions depend on. */
export interface InstructionOptions {
	tools?: boolean;
	budgetTokens?: number;
	tokenizer?: Tokenizer;
	/** Where the fitted instructions are kept between runs (discovery's cache folder). */
	cacheDir?: string;
}

/** Default token budget of the catalog in the server instructions. */
export const DEFAULT_INSTRUCTION_TOKENS = 2000;

/** The server instructions of one snapshot and the catalog in them (which `load_skill`'s enum then lists). */
export interface ServeSection {
	instructions: string;
	catalog: Catalog;
}

const READ_INSTRUCTION =
	"When a task matches a skill's description, read its SKILL.md resource (skill://<name>/SKILL.md; skills/list gives every skill's URI) before you start, then follow it. Read the files it mentions as resources beside it.";

/**
 * The server `instructions`: the library's skills section (the same catalog, fitted as a whole to the budget), with
 * the usage instruction for the load tool or, without tools, for reading a skill's SKILL.md resource. Built once per
 * snapshot. Empty when no skill can be offered. A budget that cannot hold even the instruction is an
 * `invalid-option` error naming `budgetTokens`.
 */
export async function buildServeSection(index: SkillIndex, options: InstructionOptions): Promise<ServeSection> {
	const budget = options.budgetTokens ?? DEFAULT_INSTRUCTION_TOKENS;
	try {
		const section = await buildSkillsSection(index, {
			budget: { tokens: budget },
			...(options.tokenizer ? { tokenizer: options.tokenizer } : {}),
			...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
			...(options.tools === false ? { instruction: READ_INSTRUCTION } : { activation: "tool" as const }),
		});
		return { instructions: section.text, catalog: section.catalog };
	} catch (error) {
		if (!(error instanceof SkillsetError) || error.code !== "invalid-option") throw error;
		throw new SkillsetError(
			"invalid-option",
			`the skills catalog does not fit in ${budget} tokens of server instructions: raise the budget (budgetTokens, --budget-tokens)`,
			{ data: { option: "budgetTokens" } },
		);
	}
}
