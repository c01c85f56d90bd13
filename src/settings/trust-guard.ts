import { resolve } from "node:path";
import { DISCOVERY_CODES, type DiscoveryDiagnostic } from "../discovery/index.ts";
import { CONFIG_FILE_NAME } from "./config-file.ts";
import type { SkillsetConfig } from "./shape.ts";

/**
 * Keys of a workspace's own `skillset.config.json` that choose roots, scopes or locks: honoured only in a trusted
 * workspace, since they could otherwise place the workspace's own skills in a trusted scope.
 */
export const TRUST_SENSITIVE_KEYS: readonly string[] = [
	"roots",
	"conventions",
	"userRoots",
	"adminRoots",
	"adminLocked",
	"pluginRoots",
	"builtinRoots",
	"scopeOrder",
	"lock",
	// Origins spawn commands and fetch from the network: a cloned repository must not choose them.
	"mcpServers",
	"indexes",
];

/**
 * The workspace's own config as far as the workspace's trust allows: in an untrusted workspace (or one whose file
 * untrusts itself), the trust-sensitive keys are dropped, with a `trust.config-ignored` diagnostic naming them.
 */
export function guardWorkspaceConfig(
	config: SkillsetConfig,
	cwd: string,
	trusted: boolean,
): { config: SkillsetConfig; diagnostics: DiscoveryDiagnostic[] } {
	if (trusted && config.trustWorkspace !== false) return { config, diagnostics: [] };
	const ignored = TRUST_SENSITIVE_KEYS.filter((key) => Object.hasOwn(config, key));
	if (ignored.length === 0) return { config, diagnostics: [] };
	const kept = Object.fromEntries(Object.entries(config).filter(([key]) => !ignored.includes(key)));
	const file = resolve(cwd, CONFIG_FILE_NAME);
	const message = `the workspace is not trusted, so its config's ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} ignored`;
	const { severity, hint } = DISCOVERY_CODES["trust.config-ignored"];
	const diagnostic: DiscoveryDiagnostic = { code: "trust.config-ignored", severity, message, file, hint };
	return { config: kept as SkillsetConfig, diagnostics: [diagnostic] };
}

/**
 * A workspace's own config may name MCP servers to spawn only in a workspace trusted explicitly (the trust store with
 * `--trust-store`, or `SKILLSET_TRUST_WORKSPACE=1`): trust by default is enough to read a cloned repository's skills,
 * not to run its commands. URL origins are kept; stdio servers are dropped with a `trust.config-ignored` diagnostic.
 */
export function guardWorkspaceCommands(
	config: SkillsetConfig,
	cwd: string,
	explicitlyTrusted: boolean,
): { config: SkillsetConfig; diagnostics: DiscoveryDiagnostic[] } {
	const servers = Object.entries(config.mcpServers ?? {});
	const commands = servers.filter(([, server]) => "command" in server).map(([label]) => label);
	if (explicitlyTrusted || commands.length === 0) return { config, diagnostics: [] };
	const kept = Object.fromEntries(servers.filter(([label]) => !commands.includes(label)));
	const message = `the workspace's config would run MCP server commands (${commands.join(", ")}): they are ignored unless ${EXPLICIT_TRUST}`;
	return { config: { ...config, mcpServers: kept }, diagnostics: [ignoredDiagnostic(cwd, message)] };
}

/**
 * A workspace's own `permissions.allow` joins the host's ceiling, so it could widen what the user allowed (`--allow
 * read_file` plus the repository's `run_shell(*)`): it counts only in a workspace trusted explicitly. Its `deny` only
 * narrows, so it always counts.
 */
export function guardWorkspacePermissions(
	config: SkillsetConfig,
	cwd: string,
	explicitlyTrusted: boolean,
): { config: SkillsetConfig; diagnostics: DiscoveryDiagnostic[] } {
	const allow = config.permissions?.allow;
	if (explicitlyTrusted || allow === undefined) return { config, diagnostics: [] };
	const { allow: _dropped, ...permissions } = config.permissions ?? {};
	const message = `the workspace's config would widen the tool ceiling (permissions.allow: ${allow.join(", ")}): it is ignored unless ${EXPLICIT_TRUST}`;
	return { config: { ...config, permissions }, diagnostics: [ignoredDiagnostic(cwd, message)] };
}

const EXPLICIT_TRUST =
	"the workspace is trusted explicitly ('skillset trust' with --trust-store, or SKILLSET_TRUST_WORKSPACE=1)";

function ignoredDiagnostic(cwd: string, message: string): DiscoveryDiagnostic {
	const { severity, hint } = DISCOVERY_CODES["trust.config-ignored"];
	return { code: "trust.config-ignored", severity, message, file: resolve(cwd, CONFIG_FILE_NAME), hint };
}
