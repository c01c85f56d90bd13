import { Bm25Index, type Catalog } from "../catalog/index.ts";
import type { SkillSession } from "../runtime/index.ts";
import { type JsonSchema, validateInput } from "./schema.ts";

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
	execute(input: unknown): Promise<ToolResult>;
}

/** The four tools. */
export type SkillToolName = "load_skill" | "read_skill_resource" | "list_skills" | "search_skills";

/** Options for {@link createSkillTools}. */
export interface SkillToolsOptions {
	/** Which tools to create. Default: all four. */
	include?: readonly SkillToolName[];
	/** Put this catalog in the load tool's description (instead of, or as well as, the system prompt). */
	catalog?: Catalog;
}

/**
 * The skill tools for a session: `load_skill` (the name constrained to an enum of the catalog's names),
 * `read_skill_resource`, `list_skills` and `search_skills` (BM25 over names and descriptions, for catalogs the
 * budget cut). With no skills there are no tools: do not register any.
 */
export function createSkillTools(session: SkillSession, options: SkillToolsOptions = {}): SkillTool[] {
	const skills = session.index.catalogSkills;
	if (skills.length === 0) return [];
	const names = skills.map((skill) => skill.name);
	const include = new Set(options.include ?? ["load_skill", "read_skill_resource", "list_skills", "search_skills"]);
	const tools: SkillTool[] = [];
	if (include.has("load_skill")) tools.push(loadSkillTool(session, names, options.catalog));
	if (include.has("read_skill_resource")) tools.push(readResourceTool(session, names));
	if (include.has("list_skills")) tools.push(listSkillsTool(session));
	if (include.has("search_skills")) tools.push(searchSkillsTool(session));
	return tools;
}

function loadSkillTool(session: SkillSession, names: string[], catalog: Catalog | undefined): SkillTool {
	const inputSchema: JsonSchema = {
		type: "object",
		properties: {
			name: { type: "string", enum: names, description: "The skill's name, as listed." },
			reason: { type: "string", description: "One line: why this skill fits the task." },
		},
		required: ["name"],
		additionalProperties: false,
	};
	const listed = catalog?.text ? `\n\nAvailable skills:\n${catalog.text}` : "";
	return {
		name: "load_skill",
		description: `Load a skill's instructions. Call this when a task matches a skill's description, before you start, and follow the instructions it returns. Relative paths in a skill are relative to its base directory.${listed}`,
		inputSchema,
		execute: guarded(inputSchema, async (input) => {
			const result = await session.activate(String(input.name), input.reason ? { reason: String(input.reason) } : {});
			if (!result.ok) return refusal(result.message, { ...result });
			const { text: _text, fullText, body: _body, ...details } = result;
			return { content: fullText, isError: false, protected: true, details: { ...details } };
		}),
	};
}

function readResourceTool(session: SkillSession, names: string[]): SkillTool {
	const inputSchema: JsonSchema = {
		type: "object",
		properties: {
			name: { type: "string", enum: names, description: "The skill the file belongs to." },
			path: { type: "string", description: "The file's path relative to the skill folder, e.g. references/guide.md." },
			offset: { type: "integer", minimum: 1, description: "First line to read (1-based). Default 1." },
			limit: { type: "integer", minimum: 1, description: "Most lines to read. Default 2000." },
		},
		required: ["name", "path"],
		additionalProperties: false,
	};
	return {
		name: "read_skill_resource",
		description:
			"Read one file bundled with a skill (a reference, script or asset), by its path relative to the skill folder. Long files come in pages: read again with the offset given at the end.",
		inputSchema,
		execute: guarded(inputSchema, async (input) => {
			const paging = {
				...(input.offset !== undefined ? { offset: Number(input.offset) } : {}),
				...(input.limit !== undefined ? { limit: Number(input.limit) } : {}),
			};
			const result = await session.readResource(String(input.name), String(input.path), paging);
			if (!result.ok) return refusal(result.message, { ...result });
			const { content, ...details } = result;
			return { content, isError: false, protected: true, details: { ...details } };
		}),
	};
}

function listSkillsTool(session: SkillSession): SkillTool {
	const inputSchema: JsonSchema = { type: "object", properties: {}, additionalProperties: false };
	return {
		name: "list_skills",
		description: "List every available skill with its description, and which ones are already loaded.",
		inputSchema,
		execute: guarded(inputSchema, async () => {
			const active = new Set(session.active);
			const skills = session.index.catalogSkills.map((s) => ({
				name: s.name,
				description: s.description,
				active: active.has(s.name),
			}));
			const lines = skills.map((s) => `- ${s.name}${s.active ? " (loaded)" : ""}: ${s.description}`);
			return { content: lines.join("\n"), isError: false, protected: false, details: { skills } };
		}),
	};
}

function searchSkillsTool(session: SkillSession): SkillTool {
	const skills = session.index.catalogSkills;
	const index = new Bm25Index(
		skills.map((s) => ({
			id: s.name,
			fields: [
				{ text: s.name, weight: 3 },
				{ text: s.description, weight: 1 },
			],
		})),
	);
	const byName = new Map(skills.map((s) => [s.name, s]));
	const inputSchema: JsonSchema = {
		type: "object",
		properties: {
			query: { type: "string", description: "What the task is about, in a few words." },
			limit: { type: "integer", minimum: 1, maximum: 20, description: "Most results. Default 5." },
		},
		required: ["query"],
		additionalProperties: false,
	};
	return {
		name: "search_skills",
		description:
			"Search the skills by topic when the list you were given is incomplete. Returns names and descriptions; load one with load_skill.",
		inputSchema,
		execute: guarded(inputSchema, async (input) => {
			const hits = index.search(String(input.query), input.limit === undefined ? 5 : Number(input.limit));
			const results = hits.map((hit) => ({
				name: hit.id,
				description: byName.get(hit.id)?.description ?? "",
				score: round(hit.score),
			}));
			const content =
				results.length === 0
					? `No skill matches '${input.query}'.`
					: results.map((r) => `- ${r.name}: ${r.description}`).join("\n");
			return { content, isError: false, protected: false, details: { results } };
		}),
	};
}

/** Validates input against the schema first; invalid input is an error result that says what to fix. */
function guarded(
	schema: JsonSchema,
	run: (input: Record<string, unknown>) => Promise<ToolResult>,
): (input: unknown) => Promise<ToolResult> {
	return async (input) => {
		const problems = validateInput(schema, input ?? {});
		if (problems.length > 0) return refusal(`Invalid input: ${problems.join("; ")}`, { problems });
		return run((input ?? {}) as Record<string, unknown>);
	};
}

function refusal(message: string, details: Record<string, unknown>): ToolResult {
	const hints: string[] = [];
	const closest = details.closest as string[] | undefined;
	if (closest?.length) hints.push(`Closest names: ${closest.join(", ")}.`);
	return { content: [message, ...hints].join(" "), isError: true, protected: false, details };
}

function round(value: number): number {
	return Math.round(value * 1000) / 1000;
}
