import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type DiscoverOptions, type DiscoveryResult, discover } from "../discovery/index.ts";
import { configFromEnv, discoverOptionsFrom, homeFrom, loadConfig, type SkillsetConfig } from "./config.ts";
import { type CliIo, UsageError } from "./io.ts";

/** The options every command that discovers takes. */
export const discoveryFlags: NonNullable<ParseArgsConfig["options"]> = {
	root: { type: "string", multiple: true },
	"no-default-roots": { type: "boolean" },
	preset: { type: "string", multiple: true },
	policy: { type: "string" },
	config: { type: "string" },
	untrusted: { type: "boolean" },
	"trust-store": { type: "boolean" },
};

/** Usage lines for {@link discoveryFlags}. */
export const discoveryUsage = `Discovery options:
  --root DIR                 an extra workspace root, highest precedence first (repeatable)
  --no-default-roots         scan only the roots given (no .agents/skills, .claude/skills, .skills)
  --preset NAME              add a client's folders: claude, codex, opencode, gemini, copilot, cline,
                             kilo, pi, workbuddy (repeatable)
  --policy NAME              collisions: precedence (default), reject, keep-all, qualify
  --config FILE              settings file (default: ./skillset.config.json when present)
  --untrusted                treat the workspace as untrusted: its skills stay out of the catalog
  --trust-store              trust the workspace only if the trust store says so ('skillset trust')`;

/** The parsed values of {@link discoveryFlags}. */
export interface DiscoveryFlagValues {
	root?: string[];
	"no-default-roots"?: boolean;
	preset?: string[];
	policy?: string;
	config?: string;
	untrusted?: boolean;
	"trust-store"?: boolean;
}

/** The merged settings: defaults < config file < SKILLSET_* environment < flags. */
export interface ResolvedSettings {
	config: SkillsetConfig;
	discover: DiscoverOptions;
}

/** Merges config file, environment and flags into discovery options for a scan of `cwd`. */
async function resolveSettings(values: DiscoveryFlagValues, cwd: string, io: CliIo): Promise<ResolvedSettings> {
	const file = await loadConfig(values.config ?? io.env.SKILLSET_CONFIG, cwd);
	const env = configFromEnv(io.env, cwd);
	const flags = configFromEnv(flagEnv(values), cwd, "option");
	const config: SkillsetConfig = {
		...file,
		...env,
		...flags,
		roots: [...(env.roots ?? []), ...(file.roots ?? [])],
		catalog: { ...file.catalog, ...env.catalog },
	};
	if (values["no-default-roots"]) config.defaultRoots = false;
	if (values["trust-store"]) config.trustWorkspace = await trustedByStore(cwd, io);
	if (values.untrusted) config.trustWorkspace = false;
	return { config, discover: discoverOptionsFrom(config, cwd, homeFrom(io.env, homedir())) };
}

/** Whether the trust store (SKILLSET_TRUST_FILE, else the default file) trusts the workspace. */
async function trustedByStore(cwd: string, io: CliIo): Promise<boolean> {
	// Loaded here, not at the top: only --trust-store needs the policy stage, and start-up pays for every module.
	const { defaultTrustFile, loadTrustStore } = await import("../policy/index.ts");
	const file = io.env.SKILLSET_TRUST_FILE ?? defaultTrustFile(io.env, homeFrom(io.env, homedir()));
	try {
		return (await loadTrustStore(file)).isTrusted(cwd);
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
}

/** Flags expressed as the environment variables they override, so one checker validates both. */
function flagEnv(values: DiscoveryFlagValues): Record<string, string | undefined> {
	return { SKILLSET_PRESETS: values.preset?.join(","), SKILLSET_POLICY: values.policy };
}

/**
 * Runs discovery for a command: settings from everywhere, the workspace at `dir` (default: the cwd). `--root`
 * paths are resolved against the cwd and come before every other root.
 */
export async function discoverFor(
	values: DiscoveryFlagValues,
	dir: string | undefined,
	io: CliIo,
): Promise<ResolvedSettings & DiscoveryResult> {
	const cwd = resolve(io.cwd, dir ?? ".");
	const settings = await resolveSettings(values, cwd, io);
	const flagRoots = (values.root ?? []).map((root) => resolve(io.cwd, root));
	const roots = [...flagRoots, ...(settings.discover.roots ?? [])];
	const options = { ...settings.discover, roots };
	return { ...settings, discover: options, ...(await discover(options)) };
}
