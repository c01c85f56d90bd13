import { relative, resolve, sep } from "node:path";
import {
	type Decision,
	escapeGlob,
	matchesDenyRule,
	matchesPattern,
	type Policy,
	realOrResolved,
	resolvePath,
	type ToolSpec,
} from "../policy/index.ts";
import type { SkillSession } from "../runtime/index.ts";
import type { AgentLoopEvent } from "./events.ts";

/** The user's answer to a permission question. */
export type PermissionAnswer = "once" | "always" | "deny";

/** What the user is asked: the exact call, the rule that asked and why, and what "always" would allow. */
export interface PermissionRequest {
	tool: string;
	args: Record<string, unknown>;
	rule: string;
	reason: string;
	/** The grant an "always" answer records, e.g. `run_shell(npm test)`. */
	pattern: string;
	/**
	 * Whether "always" can apply: only to calls the policy asks about for their risk. A rule that asks about
	 * every call (no sandbox, a command it cannot account for) asks again, so "always" counts as once.
	 */
	grantable: boolean;
}

/** Asks the user; absent when there is no terminal. */
export type Confirm = (request: PermissionRequest) => Promise<PermissionAnswer>;

/** What the gate needs. */
export interface GateOptions {
	policy: Policy;
	session: SkillSession;
	workspace: string;
	confirm?: Confirm;
	/** Answer `ask` with yes (never a hard-rule deny, which is not a question). */
	yes?: boolean;
	emit: (event: AgentLoopEvent) => void;
	/** Tool patterns the host always denies (`--deny`), checked after the hard rules. */
	deny?: readonly string[];
	/** Records an "always" grant so a saved conversation can restore it. */
	remember: (pattern: string) => void;
}

/** The outcome: run the call or not, and the decision that said so. */
export interface GateResult {
	allowed: boolean;
	decision: Decision;
}

/**
 * Decides one call before it runs: the policy's `authorize` (hard rules, ceiling, manifests, risk), then the
 * host's `deny` patterns, then, for `ask`, the user (once, always for this session, or deny), `--yes`, or deny
 * when nobody can answer. Every decision is an event.
 */
export async function gateCall(
	tool: string,
	args: Record<string, unknown>,
	spec: ToolSpec,
	options: GateOptions,
): Promise<GateResult> {
	let decision = options.policy.authorize({ tool, args }, { session: options.session });
	const denied = decision.decision === "deny" ? undefined : deniedBy(tool, args, spec, options);
	if (denied) {
		decision = { decision: "deny", rule: "ceiling-deny", reason: `the host denies ${denied}` };
		options.session.emit({ type: "permission.decision", tool, decision: "deny", rule: decision.rule });
	}
	if (decision.decision !== "ask") return { allowed: decision.decision === "allow", decision };
	const pattern = grantPattern(tool, args, spec, options.workspace);
	const answered = (answer: PermissionAnswer, by: "user" | "yes-flag" | "no-terminal"): GateResult => {
		options.emit({ type: "permission.answered", tool, rule: decision.rule, answer, by });
		return { allowed: answer !== "deny", decision };
	};
	if (options.yes) return answered("once", "yes-flag");
	if (!options.confirm) return answered("deny", "no-terminal");
	const grantable = decision.rule === "needs-approval";
	const request = { tool, args, rule: decision.rule, reason: decision.reason, pattern, grantable };
	const answer = await options.confirm(request);
	if (answer === "always" && grantable) {
		options.policy.grant(options.session, pattern, "always", { exact: true });
		options.remember(pattern);
	}
	return answered(answer, "user");
}

/** The first `deny` pattern that covers the call. */
function deniedBy(
	tool: string,
	args: Record<string, unknown>,
	spec: ToolSpec,
	options: GateOptions,
): string | undefined {
	if (!options.deny?.length) return undefined;
	const command =
		spec.commandArg && typeof args[spec.commandArg] === "string" ? String(args[spec.commandArg]) : undefined;
	// Each path as written and as the tool will reach it (links resolved, as the policy does): any match denies.
	let paths: string[];
	try {
		const workspace = realOrResolved(options.workspace);
		paths = (spec.pathArgs ?? [])
			.map((key) => args[key])
			.filter((value): value is string => typeof value === "string")
			.flatMap((path) => [
				relative(options.workspace, resolve(options.workspace, path)),
				relative(workspace, resolvePath(workspace, path)),
			])
			.map((path) => path.split(sep).join("/"));
	} catch {
		return "a call whose path cannot be resolved"; // a link loop made after the policy's check: fail closed
	}
	const subject = { tool, ...(command !== undefined ? { command } : {}), paths };
	return options.deny.find((pattern) => {
		// A command is matched by what it runs, in any spelling (see matchesDenyRule).
		if (command !== undefined) return matchesDenyRule(pattern, subject);
		if (paths.length > 0) return paths.some((path) => matchesPattern(pattern, { ...subject, paths: [path] }));
		return matchesPattern(pattern, subject);
	});
}

/**
 * The pattern an "always" answer records: the exact command, or the path with its glob characters escaped (the
 * grant is exact either way), or the tool when the call has neither.
 */
export function grantPattern(tool: string, args: Record<string, unknown>, spec: ToolSpec, workspace: string): string {
	if (spec.commandArg && typeof args[spec.commandArg] === "string") return `${tool}(${args[spec.commandArg]})`;
	const path = spec.pathArgs?.map((key) => args[key]).find((value) => typeof value === "string");
	if (typeof path === "string") {
		// The file the call will reach (links resolved, as the policy and the file tools do), not a lexical reading.
		let reached: string;
		try {
			const real = realOrResolved(workspace);
			reached = relative(real, resolvePath(real, path));
		} catch {
			reached = relative(workspace, resolve(workspace, path));
		}
		return `${tool}(${escapeGlob(reached.split(sep).join("/"))})`;
	}
	return tool;
}
