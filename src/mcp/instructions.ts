import { buildCatalog, systemPromptSection, type Tokenizer } from "../catalog/index.ts";
import type { SkillIndex } from "../discovery/index.ts";

/** What the instructions depend on. */
export interface InstructionOptions {
	tools?: boolean;
	budgetTokens?: number;
	tokenizer?: Tokenizer;
}

/** Default token budget of the catalog in the server instructions. */
export const DEFAULT_INSTRUCTION_TOKENS = 2000;

/**
 * The server `instructions`: the tier-1 catalog fitted to the budget, with the usage instruction for the load tool,
 * or, without tools, for reading a skill's SKILL.md resource. Empty when no skill can be offered.
 */
export async function buildInstructions(index: SkillIndex, options: InstructionOptions): Promise<string> {
	const catalog = await buildCatalog(index, {
		budget: { tokens: options.budgetTokens ?? DEFAULT_INSTRUCTION_TOKENS },
		...(options.tokenizer ? { tokenizer: options.tokenizer } : {}),
	});
	if (options.tools !== false) return systemPromptSection(catalog, { activation: "tool" });
	if (catalog.text === "") return "";
	return `## Skills\n\nSkills are folders of instructions and resources for particular tasks. When a task matches a skill's description, read its SKILL.md resource (skill://<name>/SKILL.md; skills/list gives every skill's URI) before you start, then follow it. Read the files it mentions as resources beside it.\n\n${catalog.text}\n`;
}
