import { existsSync } from "node:fs";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { DEFAULT_CONVENTIONS, type IndexedSkill } from "../discovery/index.ts";
import { isInside, type SkillSession } from "../runtime/index.ts";
import { analyzeShell, type ShellAnalysis } from "../shell/index.ts";
import { type EffectivePermissions, effectivePermissions, type RemoteApproval, resolveApproval } from "./approval.ts";
import { boundaries, type PermissionCeiling, type Subject, shellNetworkAllowed } from "./bounds.ts";
import { realOrResolved, resolvePath } from "./paths.ts";
import { matchesExactly, matchesPattern } from "./patterns.ts";
import { protectedPaths } from "./protected-paths.ts";
import { resolveTransfer, runsLaterPart, transferRunsLater } from "./runs-later.ts";
import { DEFAULT_TOOL_SPECS, type ToolSpec } from "./tool-specs.ts";
import type { SkillApprovals } from "./trust.ts";

/**
 * Whether shell commands run inside an OS sandbox here, and with what. Declared by the gate, which reads it; the
 * `sandbox/` stage (after this one) finds the answer with `detectSandbox`.
 */
export type SandboxAvailability =
	| { available: true; kind: "bwrap"; path: string }
	| { available: false; reason: string };

/** A tool call to decide on. */
export interface ToolCall {
	tool: string;
	args?: Record<string, unknown>;
}

/** `allow`, `ask` the user, or `deny`, with the rule that decided and why. */
export interface Decision {
	decision: "allow" | "ask" | "deny";
	rule: string;
	reason: string;
}

/** Options for {@link createPolicy}. */
export interface PolicyOptions {
	/** The workspace folder: paths outside it are denied (except reads in active skills). */
	workspace: string;
	ceiling?: PermissionCeiling;
	/** Tool specs by name, added to (and overriding) the defaults. Tools without a spec are always `ask`. */
	tools?: Record<string, ToolSpec>;
	/**
	 * Whether shell tools run inside an OS sandbox: pass {@link detectSandbox}'s answer when the host runs them with
	 * {@link runSandboxed} and {@link Policy.sandboxOptions}. Absent or unavailable: every shell command is `ask`.
	 */
	sandbox?: SandboxAvailability;
	/**
	 * Skill roots kept read-only besides the roots of the index's skills and every conventional and preset skill
	 * folder of the workspace (pass all discovery roots, so that empty ones are covered too).
	 */
	skillRoots?: readonly string[];
	/**
	 * The user's approvals of remote skills (pass the {@link TrustStore}). Without an approval that matches a remote
	 * skill's current files, it counts as having the empty manifest and no pre-approvals, and no tool that can change
	 * things is allowed by anyone's `allowed-tools` while it is active.
	 */
	approvals?: SkillApprovals;
	/**
	 * Files the host writes while it runs (an event log, a transcript): no tool or shell command may write, replace
	 * or remove them, or a folder that holds them, and the sandbox keeps them read-only.
	 */
	hostFiles?: readonly string[];
	/**
	 * More files that decide what runs or loads later, besides the conventional ones (a config file named with
	 * `--config`, a lock file elsewhere, the trust store): writes to them or a folder holding them are never
	 * pre-approved by a skill.
	 */
	runsLater?: readonly string[];
}

/** How long a grant lasts: one call, or the rest of the session. */
export type GrantScope = "once" | "always";

/** A host's permission policy over sessions: decisions, and the user's grants per session. */
export interface Policy {
	/** Decides one tool call: allow, ask or deny, with the rule that decided and why. It never runs the call. */
	authorize(call: ToolCall, context: { session: SkillSession }): Decision;
	/**
	 * The user allowed calls matching `pattern` (e.g. `Bash(npm test:*)`) once or for the session. With `exact`, the
	 * pattern is no pattern: it covers only the very call it names (see {@link matchesExactly}); use it for grants
	 * built from a call's own text.
	 */
	grant(session: SkillSession, pattern: string, scope: GrantScope, options?: { exact?: boolean }): void;
	/**
	 * What to pass to {@link runSandboxed} for this session's shell commands: the skill roots and folders to keep
	 * read-only, and whether the ceiling and the active skills' manifests allow the network.
	 */
	sandboxOptions(session: SkillSession): { workspace: string; readOnly: string[]; network: boolean };
	/** Where a skill stands with the user's approvals (see {@link resolveApproval}): what to ask before activating it. */
	approval(skill: IndexedSkill): RemoteApproval;
}

interface Grant {
	pattern: string;
	scope: GrantScope;
	exact: boolean;
}

/**
 * Creates a policy. Hard rules come first and no grant overrides them: writes into any skill folder or skill root,
 * or to a folder that contains one, are denied (paths resolved one component at a time through links), and paths
 * outside the workspace are denied except reads inside an active skill's folder; a shell command's writes count
 * too. Then the host ceiling, then the active skills' manifests (which only narrow), both for tool arguments and
 * shell writes and network use. Then shell commands are `ask` without a sandbox or when the analysis cannot account
 * for what they write, and tools without a spec are `ask`. Then risk: safe and read tools are allowed, others are
 * allowed when an active skill's `allowed-tools` pre-approves them or the user granted them, and asked otherwise.
 * A remote skill without a matching approval (`approvals`) counts as the empty manifest with no pre-approvals, and
 * while one is active nothing that can change things is pre-approved: only the user's grants allow it.
 */
export function createPolicy(options: PolicyOptions): Policy {
	const workspace = realOrResolved(options.workspace);
	const specs = { ...DEFAULT_TOOL_SPECS, ...options.tools };
	const grants = new WeakMap<SkillSession, Grant[]>();
	const ceiling = options.ceiling ?? {};
	const hostFiles = (options.hostFiles ?? []).map((file) => resolvePath(workspace, file));
	const laterFiles = (options.runsLater ?? []).map((file) => resolvePath(workspace, file));
	const context = (session: SkillSession): Context => ({
		workspace,
		specs,
		ceiling,
		grants,
		sandboxed: options.sandbox?.available === true,
		approvals: options.approvals,
		hostFiles,
		laterFiles,
		...protectedPaths(session.index, workspace, options.skillRoots ?? []),
	});
	return {
		grant(session, pattern, scope, how) {
			grants.set(session, [...(grants.get(session) ?? []), { pattern, scope, exact: how?.exact === true }]);
		},
		approval: (skill) => resolveApproval(skill, options.approvals),
		sandboxOptions(session) {
			const manifests = session.activeSkills.map((skill) => effectivePermissions(skill, options.approvals).manifest);
			// Narrowing applies only when every active skill has a manifest; host lists cannot be enforced by an
			// OS sandbox, so only an unrestricted network is passed on.
			const narrowed = manifests.length > 0 && manifests.every((m) => m !== undefined);
			const network =
				shellNetworkAllowed(ceiling.network) &&
				(!narrowed || manifests.some((m) => m !== undefined && m.network === true));
			// Paths that do not exist yet are mounted read-only only for declared roots and the cross-client
			// conventions, since the sandbox has to create them (empty) to mount them.
			const created = new Set(
				[...(options.skillRoots ?? []), ...DEFAULT_CONVENTIONS].map((root) => resolvePath(workspace, root)),
			);
			const readOnly = [...context(session).protectedPaths, ...hostFiles].filter(
				(path) => created.has(path) || existsSync(path),
			);
			return { workspace, readOnly, network };
		},
		authorize(call, { session }) {
			const decision = decideSafely(call, session, context(session));
			session.emit({ type: "permission.decision", tool: call.tool, decision: decision.decision, rule: decision.rule });
			return decision;
		},
	};
}

interface Context {
	workspace: string;
	specs: Record<string, ToolSpec>;
	ceiling: PermissionCeiling;
	grants: WeakMap<SkillSession, Grant[]>;
	sandboxed: boolean;
	approvals: SkillApprovals | undefined;
	/** Skill folders and roots (real paths): never written, nor anything containing them. */
	protectedPaths: string[];
	/** Skill roots that hold the workspace itself: only their skill folders and SKILL.md files are protected. */
	broadRoots: string[];
	/** Files the host writes (real paths): never written by a tool, nor anything holding them. */
	hostFiles: string[];
	/** The host's own files that decide what loads later (real paths). */
	laterFiles: string[];
}

type HeldPermissions = EffectivePermissions & { skill: IndexedSkill };

// A path that cannot be resolved (a link loop, an unreadable folder) is a denial, never a pass.
function decideSafely(call: ToolCall, session: SkillSession, context: Context): Decision {
	try {
		return decide(call, session, context);
	} catch (error) {
		return deny("unresolvable-path", `cannot resolve a path of this call: ${(error as Error).message}`);
	}
}

function decide(call: ToolCall, session: SkillSession, context: Context): Decision {
	const known = context.specs[call.tool];
	const spec = known ?? { risk: "exec" };
	const args = call.args ?? {};
	// The active skills themselves: a name could mean another copy of the same name.
	const active = session.activeSkills;
	const held = active.map((skill) => ({ skill, ...effectivePermissions(skill, context.approvals) }));
	const paths = pathArguments(spec, args, context.workspace);
	const command = spec.commandArg !== undefined ? String(args[spec.commandArg] ?? "") : undefined;
	const shell = command !== undefined ? analyzeShell(command) : undefined;
	const writes = spec.risk === "write" ? paths : (shell?.writes ?? []).map((p) => resolvePath(context.workspace, p));
	// `realFile` has every link resolved, so these folders are real already. A remote skill's copy is read only
	// through the skill tools, which verify every byte against its pins; other tools get no exemption for it.
	const activeDirs = active.filter((skill) => !skill.origin).map((skill) => dirname(skill.realFile));
	const remote = active.filter((skill) => skill.origin);
	const remoteRead = paths.find((path) => remote.some((skill) => isInside(dirname(skill.realFile), path)));
	if (remoteRead !== undefined && spec.risk === "read") {
		const reason = `${remoteRead} is in a remote skill's verified copy: read it with read_skill_resource, which checks it against its digests`;
		return deny("remote-skill-files", reason);
	}
	const hard = hardRules(context, spec, paths, writes, activeDirs);
	if (hard) return hard;
	// A skill's own files are its to read: reads inside an active skill's folder are not subject to path bounds.
	const bounded =
		spec.risk === "write" || shell ? writes : paths.filter((p) => !activeDirs.some((dir) => isInside(dir, p)));
	const subject: Subject = {
		tool: call.tool,
		...(command !== undefined ? { command } : {}),
		paths: bounded.map((p) => toRelative(context.workspace, p)),
	};
	const kind = spec.risk === "write" || shell ? "write" : "read";
	const manifests = held.map((h) => h.manifest);
	const outOfBounds = boundaries(context.ceiling, manifests, spec, kind, subject, args, shell);
	if (outOfBounds) return outOfBounds;
	if (shell) {
		if (!context.sandboxed)
			return ask("no-sandbox", "no OS sandbox runs shell commands here: every shell command needs the user's approval");
		if (shell.unaccountable !== undefined)
			return ask("unaccountable", `cannot verify what this command writes (${shell.unaccountable})`);
	}
	if (!known) return ask("unknown-tool", `the policy does not know what ${call.tool} does: declare it in tools`);
	const later = spec.runsLater
		? `${call.tool}'s result`
		: (context.laterFiles.find((file) => writes.some((w) => isInside(file, w) || isInside(w, file))) ??
			laterWrite(context.workspace, spec, args, writes, shell));
	return byRisk(spec, subject, held, session, context.grants, later);
}

/**
 * The first write of this call that creates or replaces something that runs later, as written or as resolved,
 * including what a copy, move or link puts inside its target folder.
 */
function laterWrite(
	workspace: string,
	spec: ToolSpec,
	args: Record<string, unknown>,
	writes: string[],
	shell: ShellAnalysis | undefined,
): string | undefined {
	for (const transfer of shell?.transfers ?? []) {
		const hit = transferRunsLater(
			workspace,
			resolveTransfer(transfer, (path) => resolvePath(workspace, path)),
		);
		if (hit) return hit;
	}
	const written = spec.risk === "write" ? stringArgs(spec, args) : (shell?.writes ?? []);
	const lexical = written.map((path) => toRelative(workspace, resolve(workspace, path)));
	for (const path of [...lexical, ...writes.map((p) => toRelative(workspace, p))]) {
		const hit = runsLaterPart(path);
		if (hit) return hit;
	}
	return undefined;
}

function hardRules(
	context: Context,
	spec: ToolSpec,
	paths: string[],
	writes: string[],
	activeDirs: string[],
): Decision | undefined {
	const { workspace, protectedPaths, broadRoots, hostFiles } = context;
	for (const target of writes) {
		const host = hostFiles.find((file) => isInside(file, target) || isInside(target, file));
		if (host) return deny("host-file", `${host} is written by the host while it runs: no tool may write ${target}`);
		const inside = protectedPaths.find((dir) => isInside(dir, target));
		if (inside) return deny("skill-dir-readonly", `Skill folders are read-only: ${target} is inside ${inside}`);
		const contained = protectedPaths.find((dir) => isInside(target, dir));
		if (contained) return deny("skill-dir-readonly", `Skill folders are read-only: ${target} contains ${contained}`);
		const root = broadRoots.find((dir) => isInside(dir, target));
		if (root && basename(target).toLowerCase() === "skill.md")
			return deny("skill-dir-readonly", `${target} would add a skill to the root ${root}`);
	}
	for (const path of spec.risk === "write" ? paths : [...paths, ...writes]) {
		if (isInside(workspace, path)) continue;
		const reads = spec.risk === "read" || spec.risk === "safe";
		if (reads && !writes.includes(path) && activeDirs.some((dir) => isInside(dir, path))) continue;
		return deny("outside-workspace", `${path} is outside the workspace ${workspace}`);
	}
	return undefined;
}

function byRisk(
	spec: ToolSpec,
	subject: { tool: string; command?: string; paths: string[] },
	held: HeldPermissions[],
	session: SkillSession,
	grants: WeakMap<SkillSession, Grant[]>,
	runsLater: string | undefined,
): Decision {
	if (spec.risk === "safe")
		return { decision: "allow", rule: "safe-tool", reason: `${subject.tool} only reads skills` };
	if (spec.risk === "read")
		return { decision: "allow", rule: "read", reason: `${subject.tool} reads inside the allowed bounds` };
	// While an unapproved remote skill is active, no skill's allowed-tools pre-approve anything: only the user does.
	const pending = held.filter((h) => h.pending).map((h) => h.skill.qualifiedName);
	// A write to a file that something runs later is never a skill's to pre-approve: only the user's.
	const preapproved =
		pending.length === 0 && runsLater === undefined
			? held.find((h) => h.allowedTools?.some((pattern) => matchesPattern(pattern, subject)))
			: undefined;
	if (preapproved) {
		const reason = `pre-approved by ${preapproved.skill.name}'s allowed-tools`;
		return { decision: "allow", rule: "allowed-tools", reason };
	}
	const sessionGrants = grants.get(session) ?? [];
	const grant = sessionGrants.find((g) =>
		g.exact ? matchesExactly(g.pattern, subject) : matchesPattern(g.pattern, subject),
	);
	if (grant) {
		if (grant.scope === "once")
			grants.set(
				session,
				sessionGrants.filter((g) => g !== grant),
			);
		return { decision: "allow", rule: `grant-${grant.scope}`, reason: `the user allowed ${grant.pattern}` };
	}
	if (runsLater !== undefined) {
		const reason = `${runsLater} runs later or decides what loads next time, outside the sandbox: only the user can approve it`;
		return { decision: "ask", rule: "runs-later", reason };
	}
	if (pending.length > 0) {
		const reason = `${pending.join(", ")} from a remote origin is not approved: its allowed-tools grant nothing; ask the user`;
		return { decision: "ask", rule: "remote-unapproved", reason };
	}
	return { decision: "ask", rule: "needs-approval", reason: `${subject.tool} can change things: ask the user` };
}

function pathArguments(spec: ToolSpec, args: Record<string, unknown>, workspace: string): string[] {
	return stringArgs(spec, args).map((value) => resolvePath(workspace, value));
}

function stringArgs(spec: ToolSpec, args: Record<string, unknown>): string[] {
	return (spec.pathArgs ?? []).flatMap((key) => {
		const value = args[key];
		return typeof value === "string"
			? [value]
			: Array.isArray(value)
				? value.filter((v): v is string => typeof v === "string")
				: [];
	});
}

function toRelative(workspace: string, path: string): string {
	return relative(workspace, path).split(sep).join("/");
}

function deny(rule: string, reason: string): Decision {
	return { decision: "deny", rule, reason };
}

function ask(rule: string, reason: string): Decision {
	return { decision: "ask", rule, reason };
}
