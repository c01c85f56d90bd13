import { buildSkillsSection, type Catalog, type Tokenizer } from "../catalog/index.ts";
import type { SkillIndex } from "../discovery/index.ts";
import { SkillsetError } from "../skill/index.ts";
import { createSkillTools } from "../tools/index.ts";
import type { AgentTool } from "./agent-tool.ts";
import { TriggerMatcher } from "./triggers.ts";

/** What the agent derives from one index: the fitted catalog, its prompt section, the skill tools, the matcher. */
export interface SkillState {
	index: SkillIndex;
	catalog: Catalog;
	section: string;
	tools: AgentTool[];
	triggers: TriggerMatcher;
}

/**
 * Builds the per-index state; the agent rebuilds it only when a rescan returns a different index. The section is
 * the library's (`buildSkillsSection`): heading, instruction and catalog fitted together to the budget, and the
 * same catalog gives `load_skill` its enum.
 */
export async function buildSkillState(
	index: SkillIndex,
	session: Parameters<typeof createSkillTools>[0],
	options: { tokenizer: Tokenizer; contextWindow: number },
): Promise<SkillState> {
	const { text, catalog } = await buildSkillsSection(index, {
		tokenizer: options.tokenizer,
		budget: { contextWindow: options.contextWindow },
		activation: "tool",
	}).catch((error: unknown) => {
		if (!(error instanceof SkillsetError) || error.code !== "invalid-option") throw error;
		throw new SkillsetError(
			"invalid-option",
			`the skills section does not fit in its share of a ${options.contextWindow}-token context window: raise contextWindow`,
			{ data: { option: "contextWindow" }, cause: error },
		);
	});
	const tools = createSkillTools(session, {
		include: ["load_skill", "read_skill_resource", "search_skills"],
		catalog,
		// The system prompt carries the catalog: the tool description does not repeat it.
		describeCatalog: false,
	}).map(
		(tool): AgentTool => ({
			name: tool.name,
			description: tool.description,
			inputSchema: tool.inputSchema,
			spec: { risk: "safe" },
			execute: (input) => tool.execute(input),
		}),
	);
	return {
		index,
		catalog,
		section: text,
		tools,
		triggers: new TriggerMatcher(index.catalogSkills),
	};
}

/** A message that invokes a skill explicitly: `$name rest` or `/name rest`. */
export interface Invocation {
	name: string;
	rest: string;
}

/** Reads `$name` or `/name` at the start of a message. */
export function parseInvocation(text: string): Invocation | undefined {
	const match = /^[$/]([A-Za-z0-9][A-Za-z0-9._:@-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
	return match ? { name: match[1] ?? "", rest: (match[2] ?? "").trim() } : undefined;
}

/** The skill a name means, or the candidates when it is unknown or ambiguous (never a guess). */
export function resolveInvocation(
	index: SkillIndex,
	name: string,
): { ok: true; name: string } | { ok: false; message: string; candidates: string[] } {
	// An exact name goes to the session, which says why a skill that is not selected cannot be used.
	const exact = index.get(name);
	if (exact) return { ok: true, name: exact.status === "selected" ? exact.name : exact.qualifiedName };
	const lower = name.toLowerCase();
	const selected = index.selected;
	const sharing = selected.filter((s) => s.id === lower || s.name.startsWith(`${lower}@`));
	if (sharing.length > 1) {
		const candidates = sharing.map((s) => s.name);
		return { ok: false, message: `'${name}' is ambiguous: ${candidates.join(", ")}. Say which one.`, candidates };
	}
	if (sharing.length === 1) return { ok: true, name: (sharing[0] as (typeof sharing)[number]).name };
	const candidates = [
		...new Set([...selected.filter((s) => s.name.startsWith(lower)).map((s) => s.name), ...index.closest(name)]),
	].slice(0, 5);
	const hint = candidates.length > 0 ? ` Did you mean: ${candidates.join(", ")}?` : "";
	return { ok: false, message: `No skill is called '${name}'.${hint}`, candidates };
}
