import {
	fromJsonSchema,
	type JsonSchemaType,
	type JsonSchemaValidator,
	type jsonSchemaValidator,
	type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { Catalog } from "../catalog/index.ts";
import type { SkillIndex } from "../discovery/index.ts";
import { createSession } from "../runtime/index.ts";
import { createSkillTools, type JsonSchema, type SkillToolName, validateInput } from "../tools/index.ts";

/** A tool as every connection to one snapshot registers it: name, description, and the SDK's input schema. */
export interface ToolDefinition {
	name: SkillToolName;
	description: string;
	inputSchema: StandardSchemaWithJSON<unknown, unknown>;
	/** Changes exactly when the description or the schema does: a connection then updates the tool. */
	key: string;
}

/**
 * Checks tool arguments with the tools' own validator (the one their `execute` applies). It compiles nothing and
 * keeps nothing: the SDK's default validator compiles every schema object it is given into one process-wide cache,
 * so a server per request (2026-07-28) or per session grew the heap by about 25 KiB each time.
 */
const TOOL_INPUT_VALIDATOR: jsonSchemaValidator = {
	getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
		return (input) => {
			const problems = validateInput(schema as JsonSchema, input);
			if (problems.length > 0) return { valid: false, data: undefined, errorMessage: problems.join("; ") };
			return { valid: true, data: input as T, errorMessage: undefined };
		};
	},
};

/**
 * The skill tools of one snapshot, defined once and shared by every connection to it (the definitions depend on
 * the skills alone). Each connection runs them in its own session; a new snapshot brings new definitions, and the
 * old ones go with the old snapshot.
 */
export class SnapshotTools {
	readonly #index: SkillIndex;
	readonly #catalog: Catalog;
	#definitions: readonly ToolDefinition[] | undefined;

	/** `catalog` is the one in the instructions: `load_skill`'s enum lists the skills it describes, as the library's. */
	constructor(index: SkillIndex, catalog: Catalog) {
		this.#index = index;
		this.#catalog = catalog;
	}

	/** The definitions, made on first use (a server without tools never makes them). */
	get definitions(): readonly ToolDefinition[] {
		this.#definitions ??= createSkillTools(createSession(this.#index), {
			catalog: this.#catalog,
			// The instructions carry the catalog already: the tool description does not repeat it.
			describeCatalog: false,
		}).map((tool) => ({
			name: tool.name as SkillToolName,
			description: tool.description,
			inputSchema: fromJsonSchema(tool.inputSchema as JsonSchemaType, TOOL_INPUT_VALIDATOR),
			key: JSON.stringify([tool.description, tool.inputSchema]),
		}));
		return this.#definitions;
	}
}
