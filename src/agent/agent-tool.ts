import type { ToolSpec } from "../policy/index.ts";
import type { SandboxOptions, SandboxResult } from "../sandbox/index.ts";
import type { ToolResult } from "../tools/index.ts";
import type { AgentJsonSchema } from "./json-schema.ts";

/** What a tool's `execute` gets besides its input. */
export interface ToolContext {
	/** The workspace folder (absolute, real). */
	workspace: string;
	/** Aborted when the user cancels the turn. */
	signal: AbortSignal;
}

/**
 * A tool the agent offers the model: a name, a description, a JSON Schema for the input (checked before every
 * call), how the permission policy reads its calls, and `execute`. `deferred` tools are not sent to the model:
 * it finds them with `tool_search` and runs them with `call_deferred_tool`.
 */
export interface AgentTool {
	name: string;
	description: string;
	inputSchema: AgentJsonSchema;
	/** How `authorize` reads a call: risk, and which arguments are paths, a command or a URL. Default: exec risk. */
	spec?: ToolSpec;
	deferred?: boolean;
	/** Returns text, or a full result (text, error flag, details). Throwing is reported to the model as an error. */
	execute(input: Record<string, unknown>, context: ToolContext): Promise<string | ToolResult>;
}

/** The options and result of one shell command: the policy stage's sandbox types. */
export type ShellOptions = SandboxOptions;
/** What a shell command did. */
export type ShellResult = SandboxResult;

/** Runs one shell command; `runSandboxed` from the policy stage has this shape. */
export type ShellExecutor = (command: string, options: ShellOptions) => Promise<ShellResult>;

/** A plain successful result. */
export function textResult(content: string, details: Record<string, unknown> = {}): ToolResult {
	return { content, isError: false, protected: false, details };
}

/** An error result the model can act on. */
export function errorResult(content: string, details: Record<string, unknown> = {}): ToolResult {
	return { content, isError: true, protected: false, details };
}
