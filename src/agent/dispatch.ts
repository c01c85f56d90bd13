import type { ToolSpec } from "../policy/index.ts";
import type { ToolResult } from "../tools/index.ts";
import type { Refusal } from "./agent-options.ts";
import { type AgentTool, errorResult, textResult } from "./agent-tool.ts";
import { CALL_DEFERRED_TOOL } from "./deferred-tools.ts";
import type { AgentLoopEvent } from "./events.ts";
import { type GateOptions, gateCall } from "./gate.ts";
import { validateJson } from "./json-schema.ts";
import type { ModelToolCall } from "./model.ts";

/** What running one call needs from the agent. */
export interface DispatchContext {
	/** The tools the model can see. */
	tools: readonly AgentTool[];
	deferred: ReadonlyMap<string, AgentTool>;
	gate: GateOptions;
	workspace: string;
	signal: AbortSignal;
	resultLimit: number;
	emit: (event: AgentLoopEvent) => void;
	onToolCall?: (name: string, args: Record<string, unknown>) => void;
}

/** The result of one call, whether the gate refused it, and the tool that ran (the inner one for deferred calls). */
export interface CallOutcome {
	result: ToolResult;
	refused: boolean;
	tool: string;
	/** What the gate refused, for the turn's result. */
	refusal?: Refusal;
}

/**
 * Runs one tool call the model made: parse the arguments, find the tool (unwrapping `call_deferred_tool`), check
 * the arguments against the tool's full schema, pass the permission gate, then execute. Every failure is a result
 * the model can act on; nothing here throws.
 */
export async function runToolCall(call: ModelToolCall, context: DispatchContext): Promise<CallOutcome> {
	const fail = (content: string, tool = call.name): CallOutcome => ({
		result: errorResult(content),
		refused: false,
		tool,
	});
	let args = parseArguments(call.arguments);
	if (typeof args === "string") return fail(`The arguments of ${call.name} are not a JSON object: ${args}`);
	let tool = context.tools.find((t) => t.name === call.name);
	if (!tool) {
		const names = context.tools.map((t) => t.name);
		return fail(`There is no tool called '${call.name}'. Tools: ${names.join(", ")}.`);
	}
	if (tool.name === CALL_DEFERRED_TOOL) {
		const problems = validateJson(tool.inputSchema, args, "arguments");
		if (problems.length > 0) return fail(`Invalid arguments for ${CALL_DEFERRED_TOOL}: ${problems.join("; ")}`);
		const inner = parseArguments(args.arguments ?? {});
		if (typeof inner === "string") return fail(`The arguments for ${String(args.name)} are not an object: ${inner}`);
		tool = context.deferred.get(String(args.name)) as AgentTool;
		args = inner;
	}
	const name = tool.name;
	const problems = validateJson(tool.inputSchema, args, "arguments");
	if (problems.length > 0)
		return fail(
			`Invalid arguments for ${name}, nothing was run: ${problems.join("; ")}. Fix them and call again.`,
			name,
		);
	const spec = tool.spec ?? { risk: "exec" };
	const gate = await gateCall(name, args, spec, context.gate);
	if (!gate.allowed) {
		const { rule, reason } = gate.decision;
		const content = `Refused by the permission policy (rule ${rule}): ${reason}. Do not try another way around this; tell the user what you needed.`;
		const refusal = { tool: name, target: targetOf(args, spec), rule };
		return { result: errorResult(content, { rule }), refused: true, tool: name, refusal };
	}
	context.onToolCall?.(name, args);
	return { result: await execute(tool, args, context), refused: false, tool: name };
}

async function execute(tool: AgentTool, args: Record<string, unknown>, context: DispatchContext): Promise<ToolResult> {
	const started = performance.now();
	let result: ToolResult;
	try {
		const output = await tool.execute(args, { workspace: context.workspace, signal: context.signal });
		result = typeof output === "string" ? textResult(output) : output;
	} catch (error) {
		result = errorResult(`${tool.name} failed: ${(error as Error).message ?? String(error)}`);
	}
	context.emit({
		type: "agent.tool.called",
		tool: tool.name,
		ok: !result.isError,
		ms: Math.round(performance.now() - started),
		bytes: Buffer.byteLength(result.content),
		clipped: !result.protected && result.content.length > context.resultLimit,
	});
	return result;
}

/** What a call was aimed at, for the user: its command, its first path, or a name it names. */
function targetOf(args: Record<string, unknown>, spec: ToolSpec): string {
	const keys = [...(spec.commandArg ? [spec.commandArg] : []), ...(spec.pathArgs ?? []), "name"];
	const value = keys.map((key) => args[key]).find((found) => typeof found === "string");
	return typeof value === "string" ? value : "";
}

/** Parses a tool call's arguments: an object, or the reason it is not one. Empty text means no arguments. */
function parseArguments(raw: unknown): Record<string, unknown> | string {
	let value = raw;
	if (typeof raw === "string") {
		if (raw.trim() === "") return {};
		try {
			value = JSON.parse(raw);
		} catch (error) {
			return (error as Error).message;
		}
	}
	if (value === null || typeof value !== "object" || Array.isArray(value)) return "expected an object";
	return value as Record<string, unknown>;
}
