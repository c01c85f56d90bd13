import { dirname } from "node:path";
import type { Discovery } from "../discovery/index.ts";
import { createPolicy, type Policy, type SandboxAvailability, type ToolSpec } from "../policy/index.ts";
import type { SkillSession } from "../runtime/index.ts";
import type { AgentOptions, TurnOptions } from "./agent-options.ts";
import type { AgentTool, ShellExecutor } from "./agent-tool.ts";
import { DEFAULT_RESULT_LIMIT_CHARS } from "./context.ts";
import { createSkillTool } from "./create-skill-tool.ts";
import { createDeferredTools } from "./deferred-tools.ts";
import { type CallOutcome, runToolCall } from "./dispatch.ts";
import type { AgentLoopEvent } from "./events.ts";
import { createFileTools } from "./file-tools.ts";
import type { ModelToolCall } from "./model.ts";
import { createShellTool, type ShellToolOptions } from "./shell-tool.ts";

/** What the agent's tools and their gate are built from. */
export interface ToolHost {
	options: AgentOptions;
	workspace: string;
	/** Where `create_skill` writes. */
	saveRoot: string;
	discovery: Discovery;
	session: SkillSession;
	shell: ShellExecutor;
	sandbox: SandboxAvailability;
	/** Every discovery root, kept read-only by the policy. */
	roots: string[];
	/** Files of the host's own that no tool may touch (the event log). */
	hostFiles?: string[];
	/** The skill tools of the current catalog. */
	skillTools(): AgentTool[];
	emit(event: AgentLoopEvent): void;
}

/**
 * Tool dispatch for one agent: the tools it offers, the permission policy over them, the user's "always" grants,
 * and running a call the model made behind the gate (`dispatch.ts`, `gate.ts`).
 */
export class AgentTools {
	readonly policy: Policy;
	/** The "always" grants of this conversation, for `save`. */
	readonly grants: string[] = [];
	readonly #host: ToolHost;
	readonly #own: AgentTool[];
	readonly #deferred: Map<string, AgentTool>;

	constructor(host: ToolHost) {
		this.#host = host;
		const { options } = host;
		// Read-only paths and network come from the policy (ceiling and active manifests), per command.
		const own = buildOwnTools(host, () => this.policy.sandboxOptions(host.session));
		this.#own = own.tools;
		this.#deferred = own.deferred;
		const specs: Record<string, ToolSpec> = {};
		for (const tool of [...this.#own, ...this.#deferred.values()]) specs[tool.name] = tool.spec ?? { risk: "exec" };
		this.policy = createPolicy({
			workspace: host.workspace,
			tools: specs,
			sandbox: host.sandbox,
			skillRoots: host.roots,
			...(host.hostFiles ? { hostFiles: host.hostFiles } : {}),
			...(options.runsLater ? { runsLater: options.runsLater } : {}),
			...(options.ceiling ? { ceiling: options.ceiling } : {}),
		});
	}

	/** The tools the model can see: the skill tools, then the agent's own. */
	visible(): AgentTool[] {
		return [...this.#host.skillTools(), ...this.#own];
	}

	/** Runs one tool call the model made, behind the permission gate. */
	run(call: ModelToolCall, signal: AbortSignal, options: TurnOptions): Promise<CallOutcome> {
		const host = this.#host;
		return runToolCall(call, {
			tools: this.visible(),
			deferred: this.#deferred,
			gate: {
				policy: this.policy,
				session: host.session,
				workspace: host.workspace,
				...(host.options.confirm ? { confirm: host.options.confirm } : {}),
				...(host.options.yes ? { yes: true } : {}),
				...(host.options.deny ? { deny: host.options.deny } : {}),
				emit: host.emit,
				remember: (pattern) => this.grants.push(pattern),
			},
			workspace: host.workspace,
			signal,
			resultLimit: host.options.resultLimitChars ?? DEFAULT_RESULT_LIMIT_CHARS,
			emit: host.emit,
			...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
		});
	}

	/** Restores a saved "always" grant as the exact call it was: an edited file cannot make it a wildcard. */
	restoreGrant(pattern: string): void {
		this.policy.grant(this.#host.session, pattern, "always", { exact: true });
		this.grants.push(pattern);
	}
}

/** The agent's own tools (as the model sees them) and the host's deferred tools (found with `tool_search`). */
interface OwnTools {
	tools: AgentTool[];
	deferred: Map<string, AgentTool>;
}

/**
 * The tools the agent brings besides the skill tools: the file tools, `run_shell`, `create_skill` (asked about when
 * the audit flags the new skill), the host's direct tools, and `tool_search` / `call_deferred_tool` over the host's
 * deferred ones.
 */
function buildOwnTools(host: ToolHost, sandboxOptions: ShellToolOptions["sandboxOptions"]): OwnTools {
	const { options } = host;
	const shell = createShellTool({ execute: host.shell, sandboxOptions });
	const create = createSkillTool({
		root: host.saveRoot,
		...(options.saveSkills === undefined || options.saveSkills === "workspace" ? { within: host.workspace } : {}),
		approve: async (name, findings) => {
			const args = { name, findings: findings.map((f) => `${f.rule} (${f.file}${f.line ? `:${f.line}` : ""})`) };
			const decision = { rule: "audit-P1", reason: "the audit flagged the new skill" };
			return (await askDirect(host, "create_skill", args, decision)).allowed;
		},
		onCreated: (name, dir) => host.emit({ type: "agent.skill.created", name, dir }),
		existing: async (name) => {
			const { index } = await host.discovery.scan();
			const same = index.skills.find((skill) => skill.id === name || skill.name === name);
			return same && dirname(same.realFile);
		},
	});
	const deferred = new Map<string, AgentTool>();
	const given = options.tools ?? [];
	for (const tool of given) {
		if (tool.deferred) deferred.set(tool.name, tool);
	}
	const direct = given.filter((tool) => !tool.deferred);
	const tools = [...createFileTools(), shell, create, ...direct, ...createDeferredTools([...deferred.values()])];
	return { tools, deferred };
}

/** Asks the user directly (for audit findings, which are not a policy decision). */
async function askDirect(
	host: ToolHost,
	tool: string,
	args: Record<string, unknown>,
	decision: { rule: string; reason: string },
): Promise<{ allowed: boolean }> {
	const answer = (value: "once" | "deny", by: "user" | "yes-flag" | "no-terminal") => {
		host.emit({ type: "permission.answered", tool, rule: decision.rule, answer: value, by });
		return { allowed: value === "once" };
	};
	if (host.options.yes) return answer("once", "yes-flag");
	if (!host.options.confirm) return answer("deny", "no-terminal");
	const request = { tool, args, rule: decision.rule, reason: decision.reason, pattern: tool, grantable: false };
	const reply = await host.options.confirm(request);
	return answer(reply === "deny" ? "deny" : "once", "user");
}
