import type { ShellAnalysis } from "../shell/index.ts";
import type { PermissionManifest } from "../skill/index.ts";
import { globToRegExp, matchesPattern } from "./patterns.ts";
import type { ToolSpec } from "./tool-specs.ts";

/** The host's ceiling: what any skill may ever use. Undefined parts are unrestricted. */
export interface PermissionCeiling {
	/** Tool patterns allowed at all, e.g. `["Read", "Grep", "Bash(git:*)"]`. */
	tools?: string[];
	network?: boolean | string[];
	/** Globs relative to the workspace. */
	paths?: { read?: string[]; write?: string[] };
}

/** A call reduced to what the bounds check: the tool, its command and its workspace-relative paths. */
export interface Subject {
	tool: string;
	command?: string;
	paths: string[];
}

/** A denial, or undefined. */
type Verdict = { decision: "deny"; rule: string; reason: string } | undefined;

const deny = (rule: string, reason: string): Verdict => ({ decision: "deny", rule, reason });

/**
 * The host ceiling, then the active skills' manifests (which only narrow, and only when every active skill declares
 * one): tools, read and write paths, URLs and shell network use.
 */
export function boundaries(
	ceiling: PermissionCeiling,
	manifests: (PermissionManifest | undefined)[],
	spec: ToolSpec,
	kind: "read" | "write",
	subject: Subject,
	args: Record<string, unknown>,
	shell: ShellAnalysis | undefined,
): Verdict {
	if (spec.risk === "safe") return undefined;
	if (ceiling.tools && !ceiling.tools.some((pattern) => matchesPattern(pattern, subject))) {
		return deny("ceiling", `${subject.tool} is not among the tools the host allows`);
	}
	const ceilingPaths = ceiling.paths?.[kind];
	if (ceilingPaths && subject.paths.some((path) => !ceilingPaths.some((glob) => globToRegExp(glob).test(path)))) {
		return deny("ceiling-path", `the host does not allow ${kind}s of ${subject.paths.join(", ")}`);
	}
	const url = spec.urlArg ? String(args[spec.urlArg] ?? "") : undefined;
	if (url !== undefined && !networkAllowed(ceiling.network, url))
		return deny("ceiling-network", `the host does not allow network access to ${url}`);
	const online = shell?.network ?? [];
	if (online.length > 0 && !shellNetworkAllowed(ceiling.network))
		return deny("ceiling-network", `the host does not allow network access (${online.join(", ")})`);
	// Narrowing applies only when every active skill declares a manifest; a skill without one narrows nothing.
	if (manifests.length === 0 || manifests.some((m) => m === undefined)) return undefined;
	return manifestBounds(manifests as PermissionManifest[], kind, subject, url, online);
}

function manifestBounds(
	manifests: PermissionManifest[],
	kind: "read" | "write",
	subject: Subject,
	url: string | undefined,
	online: string[],
): Verdict {
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
	if (online.length > 0 && !manifests.some((m) => shellNetworkAllowed(m.network))) {
		return deny("manifest-network", `no active skill declares network access (${online.join(", ")})`);
	}
	return undefined;
}

/** Shell commands cannot be checked host by host: only an unrestricted network lets them use it. */
export function shellNetworkAllowed(network: boolean | string[] | undefined): boolean {
	return network === undefined || network === true;
}

/** Whether a network setting (`true`, `false` or a host list) allows `url`. */
export function networkAllowed(network: boolean | string[] | undefined, url: string): boolean {
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
