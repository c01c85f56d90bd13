import type { Catalog, Tokenizer } from "../catalog/index.ts";
import type { JsonSchema } from "./schema.ts";

// The shape every skill tool has, and what creating them takes: the tool factories (`skill-tools.ts`,
// `list-skills.ts`), the input guard and the SDK adapters all build on it.

/** What a tool call returns: text for the model, structured details for the host. */
export interface ToolResult {
	content: string;
	isError: boolean;
	/** Skill content: hosts should keep it out of truncation and compaction. */
	protected: boolean;
	details: Record<string, unknown>;
}

/** A framework-neutral tool: name, description, JSON Schema input, and `execute`. */
export interface SkillTool {
	name: string;
	description: string;
	inputSchema: JsonSchema;
	/** Runs the tool on the model's arguments; a bad argument or a refusal is a result with `isError`, not a throw. */
	execute(input: unknown): Promise<ToolResult>;
}

/** The four tools. */
export type SkillToolName = "load_skill" | "read_skill_resource" | "list_skills" | "search_skills";

/** Options for `createSkillTools` (`skill-tools.ts`). */
export interface SkillToolsOptions {
	/** Which tools to create. Default: all four. */
	include?: readonly SkillToolName[];
	/**
	 * The catalog the model sees. `load_skill`'s enum then lists exactly its skills (others still load by name),
	 * and a `list_skills` page never costs more than its budget. Without it the enum lists every skill.
	 */
	catalog?: Catalog;
	/** Put the catalog's text in the load tool's description too. Default true when `catalog` is given. */
	describeCatalog?: boolean;
	/** Counts `list_skills` pages against a token budget. Default: o200k_base, as the catalog. */
	tokenizer?: Tokenizer;
	/** Skills per `list_skills` page. Default 50. */
	pageSize?: number;
}
