import { type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import {
	DISCOVERY_CODES,
	type DiscoverOptions,
	type DiscoveryDiagnostic,
	defaultCacheDir,
} from "../discovery/index.ts";
import {
	configFromEnv,
	configFromFlags,
	ENV_PLACE,
	FLAG_PLACE,
	homeFrom,
	parseBoolean,
	type SettingsEnv,
	type SettingsFlags,
} from "./env-flags.ts";
import {
	type CatalogSettings,
	CONFIG_FILE_NAME,
	catalogSettingsFrom,
	type Layer,
	loadConfigFile,
	mergeLayers,
	sourcesOf,
} from "./layers.ts";
import { type McpServerSetting, type SettingSource, SettingsError, type SkillsetConfig } from "./shape.ts";

/** What {@link resolveSettings} reads. Every field is optional. */
export interface ResolveSettingsOptions {
	/** Where the user is: flag paths, `SKILLSET_CONFIG` and `SKILLSET_CACHE_DIR` are relative to it. Default: `process.cwd()`. */
	cwd?: string;
	/**
	 * The workspace the settings are for (relative to `cwd`): its own `skillset.config.json` is read, discovery scans
	 * it, `SKILLSET_ROOTS` are relative to it. Default: `cwd`.
	 */
	workspace?: string;
	/** The environment with the `SKILLSET_*` variables. Default: `process.env`. */
	env?: SettingsEnv;
	/** The command line's settings (or the host's own), highest in precedence. */
	flags?: SettingsFlags;
	/**
	 * A config file to read instead of the workspace's own (relative to `cwd`; default `SKILLSET_CONFIG`). A file the
	 * user names is theirs: no trust guard applies to it.
	 */
	configFile?: string;
	/**
	 * Whether the trust store trusts `workspace`, asked only for `flags.trustStore`. Without it, `trustStore` finds
	 * the workspace untrusted (the store cannot be asked, so the trust is not proven).
	 */
	isTrusted?: (workspace: string) => Promise<boolean>;
	/**
	 * Check that the catalog budget is complete (a fraction needs a context window and is at most 1). Default true;
	 * a command that builds no catalog turns it off, so that a fraction waiting for a later `--context-window` is fine.
	 */
	checkCatalog?: boolean;
}

/** The remote origins the settings name; creating their providers is the sources stage's work. */
export interface OriginSettings {
	/** MCP servers by label (a stdio server's `cwd` is absolute). A `tokenEnv` is left for the provider to read. */
	mcpServers: Record<string, McpServerSetting>;
	/** Well-known indexes by label. */
	indexes: Record<string, string>;
	/** How long one origin may take to load, in milliseconds. */
	timeoutMs?: number;
	/** Read v0.1.0 indexes, which cannot be verified: only ever from the flags. */
	allowUnverified: boolean;
	/** A failed origin with nothing cached is only a warning, not a failure of the command. */
	allowOffline: boolean;
}

/** The model settings: `SKILLSET_MODEL` < flags, `OPENAI_BASE_URL` < flags. */
export interface ModelSettings {
	name: string;
	baseURL?: string;
}

/** The model used when neither a flag nor `SKILLSET_MODEL` names one. */
export const DEFAULT_MODEL = "gpt-4o-mini";

/** The settings, layered: defaults < config file < `SKILLSET_*` < flags, with the workspace's config trust-guarded. */
export interface ResolvedSettings {
	/** The workspace (absolute). */
	workspace: string;
	/** The config file read, if any. */
	configFile?: string;
	/** Options for `discover`/`createDiscovery` (no origin providers: make those from `origins`). */
	discover: DiscoverOptions;
	/** Options for `buildCatalog`: format, location, one budget. */
	catalog: CatalogSettings;
	origins: OriginSettings;
	/** The permission ceiling of an agent: tool patterns allowed at all, patterns always denied. */
	permissions: { allow: string[]; deny: string[] };
	/** The model an agent talks to, and its endpoint (none: the client's default, OpenAI). */
	model: ModelSettings;
	/** The cache folder of origins and of the discovery index (used for the index unless `cache` is off). */
	cacheDir: string;
	/** Where each setting came from, by its config-file key (`policy`, `catalog.tokens`, `mcpServers.acme`). */
	sources: Record<string, SettingSource>;
	/** About the settings themselves: keys of an untrusted workspace's config that were ignored. */
	diagnostics: DiscoveryDiagnostic[];
}

/**
 * Resolves every setting for a workspace: defaults < config file < `SKILLSET_*` variables < flags, each checked with
 * an error ({@link SettingsError}) that names the setting as the user set it. The workspace's own config file is
 * trust-guarded: in an untrusted workspace its roots, scopes and origins are ignored (a `trust.config-ignored`
 * diagnostic), and its MCP server commands need explicit trust.
 */
export async function resolveSettings(options: ResolveSettingsOptions = {}): Promise<ResolvedSettings> {
	const cwd = resolve(options.cwd ?? process.cwd());
	const workspace = resolve(cwd, options.workspace ?? ".");
	const env = options.env ?? process.env;
	const flags = options.flags ?? {};
	// A config file named by the user is relative to where the user is; the workspace's own is in the workspace.
	const named = options.configFile ?? env.SKILLSET_CONFIG;
	const loaded = await loadConfigFile(named === undefined ? undefined : resolve(cwd, named), workspace);
	const fromEnv = configFromEnv(env, workspace);
	const fromFlags = configFromFlags(flags, cwd);
	const trust = await trustOf(flags, fromEnv, workspace, options.isTrusted);
	const guarded = named === undefined ? guard(loaded.config, workspace, trust, flags.origins === false) : undefined;
	const file: Layer = { config: guarded?.config ?? loaded.config, place: loaded.place };
	const layers: Layer[] = [file, { config: fromEnv, place: ENV_PLACE }, { config: fromFlags, place: FLAG_PLACE }];
	const originLayers = flags.origins === false ? layers.slice(2) : layers;
	const config = mergeLayers(layers, originLayers);
	const sources = sourcesOf(layers, originLayers, config);
	if (trust.store !== undefined) setTrust(config, sources, trust.store, "--trust-store");
	if (flags.untrusted) setTrust(config, sources, false, "--untrusted");
	const catalog = catalogSettingsFrom(config.catalog ?? {}, fractionOf(sources), options.checkCatalog !== false);
	const cache = cacheOf(env, cwd, flags, sources);
	const discover = discoverOptionsFrom(config, workspace, homeFrom(env, homedir()));
	if (cache.use) discover.cacheDir = cache.dir;
	checkFlagRoots(flags.roots ?? [], cwd);
	return {
		workspace,
		...(loaded.file ? { configFile: loaded.file } : {}),
		discover,
		catalog,
		origins: originsOf(config, flags),
		permissions: { allow: config.permissions?.allow ?? [], deny: config.permissions?.deny ?? [] },
		model: modelOf(env, flags, sources),
		cacheDir: cache.dir,
		sources,
		diagnostics: guarded?.diagnostics ?? [],
	};
}

interface Trust {
	/** What the trust store said, when it was asked. */
	store: boolean | undefined;
	trusted: boolean;
	/** Trusted by the store or `SKILLSET_TRUST_WORKSPACE`, not merely by default. */
	explicitly: boolean;
}

async function trustOf(
	flags: SettingsFlags,
	fromEnv: SkillsetConfig,
	workspace: string,
	isTrusted: ResolveSettingsOptions["isTrusted"],
): Promise<Trust> {
	const store = flags.trustStore && !flags.untrusted ? ((await isTrusted?.(workspace)) ?? false) : undefined;
	const trusted = !flags.untrusted && (store ?? fromEnv.trustWorkspace ?? true);
	return { store, trusted, explicitly: trusted && (store === true || fromEnv.trustWorkspace === true) };
}

/** The workspace's own config as far as its trust allows (origins are not guarded when they are off anyway). */
function guard(
	config: SkillsetConfig,
	workspace: string,
	trust: Trust,
	noOrigins: boolean,
): { config: SkillsetConfig; diagnostics: DiscoveryDiagnostic[] } {
	const scopes = guardWorkspaceConfig(config, workspace, trust.trusted);
	const ceiling = guardWorkspacePermissions(scopes.config, workspace, trust.explicitly);
	const guarded = { config: ceiling.config, diagnostics: [...scopes.diagnostics, ...ceiling.diagnostics] };
	if (noOrigins) return guarded;
	const commands = guardWorkspaceCommands(guarded.config, workspace, trust.explicitly);
	return { config: commands.config, diagnostics: [...guarded.diagnostics, ...commands.diagnostics] };
}

function setTrust(config: SkillsetConfig, sources: Record<string, SettingSource>, value: boolean, flag: string): void {
	config.trustWorkspace = value;
	sources.trustWorkspace = { from: "flag", flag };
}

/** How a fraction is named in a message: the flag, or the config file's key (no variable sets one). */
function fractionOf(sources: Record<string, SettingSource>): { name: string; source: SettingSource } {
	const source = sources["catalog.fraction"] ?? { from: "default" };
	const name = source.from === "flag" ? source.flag : `"catalog.fraction" in the config file`;
	return { name, source };
}

/** The cache folder, and whether the discovery index uses it (`SKILLSET_NO_CACHE`, `cache: false`). */
function cacheOf(
	env: SettingsEnv,
	cwd: string,
	flags: SettingsFlags,
	sources: Record<string, SettingSource>,
): { dir: string; use: boolean } {
	const off = env.SKILLSET_NO_CACHE ? parseBoolean(env.SKILLSET_NO_CACHE, "SKILLSET_NO_CACHE", "cache") : false;
	sources.cache =
		flags.cache === false
			? { from: "flag", flag: "--no-cache" }
			: env.SKILLSET_NO_CACHE
				? { from: "env", variable: "SKILLSET_NO_CACHE" }
				: { from: "default" };
	const variable = env.SKILLSET_CACHE_DIR ? "SKILLSET_CACHE_DIR" : env.XDG_CACHE_HOME ? "XDG_CACHE_HOME" : undefined;
	sources.cacheDir = variable ? { from: "env", variable } : { from: "default" };
	return { dir: defaultCacheDir(env, cwd), use: flags.cache !== false && !off };
}

/** Discovery options from the merged settings (the catalog, permissions and origins are not discovery's). */
function discoverOptionsFrom(config: SkillsetConfig, workspace: string, home: string): DiscoverOptions {
	const {
		catalog: _c,
		permissions: _p,
		mcpServers: _m,
		indexes: _i,
		originTimeoutMs: _t,
		allowOffline: _o,
		...rest
	} = config;
	return { ...rest, cwd: workspace, home };
}

function modelOf(env: SettingsEnv, flags: SettingsFlags, sources: Record<string, SettingSource>): ModelSettings {
	const name = flags.model ?? env.SKILLSET_MODEL ?? DEFAULT_MODEL;
	const baseURL = flags.baseURL ?? env.OPENAI_BASE_URL;
	const from = (flag: string | undefined, name: string, variable: string): SettingSource =>
		flag !== undefined
			? { from: "flag", flag: name }
			: env[variable] !== undefined
				? { from: "env", variable }
				: { from: "default" };
	sources["model.name"] = from(flags.model, "--model", "SKILLSET_MODEL");
	sources["model.baseURL"] = from(flags.baseURL, "--base-url", "OPENAI_BASE_URL");
	return { name, ...(baseURL ? { baseURL } : {}) };
}

function originsOf(config: SkillsetConfig, flags: SettingsFlags): OriginSettings {
	return {
		mcpServers: config.mcpServers ?? {},
		indexes: config.indexes ?? {},
		...(config.originTimeoutMs !== undefined ? { timeoutMs: config.originTimeoutMs } : {}),
		allowUnverified: flags.allowUnverified === true,
		allowOffline: config.allowOffline === true,
	};
}

/**
 * A root named on the command line must be a folder: anything else is an error, never silence. Looked at
 * synchronously: a stat per named root, where the promise API would cost every command its module and a thread pool.
 */
function checkFlagRoots(roots: readonly string[], cwd: string): void {
	for (const root of roots) {
		const what = `--root ${root}`;
		const info = statOrError(resolve(cwd, root));
		const problem =
			info instanceof Error
				? info.code === "ENOENT" || info.code === "ENOTDIR"
					? `${what} does not exist`
					: `cannot read ${what}: ${info.code}`
				: info.isDirectory()
					? undefined
					: `${what} is not a folder`;
		if (problem)
			throw new SettingsError("settings.not-a-folder", problem, {
				setting: "roots",
				source: FLAG_PLACE.source("roots"),
			});
	}
}

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

/**
 * The discovery options a library host scans with: the resolved settings' under the host's own `discover`, key by
 * key. Remote origins the settings name need their providers in `discover.origins` (the sources stage makes them):
 * without them this is a `settings.incomplete` error, never origins left out unsaid.
 */
export function discoverOptionsFor(settings: ResolvedSettings, discover: DiscoverOptions = {}): DiscoverOptions {
	const merged = { ...settings.discover, ...discover };
	const named = [
		...Object.keys(settings.origins.mcpServers).map((label) => `mcp:${label}`),
		...Object.keys(settings.origins.indexes).map((label) => `index:${label}`),
	];
	if (named.length > 0 && merged.origins === undefined) {
		const message = `the settings name remote origins (${named.join(", ")}): pass their providers as discover.origins`;
		const setting = Object.keys(settings.origins.mcpServers).length > 0 ? "mcpServers" : "indexes";
		const source = settings.sources[setting] ?? { from: "default" };
		throw new SettingsError("settings.incomplete", message, { setting, source });
	}
	return merged;
}

function statOrError(path: string): Stats | NodeJS.ErrnoException {
	try {
		return statSync(path);
	} catch (error) {
		return error as NodeJS.ErrnoException;
	}
}
