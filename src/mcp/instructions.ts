import {
	buildCatalog,
	type Catalog,
	loadDefaultTokenizer,
	systemPromptSection,
	type Tokenizer,
} from "../catalog/index.ts";
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
	const tokenizer = options.tokenizer ?? (await loadDefaultTokenizer());
	const budget = options.budgetTokens ?? DEFAULT_INSTRUCTION_TOKENS;
	const render = async (tokens: number) => {
		const catalog = await buildCatalog(index, { budget: { tokens }, tokenizer });
		return { catalog, text: wrap(catalog, options.tools !== false) };
	};
	const first = await render(budget);
	const total = tokenizer.count(first.text);
	if (total <= budget) return first.text;
	// The budget covers the usage instruction too: fit the catalog again into what the instruction leaves.
	const overhead = total - first.catalog.report.tokens;
	return (await render(Math.max(1, budget - overhead))).text;
}

function wrap(catalog: Catalog, tools: boolean): string {
	if (tools) return systemPromptSection(catalog, { activation: "tool" });
	if (catalog.text === "") return "";
	return `## Skills\n\nSkills are folders of instructions and resources for particular tasks. When a task matches a skill's description, read its SKILL.md resource (skill://<name>/SKILL.md; skills/list gives every skill's URI) before you start, then follow it. Read the files it mentions as resources beside it.\n\n${catalog.text}\n`;
}
