import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import {
	type CollisionPolicy,
	type DiscoverOptions,
	type DiscoveryDiagnostic,
	type DiscoveryResult,
	discover,
	type PresetName,
} from "../discovery/index.ts";
import {
	checkSetting,
	configFromEnv,
	discoverOptionsFrom,
	homeFrom,
	labelFrom,
	layerCatalog,
	loadConfig,
	parseBoolean,
	type SkillsetConfig,
} from "./config.ts";
import { type CliIo, UsageError } from "./io.ts";
import {
	cacheDirFor,
	createOriginProviders,
	layerOrigins,
	type OriginFlagValues,
	type OriginSummary,
	originFlags,
	originsFromFlags,
	originUsage,
	summarizeOrigins,
} from "./origin-settings.ts";
import { announceBounds } from "./render-bounds.ts";
import { guardWorkspaceCommands, guardWorkspaceConfig } from "./workspace-config.ts";

/** The options every command that discovers takes. */
export const discoveryFlags: NonNullable<ParseArgsConfig["options"]> = {
	root: { type: "string", multiple: true },
	"no-default-roots": { type: "boolean" },
	preset: { type: "string", multiple: true },
	policy: { type: "string" },
	config: { type: "string" },
	untrusted: { type: "boolean" },
	"trust-store": { type: "boolean" },
	"include-hidden": { type: "boolean" },
	"no-cache": { type: "boolean" },
	...originFlags,
};

/** Usage lines for {@link discoveryFlags}. */
export const discoveryUsage: string = `Discovery options:
  --root DIR                 an extra workspace root, highest precedence first (repeatable; must exist)
  --no-default-roots         scan only the roots given (no .agents/skills, .claude/skills, .skills)
  --preset NAME              add a client's folders: claude, codex, opencode, gemini, copilot, cline,
                             kilo, pi, workbuddy (repeatable)
  --policy NAME              collisions: precedence (default), reject, keep-all, qualify
  --config FILE              settings file (default: ./skillset.config.json when present)
  --untrusted                treat the workspace as untrusted: its skills stay out of the catalog
  --trust-store              trust the workspace only if the trust store says so ('skillset trust')
  --include-hidden           also scan hidden folders below each root (e.g. skills/.curated)
  --no-cache                 neither use nor write the discovery index in the cache folder
                             (also SKILLSET_NO_CACHE=1)
${originUsage}`;

/** The parsed values of {@link discoveryFlags}. */
export interface DiscoveryFlagValues extends OriginFlagValues {
	root?: string[];
	"no-default-roots"?: boolean;
	preset?: string[];
	policy?: string;
	config?: string;
	untrusted?: boolean;
	"trust-store"?: boolean;
	"include-hidden"?: boolean;
	"no-cache"?: boolean;
}

/** The merged settings: defaults < config file < SKILLSET_* environment < flags. */
export interface ResolvedSettings {
	config: SkillsetConfig;
	discover: DiscoverOptions;
	/** About the settings themselves (keys of an untrusted workspace's config that were ignored). */
	diagnostics: DiscoveryDiagnostic[];
	/** The configured remote origins (never their tokens), and the cache folder their verified copies go to. */
	origins: OriginSummary[];
	cacheDir: string;
}

/** Merges config file, environment and flags into discovery options for a scan of `cwd`. */
async function resolveSettings(
	values: DiscoveryFlagValues,
	cwd: string,
	io: CliIo,
	extra: SkillsetConfig,
): Promise<ResolvedSettings> {
	// A config file named by flag or variable is relative to where the user is; the default one is in the workspace.
	const explicitConfig = values.config ?? io.env.SKILLSET_CONFIG;
	const loaded = await loadConfig(explicitConfig === undefined ? undefined : resolve(io.cwd, explicitConfig), cwd);
	const env = configFromEnv(io.env, cwd);
	const flags = configFromFlags(values);
	const originFlagConfig = originsFromFlags(values, io.cwd);
	const flagOrigins = { ...originFlagConfig, ...layerOrigins([originFlagConfig], extra, false) };
	const store = values["trust-store"] && !values.untrusted ? await trustedByStore(cwd, io) : undefined;
	const trusted = !values.untrusted && (store ?? env.trustWorkspace ?? true);
	const guarded = explicitConfig === undefined ? guardWorkspaceConfig(loaded, cwd, trusted) : undefined;
	const explicitlyTrusted = trusted && (store === true || env.trustWorkspace === true);
	const commands =
		guarded && !values["no-origins"] ? guardWorkspaceCommands(guarded.config, cwd, explicitlyTrusted) : undefined;
	const file = commands?.config ?? guarded?.config ?? loaded;
	const config: SkillsetConfig = {
		...file,
		...env,
		...flags,
		...flagOrigins,
		...layerOrigins([file, env], flagOrigins, values["no-origins"] === true),
		roots: [...(env.roots ?? []), ...(file.roots ?? [])],
		catalog: layerCatalog(file.catalog, env.catalog),
	};
	if (values["no-default-roots"]) config.defaultRoots = false;
	if (store !== undefined) config.trustWorkspace = store;
	if (values.untrusted) config.trustWorkspace = false;
	const discoverOptions = discoverOptionsFrom(config, cwd, homeFrom(io.env, homedir()));
	const cacheDir = cacheDirFor(io.env, io.cwd);
	const noCache = io.env.SKILLSET_NO_CACHE ? parseBoolean(io.env.SKILLSET_NO_CACHE, "SKILLSET_NO_CACHE") : false;
	if (!values["no-cache"] && !noCache) discoverOptions.cacheDir = cacheDir;
	const origins = await summarizeOrigins(config, cacheDir);
	if (origins.length > 0) {
		const allowUnverified = values["allow-unverified"] === true;
		discoverOptions.origins = await createOriginProviders(config, io.env, cacheDir, allowUnverified);
	}
	const diagnostics = [...(guarded?.diagnostics ?? []), ...(commands?.diagnostics ?? [])];
	return { config, discover: discoverOptions, diagnostics, origins, cacheDir };
}

/** A folder the user named (a workspace DIR, a --root) must be one: anything else is a usage error, never silence. */
async function checkFolder(what: string, path: string): Promise<void> {
	const info = await stat(path).catch((error: NodeJS.ErrnoException) => error);
	if (info instanceof Error) {
		const missing = info.code === "ENOENT" || info.code === "ENOTDIR";
		throw new UsageError(missing ? `${what} does not exist` : `cannot read ${what}: ${info.code}`);
	}
	if (!info.isDirectory()) throw new UsageError(`${what} is not a folder`);
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

/** The flag behind each setting, so a mistake is reported as the user typed it. */
const FLAG_NAMES: Readonly<Record<string, string>> = {
	presets: "--preset",
	policy: "--policy",
	includeHidden: "--include-hidden",
};

/** The discovery settings the flags give, checked by the config file's rules and named as flags. */
function configFromFlags(values: DiscoveryFlagValues): SkillsetConfig {
	const config: SkillsetConfig = {};
	if (values.preset) config.presets = values.preset.flatMap((p) => p.split(",")).map((p) => p.trim()) as PresetName[];
	if (values.policy !== undefined) config.policy = values.policy as CollisionPolicy;
	if (values["include-hidden"]) config.includeHidden = true;
	const label = labelFrom(FLAG_NAMES);
	for (const [key, value] of Object.entries(config)) checkSetting(value, key, label);
	return config;
}

/**
 * Runs discovery for a command: settings from everywhere, the workspace at `dir` (default: the cwd). `--root`
 * paths are resolved against the cwd and come before every other root. A root a walk bound cut short is announced
 * on stderr, unless the command reports it itself (`announceBounds: false`).
 */
export async function discoverFor(
	values: DiscoveryFlagValues,
	dir: string | undefined,
	io: CliIo,
	options: { announceBounds?: boolean } = {},
): Promise<ResolvedSettings & DiscoveryResult> {
	const settings = await settingsFor(values, dir, io);
	const result = await discover(settings.discover);
	result.report.diagnostics.unshift(...settings.diagnostics);
	if (options.announceBounds !== false) announceBounds(result.report, io);
	return { ...settings, ...result };
}

/**
 * The settings {@link discoverFor} scans with, without scanning (for commands that scan on their own).
 * `extraOrigins` are origins the command itself was given (chat's `--mcp`), at the precedence of flags.
 */
export async function settingsFor(
	values: DiscoveryFlagValues,
	dir: string | undefined,
	io: CliIo,
	extraOrigins: SkillsetConfig = {},
): Promise<ResolvedSettings> {
	const cwd = resolve(io.cwd, dir ?? ".");
	if (dir !== undefined) await checkFolder(`DIR ${dir}`, cwd);
	const settings = await resolveSettings(values, cwd, io, extraOrigins);
	const flagRoots = (values.root ?? []).map((root) => resolve(io.cwd, root));
	for (const [i, root] of flagRoots.entries()) await checkFolder(`--root ${values.root?.[i]}`, root);
	const roots = [...flagRoots, ...(settings.discover.roots ?? [])];
	return { ...settings, discover: { ...settings.discover, roots } };
}
