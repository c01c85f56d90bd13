import type { JsonSchema } from "./schema.ts";
import type { SkillTool, ToolResult } from "./tool.ts";

/** A tool for OpenAI Chat Completions (`tools` in `chat.completions.create`). */
export interface OpenAIChatTool {
	type: "function";
	function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool for the OpenAI Responses API (`tools` in `responses.create`). */
export interface OpenAIResponsesTool {
	type: "function";
	name: string;
	description: string;
	parameters: Record<string, unknown>;
	strict: false;
}

/** A tool for the Anthropic Messages API (`tools` in `messages.create`). */
export interface AnthropicTool {
	name: string;
	description: string;
	input_schema: { type: "object"; [key: string]: unknown };
}

/** OpenAI Chat Completions function tools. */
export function toOpenAIChatTools(tools: readonly SkillTool[]): OpenAIChatTool[] {
	return tools.map((tool) => ({
		type: "function",
		function: { name: tool.name, description: tool.description, parameters: schemaObject(tool.inputSchema) },
	}));
}

/** OpenAI Responses API function tools (not strict: some inputs are optional). */
export function toOpenAIResponsesTools(tools: readonly SkillTool[]): OpenAIResponsesTool[] {
	return tools.map((tool) => ({
		type: "function",
		name: tool.name,
		description: tool.description,
		parameters: schemaObject(tool.inputSchema),
		strict: false,
	}));
}

/** Anthropic Messages API tools. */
export function toAnthropicTools(tools: readonly SkillTool[]): AnthropicTool[] {
	return tools.map((tool) => ({
		name: tool.name,
		description: tool.description,
		input_schema: { ...schemaObject(tool.inputSchema), type: "object" },
	}));
}

/** The AI SDK's `jsonSchema` helper, passed in so skillset does not depend on the `ai` package. */
export type JsonSchemaFactory<Schema> = (schema: Record<string, unknown>) => Schema;

/** A Vercel AI SDK tool: description, input schema and an `execute` that returns the text for the model. */
export interface VercelAITool<Schema> {
	description: string;
	inputSchema: Schema;
	/** Runs the skill tool and returns its text for the model (refusals included, as text). */
	execute: (input: unknown) => Promise<string>;
}

/**
 * Tools for the Vercel AI SDK's `generateText`/`streamText` (`tools: toVercelAITools(tools, { jsonSchema })`,
 * with `jsonSchema` imported from `ai`). `execute` returns the text for the model; refusals come back as text too,
 * so the model can correct itself.
 */
export function toVercelAITools<Schema>(
	tools: readonly SkillTool[],
	options: { jsonSchema: JsonSchemaFactory<Schema> },
): Record<string, VercelAITool<Schema>> {
	const result: Record<string, VercelAITool<Schema>> = {};
	for (const tool of tools) {
		result[tool.name] = {
			description: tool.description,
			inputSchema: options.jsonSchema(schemaObject(tool.inputSchema)),
			execute: async (input) => (await tool.execute(input)).content,
		};
	}
	return result;
}

/**
 * Runs a tool call by name with its arguments (an object, or the JSON string OpenAI sends). An unknown tool or
 * arguments that are not JSON give an error result, not an exception.
 */
export async function executeToolCall(tools: readonly SkillTool[], name: string, args: unknown): Promise<ToolResult> {
	const tool = tools.find((t) => t.name === name);
	if (!tool) {
		const known = tools.map((t) => t.name).join(", ");
		return { content: `No tool is named '${name}'. Tools: ${known}.`, isError: true, protected: false, details: {} };
	}
	let input = args;
	if (typeof args === "string") {
		try {
			input = args.trim() === "" ? {} : JSON.parse(args);
		} catch {
			return { content: "The arguments are not valid JSON.", isError: true, protected: false, details: { args } };
		}
	}
	return tool.execute(input);
}

/** An Anthropic `tool_result` content block for a result. */
export function toAnthropicToolResult(
	toolUseId: string,
	result: ToolResult,
): { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean } {
	return { type: "tool_result", tool_use_id: toolUseId, content: result.content, is_error: result.isError };
}

/** An OpenAI Chat Completions `tool` message for a result. */
export function toOpenAIToolMessage(
	toolCallId: string,
	result: ToolResult,
): { role: "tool"; tool_call_id: string; content: string } {
	return { role: "tool", tool_call_id: toolCallId, content: result.content };
}

/** A plain-object copy of a schema, as the SDKs take it. */
function schemaObject(schema: JsonSchema): Record<string, unknown> {
	return structuredClone(schema) as unknown as Record<string, unknown>;
}
