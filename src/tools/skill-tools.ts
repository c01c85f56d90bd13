import { type Catalog, createSkillSearch, listText, renderSearchResults } from "../catalog/index.ts";
import type { SkillSession } from "../runtime/index.ts";
import { isValidSkillName } from "../skill/index.ts";
import { guarded } from "./guarded.ts";
import { listSkillsTool } from "./list-skills.ts";
import type { JsonSchema } from "./schema.ts";
import type { SkillTool, SkillToolsOptions, ToolResult } from "./tool.ts";

/** Spec names in ASCII: what the schema accepts besides the enum, so that search results can be loaded. */
const NAME_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$";
/** At most this many "did you mean" names. */
const CLOSEST = 5;

/**
 * The skill tools for a session: `load_skill` (its name an enum of the names in the catalog the model saw, and
 * any other spec name, so search results load), `read_skill_resource`, `list_skills` (paged, within the catalog's
 * budget) and `search_skills` (BM25 over names, descriptions and `read_when` triggers, for catalogs the budget
 * cut). With no skills there are no tools: do not register any.
 */
export function createSkillTools(session: SkillSession, options: SkillToolsOptions = {}): SkillTool[] {
	const skills = session.index.catalogSkills;
	if (skills.length === 0) return [];
	const shown = options.catalog ? options.catalog.entries.map((e) => e.name) : skills.map((skill) => skill.name);
	// Only spec names reach the enum: anything else could carry markup or line breaks into the tool schema.
	const names = shown.filter((name) => isValidSkillName(name) && /^[\p{L}\p{N}-]+$/u.test(name));
	const include = new Set(options.include ?? ["load_skill", "read_skill_resource", "list_skills", "search_skills"]);
	const tools: SkillTool[] = [];
	const describe = options.describeCatalog ?? true;
	if (include.has("load_skill")) tools.push(loadSkillTool(session, names, describe ? options.catalog : undefined));
	if (include.has("read_skill_resource")) tools.push(readResourceTool(session, names));
	if (include.has("list_skills")) tools.push(listSkillsTool(session, options));
	if (include.has("search_skills")) tools.push(searchSkillsTool(session, options.catalog));
	return tools;
}

/** The `name` input: an enum of the listed names, or any other spec name (search results must be loadable). */
function nameSchema(names: readonly string[], description: string): JsonSchema {
	const other: JsonSchema = { type: "string", pattern: NAME_PATTERN, maxLength: 64 };
	if (names.length === 0) return { ...other, description };
	return { type: "string", description, anyOf: [{ type: "string", enum: [...names] }, other] };
}

/** What `execute` checks: the name is any string, and an unknown one gets "did you mean" from the session. */
function lenientNames(schema: JsonSchema): JsonSchema {
	const properties = { ...schema.properties, name: { type: "string" } as JsonSchema };
	return { ...schema, properties };
}

function loadSkillTool(session: SkillSession, names: string[], catalog: Catalog | undefined): SkillTool {
	const inputSchema: JsonSchema = {
		type: "object",
		properties: {
			name: nameSchema(names, "The skill's name: one listed, or one found with search_skills."),
			reason: { type: "string", description: "One line: why this skill fits the task." },
		},
		required: ["name"],
		additionalProperties: false,
	};
	const listed = catalog?.text ? `\n\nAvailable skills:\n${catalog.text}` : "";
	return {
		name: "load_skill",
		description: `Load a skill's instructions. Call this when a task matches a skill's description, before you start, and follow the instructions it returns. Relative paths in a skill are relative to its base directory. Not every skill may be listed: use search_skills to find others by topic, then load them by name.${listed}`,
		inputSchema,
		execute: guarded(lenientNames(inputSchema), async (input) => {
			const result = await session.activate(String(input.name), input.reason ? { reason: String(input.reason) } : {});
			if (!result.ok) return refusal(session, result.message, { ...result });
			const { text: _text, fullText, body: _body, ...details } = result;
			return { content: fullText, isError: false, protected: true, details: { ...details } };
		}),
	};
}

function readResourceTool(session: SkillSession, names: string[]): SkillTool {
	const inputSchema: JsonSchema = {
		type: "object",
		properties: {
			name: nameSchema(names, "The skill the file belongs to."),
			path: { type: "string", description: "The file's path relative to the skill folder, e.g. references/guide.md." },
			offset: { type: "integer", minimum: 1, description: "First line to read (1-based). Default 1." },
			column: {
				type: "integer",
				minimum: 1,
				description: "Where to start in the first line, for a long line cut by the last page. Default 1.",
			},
			limit: { type: "integer", minimum: 1, description: "Most lines to read. Default 2000." },
		},
		required: ["name", "path"],
		additionalProperties: false,
	};
	return {
		name: "read_skill_resource",
		description:
			"Read one file bundled with a skill (a reference, script or asset), by its path relative to the skill folder. Long files come in pages and very long lines in parts: read again with the offset (and column) given at the end.",
		inputSchema,
		execute: guarded(lenientNames(inputSchema), async (input) => {
			const paging = {
				...(input.offset !== undefined ? { offset: Number(input.offset) } : {}),
				...(input.column !== undefined ? { column: Number(input.column) } : {}),
				...(input.limit !== undefined ? { limit: Number(input.limit) } : {}),
			};
			const result = await session.readResource(String(input.name), String(input.path), paging);
			if (!result.ok) return refusal(session, result.message, { ...result });
			const { content, ...details } = result;
			return { content, isError: false, protected: true, details: { ...details } };
		}),
	};
}

function searchSkillsTool(session: SkillSession, catalog: Catalog | undefined): SkillTool {
	const search = createSkillSearch(session.index);
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
		description: `Search the skills by topic when the list you were given is incomplete. Returns names and descriptions; load one with load_skill.${unlisted(catalog)}`,
		inputSchema,
		execute: guarded(inputSchema, async (input) => {
			const query = String(input.query);
			const results = search(query, input.limit === undefined ? 5 : Number(input.limit));
			return { content: renderSearchResults(results, query), isError: false, protected: false, details: { results } };
		}),
	};
}

/** What the catalog did not describe, as a sentence for search_skills' description; empty when it described all. */
function unlisted(catalog: Catalog | undefined): string {
	if (!catalog) return "";
	const { named, omitted } = catalog.report;
	const parts = [
		...(named.length > 0 ? [`${named.length} listed by name only`] : []),
		...(omitted.length > 0 ? [`${omitted.length} not listed at all`] : []),
	];
	if (parts.length === 0) return "";
	const total = named.length + omitted.length;
	return ` ${total} skill${total === 1 ? " is" : "s are"} not described in the list (${parts.join(", ")}): search finds them.`;
}

/**
 * A refusal as a result. An unknown name gets at most five close names and a pointer to search_skills, never the
 * whole list; text from the model's input is folded before it is echoed.
 */
function refusal(session: SkillSession, message: string, details: Record<string, unknown>): ToolResult {
	if (details.code !== "unknown" || details.closest === undefined) {
		return { content: listText(message), isError: true, protected: false, details };
	}
	const { available: _available, ...rest } = details;
	const name = String(details.name ?? "");
	const closest = session.index.closest(name, CLOSEST);
	const hint = closest.length > 0 ? ` Did you mean ${closest.map((c) => `'${listText(c)}'`).join(", ")}?` : "";
	const content = `No skill is named '${listText(name)}'.${hint} Use search_skills to find skills by topic.`;
	return { content, isError: true, protected: false, details: { ...rest, closest } };
}
