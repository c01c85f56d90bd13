import { Bm25Index } from "../tools/index.ts";
import { type AgentTool, errorResult, textResult } from "./agent-tool.ts";
import type { AgentJsonSchema } from "./json-schema.ts";

/** The name of the tool that runs a deferred tool. */
export const CALL_DEFERRED_TOOL = "call_deferred_tool";

/**
 * `tool_search` over the deferred tools (BM25 over name and description; returns names, argument lists and
 * one-line summaries) and `call_deferred_tool`, whose calls the agent unwraps: the inner tool is checked against
 * its full schema and authorized under its own name before it runs.
 */
export function createDeferredTools(deferred: readonly AgentTool[]): AgentTool[] {
	if (deferred.length === 0) return [];
	const index = new Bm25Index(
		deferred.map((tool) => ({
			id: tool.name,
			fields: [
				{ text: tool.name, weight: 3 },
				{ text: tool.description, weight: 1 },
			],
		})),
	);
	const byName = new Map(deferred.map((tool) => [tool.name, tool]));
	const search: AgentTool = {
		name: "tool_search",
		description: `Search ${deferred.length} more tools that are not listed, by what you need to do. Returns names, arguments and summaries; run one with ${CALL_DEFERRED_TOOL}.`,
		inputSchema: {
			type: "object",
			properties: {
				query: { type: "string", minLength: 1, description: "What the tool should do, in a few words." },
				limit: { type: "integer", minimum: 1, maximum: 20, description: "Most results. Default 5." },
			},
			required: ["query"],
			additionalProperties: false,
		},
		spec: { risk: "safe" },
		async execute(input) {
			const hits = index.search(String(input.query), Number(input.limit ?? 5));
			if (hits.length === 0) return textResult(`No tool matches '${input.query}'.`, { results: [] });
			const lines = hits.map((hit) => {
				const tool = byName.get(hit.id) as AgentTool;
				return `- ${signature(tool.name, tool.inputSchema)}: ${firstLine(tool.description)}`;
			});
			return textResult(lines.join("\n"), { results: hits.map((hit) => hit.id) });
		},
	};
	const call: AgentTool = {
		name: CALL_DEFERRED_TOOL,
		description: "Run a tool found with tool_search: give its name and its arguments as an object.",
		inputSchema: {
			type: "object",
			properties: {
				name: { type: "string", enum: deferred.map((tool) => tool.name), description: "The tool's name." },
				arguments: { type: "object", description: "The tool's arguments." },
			},
			required: ["name"],
			additionalProperties: false,
		},
		spec: { risk: "safe" },
		async execute() {
			// The agent runs the inner tool itself (schema check and permission gate first); reaching here is a bug.
			return errorResult(`${CALL_DEFERRED_TOOL} must be dispatched by the agent`);
		},
	};
	return [search, call];
}

/** `name(a, b?)`: the tool and its arguments, optional ones marked. */
function signature(name: string, schema: AgentJsonSchema): string {
	const required = new Set(schema.required ?? []);
	const args = Object.keys(schema.properties ?? {}).map((key) => (required.has(key) ? key : `${key}?`));
	return `${name}(${args.join(", ")})`;
}

function firstLine(text: string): string {
	const line = text.split("\n")[0] ?? "";
	return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
