import { resolve } from "node:path";
import { DISCOVERY_CODES, type DiscoveryDiagnostic } from "../discovery/index.ts";
import type { SkillsetConfig } from "./config.ts";

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
	const file = resolve(cwd, "skillset.config.json");
	const message = `the workspace is not trusted, so its config's ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} ignored`;
	const { severity, hint } = DISCOVERY_CODES["trust.config-ignored"];
	const diagnostic: DiscoveryDiagnostic = { code: "trust.config-ignored", severity, message, file, hint };
	return { config: kept as SkillsetConfig, diagnostics: [diagnostic] };
}
