import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { IndexedSkill } from "../discovery/index.ts";
import { isInside, type SkillSession } from "../runtime/index.ts";
import type { PermissionManifest } from "../skill/index.ts";
import { globToRegExp, matchesPattern } from "./patterns.ts";
import { shellWriteTargets } from "./shell.ts";

/** How much a tool can do: `safe` tools are always allowed, `read` ones are allowed within bounds, the rest ask. */
export type ToolRisk = "safe" | "read" | "write" | "exec" | "network";

/** How to read a tool's calls: its risk, and which arguments hold paths, a command or a URL. */
export interface ToolSpec {
	risk: ToolRisk;
	pathArgs?: string[];
	commandArg?: string;
	urlArg?: string;
}

/** The host's ceiling: what any skill may ever use. Undefined parts are unrestricted. */
export interface PermissionCeiling {
	/** Tool patterns allowed at all, e.g. `["Read", "Grep", "Bash(git:*)"]`. */
	tools?: string[];
	network?: boolean | string[];
	/** Globs relative to the workspace. */
	paths?: { read?: string[]; write?: string[] };
}

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
	/** Tool specs by name, added to (and overriding) the defaults. */
	tools?: Record<string, ToolSpec>;
}

/** Tool specs for the skill tools and common agent tools (Claude Code's names and generic ones). */
export const DEFAULT_TOOL_SPECS: Readonly<Record<string, ToolSpec>> = {
	load_skill: { risk: "safe" },
	read_skill_resource: { risk: "safe" },
	list_skills: { risk: "safe" },
	search_skills: { risk: "safe" },
	Read: { risk: "read", pathArgs: ["file_path", "path"] },
	Grep: { risk: "read", pathArgs: ["path"] },
	Glob: { risk: "read", pathArgs: ["path"] },
	LS: { risk: "read", pathArgs: ["path"] },
	read_file: { risk: "read", pathArgs: ["path"] },
	list_dir: { risk: "read", pathArgs: ["path"] },
	Write: { risk: "write", pathArgs: ["file_path", "path"] },
	Edit: { risk: "write", pathArgs: ["file_path", "path"] },
	MultiEdit: { risk: "write", pathArgs: ["file_path"] },
	NotebookEdit: { risk: "write", pathArgs: ["notebook_path"] },
	write_file: { risk: "write", pathArgs: ["path"] },
	edit_file: { risk: "write", pathArgs: ["path"] },
	Bash: { risk: "exec", commandArg: "command" },
	shell: { risk: "exec", commandArg: "command" },
	WebFetch: { risk: "network", urlArg: "url" },
	fetch: { risk: "network", urlArg: "url" },
};

/** How long a grant lasts: one call, or the rest of the session. */
export type GrantScope = "once" | "always";

/** A host's permission policy over sessions: decisions, and the user's grants per session. */
export interface Policy {
	authorize(call: ToolCall, context: { session: SkillSession }): Decision;
	/** The user allowed calls matching `pattern` (e.g. `Bash(npm test:*)`) once or for the session. */
	grant(session: SkillSession, pattern: string, scope: GrantScope): void;
}

interface Grant {
	pattern: string;
	scope: GrantScope;
}

/**
 * Creates a policy. Hard rules come first and no grant overrides them: writes into any skill folder are denied
 * (paths resolved through `..` and links), and paths outside the workspace are denied except reads inside an
 * active skill's folder. Then the host ceiling, then the active skills' manifests (which only narrow), then risk:
 * safe and read tools are allowed, others are allowed when an active skill's `allowed-tools` pre-approves them or
 * the user granted them, and asked otherwise.
 */
export function createPolicy(options: PolicyOptions): Policy {
	const workspace = realOrResolved(options.workspace);
	const specs = { ...DEFAULT_TOOL_SPECS, ...options.tools };
	const grants = new WeakMap<SkillSession, Grant[]>();
	return {
		grant(session, pattern, scope) {
			grants.set(session, [...(grants.get(session) ?? []), { pattern, scope }]);
		},
		authorize(call, { session }) {
			const decision = decide(call, session, { workspace, specs, ceiling: options.ceiling ?? {}, grants });
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
}

function decide(call: ToolCall, session: SkillSession, context: Context): Decision {
	const spec = context.specs[call.tool] ?? { risk: "exec" };
	const args = call.args ?? {};
	const active = session.active
		.map((name) => session.index.get(name))
		.filter((s): s is IndexedSkill => s !== undefined);
	const paths = pathArguments(spec, args, context.workspace);
	const command = spec.commandArg ? String(args[spec.commandArg] ?? "") : undefined;
	const writes =
		spec.risk === "write"
			? paths
			: command !== undefined
				? shellWriteTargets(command).map((p) => realOrResolved(resolve(context.workspace, p)))
				: [];
	// `realFile` has every link resolved, so these folders are real already.
	const activeDirs = active.map((skill) => dirname(skill.realFile));
	const hard = hardRules(session, context.workspace, spec, paths, writes, activeDirs);
	if (hard) return hard;
	// A skill's own files are its to read: reads inside an active skill's folder are not subject to path bounds.
	const bounded = spec.risk === "write" ? paths : paths.filter((p) => !activeDirs.some((dir) => isInside(dir, p)));
	const subject = {
		tool: call.tool,
		...(command !== undefined ? { command } : {}),
		paths: bounded.map((p) => toRelative(context.workspace, p)),
	};
	const outOfBounds = boundaries(context.ceiling, active, spec, subject, args);
	if (outOfBounds) return outOfBounds;
	return byRisk(spec, subject, active, session, context.grants);
}

function hardRules(
	session: SkillSession,
	workspace: string,
	spec: ToolSpec,
	paths: string[],
	writes: string[],
	activeDirs: string[],
): Decision | undefined {
	const skillDirs = skillFolders(session);
	for (const target of writes) {
		const dir = skillDirs.find((skillDir) => isInside(skillDir, target));
		if (dir) return deny("skill-dir-readonly", `Skill folders are read-only: ${target} is inside ${dir}`);
	}
	for (const path of paths) {
		if (isInside(workspace, path)) continue;
		if ((spec.risk === "read" || spec.risk === "safe") && activeDirs.some((dir) => isInside(dir, path))) continue;
		return deny("outside-workspace", `${path} is outside the workspace ${workspace}`);
	}
	return undefined;
}

function boundaries(
	ceiling: PermissionCeiling,
	active: IndexedSkill[],
	spec: ToolSpec,
	subject: { tool: string; command?: string; paths: string[] },
	args: Record<string, unknown>,
): Decision | undefined {
	if (spec.risk === "safe") return undefined;
	if (ceiling.tools && !ceiling.tools.some((pattern) => matchesPattern(pattern, subject))) {
		return deny("ceiling", `${subject.tool} is not among the tools the host allows`);
	}
	const kind = spec.risk === "write" ? "write" : "read";
	const ceilingPaths = ceiling.paths?.[kind];
	if (ceilingPaths && subject.paths.some((path) => !ceilingPaths.some((glob) => globToRegExp(glob).test(path)))) {
		return deny("ceiling-path", `the host does not allow ${kind}s of ${subject.paths.join(", ")}`);
	}
	const url = spec.urlArg ? String(args[spec.urlArg] ?? "") : undefined;
	if (url !== undefined && !networkAllowed(ceiling.network, url))
		return deny("ceiling-network", `the host does not allow network access to ${url}`);
	const manifests = active.map((skill) => skill.properties.manifest);
	// Narrowing applies only when every active skill declares a manifest; a skill without one narrows nothing.
	if (manifests.length === 0 || manifests.some((m) => m === undefined)) return undefined;
	return manifestBounds(manifests as PermissionManifest[], kind, subject, url);
}

function manifestBounds(
	manifests: PermissionManifest[],
	kind: "read" | "write",
	subject: { tool: string; command?: string; paths: string[] },
	url: string | undefined,
): Decision | undefined {
	if (!manifests.some((m) => m.tools.some((pattern) => matchesPattern(pattern, subject)))) {
		return deny("manifest", `no active skill declares ${subject.tool} in its permissions`);
	}
	const declared = manifests.flatMap((m) => m.paths[kind]);
	const outside = subject.paths.filter((path) => !declared.some((glob) => globToRegExp(glob).test(path)));
	if (outside.length > 0)
		return deny("manifest-path", `no active skill declares ${kind} access to ${outside.join(", ")}`);
	if (url !== undefined && !manifests.some((m) => networkAllowed(m.network, url))) {
		return deny("manifest-network", `no active skill declares network access to ${url}`);
	}
	return undefined;
}

function byRisk(
	spec: ToolSpec,
	subject: { tool: string; command?: string; paths: string[] },
	active: IndexedSkill[],
	session: SkillSession,
	grants: WeakMap<SkillSession, Grant[]>,
): Decision {
	if (spec.risk === "safe")
		return { decision: "allow", rule: "safe-tool", reason: `${subject.tool} only reads skills` };
	if (spec.risk === "read")
		return { decision: "allow", rule: "read", reason: `${subject.tool} reads inside the allowed bounds` };
	const preapproved = active.find((skill) =>
		skill.properties.allowedTools?.some((pattern) => matchesPattern(pattern, subject)),
	);
	if (preapproved)
		return { decision: "allow", rule: "allowed-tools", reason: `pre-approved by ${preapproved.name}'s allowed-tools` };
	const sessionGrants = grants.get(session) ?? [];
	const grant = sessionGrants.find((g) => matchesPattern(g.pattern, subject));
	if (grant) {
		if (grant.scope === "once")
			grants.set(
				session,
				sessionGrants.filter((g) => g !== grant),
			);
		return { decision: "allow", rule: `grant-${grant.scope}`, reason: `the user allowed ${grant.pattern}` };
	}
	return { decision: "ask", rule: "needs-approval", reason: `${subject.tool} can change things: ask the user` };
}

// Skill folders per index, computed once: `realFile` already has every link resolved, so its folder is real.
const FOLDERS = new WeakMap<object, string[]>();

function skillFolders(session: SkillSession): string[] {
	let folders = FOLDERS.get(session.index);
	if (!folders) {
		folders = [...new Set(session.index.skills.map((skill) => dirname(skill.realFile)))];
		FOLDERS.set(session.index, folders);
	}
	return folders;
}

function networkAllowed(network: boolean | string[] | undefined, url: string): boolean {
	if (network === undefined || network === true) return true;
	if (network === false) return false;
	let host: string;
	try {
		host = new URL(url).hostname;
	} catch {
		return false;
	}
	return network.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
}

function pathArguments(spec: ToolSpec, args: Record<string, unknown>, workspace: string): string[] {
	const values = (spec.pathArgs ?? []).flatMap((key) => {
		const value = args[key];
		return typeof value === "string"
			? [value]
			: Array.isArray(value)
				? value.filter((v): v is string => typeof v === "string")
				: [];
	});
	return values.map((value) => realOrResolved(isAbsolute(value) ? value : resolve(workspace, value)));
}

/** The real path of `path`: its deepest existing ancestor resolved through links, and the rest appended. */
export function realOrResolved(path: string): string {
	const rest: string[] = [];
	let current = resolve(path);
	for (;;) {
		try {
			return join(realpathSync.native(current), ...rest.reverse());
		} catch {
			const parent = dirname(current);
			if (parent === current) return resolve(path);
			rest.push(basename(current));
			current = parent;
		}
	}
}

function toRelative(workspace: string, path: string): string {
	return relative(workspace, path).split(sep).join("/");
}

function deny(rule: string, reason: string): Decision {
	return { decision: "deny", rule, reason };
}
