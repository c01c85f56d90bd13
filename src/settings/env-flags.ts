// The two layers above the config file: `SKILLSET_*` variables, then flags (or a library host's own settings).
// One module, since every command reads both (start-up pays per module).
import { resolve } from "node:path";
import type { CatalogFormat } from "../catalog/index.ts";
import type { CollisionPolicy, PresetName } from "../discovery/index.ts";
import { type CatalogConfig, checkFlagCounts, checkOneBudget, serversIn } from "./layers.ts";
import {
	checkConfig,
	checkSetting,
	type McpServerSetting,
	namedPlace,
	ORIGIN_LABEL,
	type Place,
	SettingsError,
	type SkillsetConfig,
	settingsError,
} from "./shape.ts";

/** The environment a resolver reads: `SKILLSET_*` and the few standard variables (`HOME`, `XDG_*`). */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** The variable behind each setting, so messages name what the user set. */
const ENV_NAMES: Readonly<Record<string, string>> = {
	roots: "SKILLSET_ROOTS",
	presets: "SKILLSET_PRESETS",
	policy: "SKILLSET_POLICY",
	defaultRoots: "SKILLSET_DEFAULT_ROOTS",
	trustWorkspace: "SKILLSET_TRUST_WORKSPACE",
	"catalog.format": "SKILLSET_FORMAT",
	"catalog.tokens": "SKILLSET_BUDGET_TOKENS",
	"catalog.chars": "SKILLSET_BUDGET_CHARS",
	"catalog.contextWindow": "SKILLSET_CONTEXT_WINDOW",
	mcpServers: "SKILLSET_MCP_SERVERS",
	indexes: "SKILLSET_INDEXES",
	originTimeoutMs: "SKILLSET_ORIGIN_TIMEOUT_MS",
	allowOffline: "SKILLSET_ALLOW_OFFLINE",
};

/** How the variables name their settings. */
export const ENV_PLACE: Place = namedPlace("env", ENV_NAMES);

/**
 * Settings from `SKILLSET_*` environment variables, checked like the config file; messages name the variable.
 * Paths are relative to `workspace`.
 */
export function configFromEnv(env: SettingsEnv, workspace: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	const roots = env.SKILLSET_ROOTS;
	if (roots) {
		config.roots = roots
			.split(roots.includes(";") ? ";" : ":")
			.filter(Boolean)
			.map((p) => resolve(workspace, p));
	}
	const presets = env.SKILLSET_PRESETS;
	if (presets) config.presets = presets.split(",").map((p) => p.trim()) as PresetName[];
	if (env.SKILLSET_POLICY) config.policy = env.SKILLSET_POLICY as CollisionPolicy;
	if (env.SKILLSET_DEFAULT_ROOTS)
		config.defaultRoots = parseBoolean(env.SKILLSET_DEFAULT_ROOTS, "SKILLSET_DEFAULT_ROOTS", "defaultRoots");
	if (env.SKILLSET_TRUST_WORKSPACE) {
		config.trustWorkspace = parseBoolean(env.SKILLSET_TRUST_WORKSPACE, "SKILLSET_TRUST_WORKSPACE", "trustWorkspace");
	}
	const catalog = catalogFromEnv(env);
	if (Object.keys(catalog).length > 0) config.catalog = catalog;
	Object.assign(config, originsFromEnv(env, workspace));
	checkConfig(config, ENV_PLACE);
	checkOneBudget(config.catalog, ENV_PLACE);
	return config;
}

function catalogFromEnv(env: SettingsEnv): CatalogConfig {
	const catalog: CatalogConfig = {};
	if (env.SKILLSET_FORMAT) catalog.format = env.SKILLSET_FORMAT as CatalogFormat;
	if (env.SKILLSET_BUDGET_TOKENS) catalog.tokens = textNumber(env.SKILLSET_BUDGET_TOKENS);
	if (env.SKILLSET_BUDGET_CHARS) catalog.chars = textNumber(env.SKILLSET_BUDGET_CHARS);
	if (env.SKILLSET_CONTEXT_WINDOW) catalog.contextWindow = textNumber(env.SKILLSET_CONTEXT_WINDOW);
	return catalog;
}

/**
 * Origins from `SKILLSET_INDEXES` (`label=url,label=url`), `SKILLSET_MCP_SERVERS` (JSON, as `mcpServers` in the
 * config file) and `SKILLSET_ORIGIN_TIMEOUT_MS`; checked by the caller.
 */
function originsFromEnv(env: SettingsEnv, workspace: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	if (env.SKILLSET_INDEXES) {
		config.indexes = {};
		for (const pair of env.SKILLSET_INDEXES.split(",").filter((p) => p.trim() !== "")) {
			const at = pair.indexOf("=");
			if (at < 1) {
				const message = `SKILLSET_INDEXES must be LABEL=URL pairs separated by commas, not '${pair}'`;
				throw new SettingsError("settings.invalid", message, {
					setting: "indexes",
					source: ENV_PLACE.source("indexes"),
				});
			}
			config.indexes[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
		}
	}
	if (env.SKILLSET_MCP_SERVERS) {
		let servers: unknown;
		try {
			servers = JSON.parse(env.SKILLSET_MCP_SERVERS);
		} catch (error) {
			const message = `SKILLSET_MCP_SERVERS is not valid JSON: ${(error as Error).message}`;
			throw new SettingsError("settings.not-json", message, {
				setting: "mcpServers",
				source: ENV_PLACE.source("mcpServers"),
			});
		}
		checkSetting(servers, "mcpServers", ENV_PLACE);
		config.mcpServers = serversIn(workspace, servers as Record<string, McpServerSetting>);
	}
	if (env.SKILLSET_ORIGIN_TIMEOUT_MS) config.originTimeoutMs = textNumber(env.SKILLSET_ORIGIN_TIMEOUT_MS);
	if (env.SKILLSET_ALLOW_OFFLINE)
		config.allowOffline = parseBoolean(env.SKILLSET_ALLOW_OFFLINE, "SKILLSET_ALLOW_OFFLINE", "allowOffline");
	return config;
}

/** A number from text; text that is not one stays text, so the check names the setting and the value. */
export function textNumber(text: string): number {
	const number = Number(text);
	return (text.trim() === "" || Number.isNaN(number) ? text : number) as number;
}

/** A yes/no environment value (1, true, yes, on / 0, false, no, off); anything else is an error naming it. */
export function parseBoolean(value: string, name: string, setting: string): boolean {
	if (/^(1|true|yes|on)$/i.test(value)) return true;
	if (/^(0|false|no|off)$/i.test(value)) return false;
	const source = { from: "env", variable: name } as const;
	throw new SettingsError("settings.invalid", `${name} must be true or false, not '${value}'`, { setting, source });
}

/** The home folder: `SKILLSET_HOME`, else `HOME`, else `fallback` (the system's). */
export function homeFrom(env: SettingsEnv, fallback: string): string {
	return env.SKILLSET_HOME ?? env.HOME ?? fallback;
}

/**
 * The settings a host or the command line gives, highest in precedence: the CLI parses its flags into this plain
 * object, a library host fills it itself. Numbers may be given as text (as typed); paths are relative to `cwd`.
 */
export interface SettingsFlags {
	/** Extra workspace roots, before every other root (`--root`); each must be a folder. */
	roots?: readonly string[];
	/** False: scan only the roots given, no conventional folders (`--no-default-roots`). */
	defaultRoots?: boolean;
	/** Client presets; an item may name several, separated by commas (`--preset`). */
	presets?: readonly string[];
	/** What to do with colliding names (`--policy`). */
	policy?: string;
	/** Treat the workspace as untrusted (`--untrusted`). */
	untrusted?: boolean;
	/** Trust the workspace only if the trust store says so (`--trust-store`; see `isTrusted`). */
	trustStore?: boolean;
	/** Also scan hidden folders below each root (`--include-hidden`). */
	includeHidden?: boolean;
	/** False: neither use nor write the discovery index in the cache folder (`--no-cache`). */
	cache?: boolean;
	/** MCP server origins, `LABEL=COMMAND ARGS` (split like a shell would, never run by one) or `LABEL=URL` (`--mcp`). */
	mcp?: readonly string[];
	/** Well-known index origins, `LABEL=URL` (`--index`). */
	index?: readonly string[];
	/** MCP server origins given as settings, after `mcp` (chat's `--mcp`); taken as given. */
	mcpServers?: Readonly<Record<string, McpServerSetting>>;
	/** How long one origin may take to load, in milliseconds (`--origin-timeout`). */
	originTimeout?: number | string;
	/** False: ignore the origins of the config file and `SKILLSET_*`; these still count (`--no-origins`). */
	origins?: boolean;
	/** Read v0.1.0 indexes, whose files cannot be verified (`--allow-unverified`); never from a file or variable. */
	allowUnverified?: boolean;
	/** Exit 0 even when an origin failed with nothing cached (`--allow-offline`). */
	allowOffline?: boolean;
	/** The catalog's format, location and one budget (`--format`, `--location`, `--budget-tokens`, ...). */
	catalog?: {
		format?: string;
		location?: boolean;
		tokens?: number | string;
		chars?: number | string;
		contextWindow?: number | string;
		fraction?: number | string;
	};
	/** Tool patterns allowed at all, after the config file's (chat's `--allow`). */
	allow?: readonly string[];
	/** Tool patterns always denied, after the config file's (chat's `--deny`). */
	deny?: readonly string[];
	/** The model an agent talks to (chat's `--model`; else `SKILLSET_MODEL`). */
	model?: string;
	/** The model's OpenAI-compatible endpoint (chat's `--base-url`; else `OPENAI_BASE_URL`). */
	baseURL?: string;
}

/** The flag behind each setting, so a mistake is reported as the user typed it. */
const FLAG_NAMES: Readonly<Record<string, string>> = {
	roots: "--root",
	defaultRoots: "--no-default-roots",
	presets: "--preset",
	policy: "--policy",
	includeHidden: "--include-hidden",
	trustWorkspace: "--untrusted",
	cache: "--no-cache",
	mcpServers: "--mcp",
	indexes: "--index",
	originTimeoutMs: "--origin-timeout",
	allowUnverified: "--allow-unverified",
	allowOffline: "--allow-offline",
	"catalog.format": "--format",
	"catalog.location": "--location",
	"catalog.tokens": "--budget-tokens",
	"catalog.chars": "--budget-chars",
	"catalog.contextWindow": "--context-window",
	"catalog.fraction": "--fraction",
	"permissions.allow": "--allow",
	"permissions.deny": "--deny",
};

/** How flags name their settings. */
export const FLAG_PLACE: Place = namedPlace("flag", FLAG_NAMES);

/**
 * The settings the flags give, in the config file's terms, checked by its rules and named as flags. Roots and the
 * stdio servers of `mcp` are relative to `cwd` (the roots are checked on disk by the resolver).
 */
export function configFromFlags(flags: SettingsFlags, cwd: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	if (flags.presets) config.presets = flags.presets.flatMap((p) => p.split(",")).map((p) => p.trim()) as PresetName[];
	if (flags.policy !== undefined) config.policy = flags.policy as CollisionPolicy;
	if (flags.includeHidden) config.includeHidden = true;
	if (flags.defaultRoots === false) config.defaultRoots = false;
	for (const [key, value] of Object.entries(config)) checkSetting(value, key, FLAG_PLACE);
	// Checked on disk by the resolver, as typed; an empty one is the working folder, as a path would be.
	if (flags.roots?.length) config.roots = flags.roots.map((root) => resolve(cwd, root));
	const origins = originsFromFlags(flags, cwd);
	const catalog = flags.catalog ? catalogFromFlags(flags.catalog) : undefined;
	const permissions = {
		...(flags.allow?.length ? { allow: [...flags.allow] } : {}),
		...(flags.deny?.length ? { deny: [...flags.deny] } : {}),
	};
	return {
		...config,
		...origins,
		...(catalog ? { catalog } : {}),
		...(Object.keys(permissions).length > 0 ? { permissions } : {}),
	};
}

function catalogFromFlags(flags: NonNullable<SettingsFlags["catalog"]>): CatalogConfig {
	const catalog: CatalogConfig = {};
	if (flags.format !== undefined) catalog.format = flags.format as CatalogFormat;
	for (const key of ["tokens", "chars", "contextWindow", "fraction"] as const) {
		const value = flags[key];
		if (value !== undefined) catalog[key] = typeof value === "string" ? flagNumber(value) : value;
	}
	if (flags.location !== undefined) catalog.location = flags.location;
	checkSetting(catalog, "catalog", FLAG_PLACE);
	checkFlagCounts(catalog, FLAG_PLACE);
	checkOneBudget(catalog, FLAG_PLACE);
	return catalog;
}

/** The origin settings the flags give (`mcp`, `index`, `originTimeout`, then `mcpServers`), checked as flags. */
function originsFromFlags(flags: SettingsFlags, cwd: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	for (const text of flags.mcp ?? []) {
		const { label, server } = parseMcpFlag(text, cwd);
		config.mcpServers = { ...config.mcpServers, [label]: server };
	}
	for (const text of flags.index ?? []) {
		const { label, rest } = labelled(text, "--index", "URL");
		config.indexes = { ...config.indexes, [label]: rest };
	}
	if (flags.originTimeout !== undefined) {
		const text = flags.originTimeout;
		const ms = Number(text);
		config.originTimeoutMs = (Number.isNaN(ms) ? text : ms) as number;
	}
	if (flags.allowOffline !== undefined) config.allowOffline = flags.allowOffline;
	for (const [key, value] of Object.entries(config)) checkSetting(value, key, FLAG_PLACE);
	// Given as settings by the command itself (chat's own --mcp syntax), after the origin flags, label by label.
	if (flags.mcpServers) config.mcpServers = { ...config.mcpServers, ...flags.mcpServers };
	return config;
}

/** A flag's number; text that is not one is kept, so the check names the flag and the value. */
function flagNumber(text: string): number {
	const parsed = Number(text);
	return (text.trim() === "" || Number.isNaN(parsed) ? text : parsed) as number;
}

/**
 * Splits a command line into words as a POSIX shell would quote them, without running a shell: single quotes keep
 * everything, double quotes keep all but `\"` and `\\`, a backslash outside quotes escapes only a space, a quote or a
 * backslash (so Windows paths survive). Nothing is expanded. An unterminated quote is a `settings.invalid` error.
 */
export function splitCommandLine(line: string): string[] {
	const words: string[] = [];
	let word: string | undefined;
	let quote: "'" | '"' | undefined;
	for (let i = 0; i < line.length; i++) {
		const char = line[i] as string;
		const next = line[i + 1];
		if (quote === "'") {
			if (char === "'") quote = undefined;
			else word = (word ?? "") + char;
		} else if (quote === '"') {
			if (char === '"') quote = undefined;
			else if (char === "\\" && (next === '"' || next === "\\")) word = (word ?? "") + line[++i];
			else word = (word ?? "") + char;
		} else if (/\s/.test(char)) {
			if (word !== undefined) words.push(word);
			word = undefined;
		} else if (char === "'" || char === '"') {
			quote = char;
			word ??= "";
		} else if (char === "\\" && next !== undefined && /[\s'"\\]/.test(next)) {
			word = (word ?? "") + line[++i];
		} else word = (word ?? "") + char;
	}
	if (quote) throw mcpError(`unterminated ${quote} quote in '${line}'`);
	if (word !== undefined) words.push(word);
	return words;
}

/** `LABEL=COMMAND ARGS...` or `LABEL=URL` as an MCP server setting, a command starting in `cwd`. */
function parseMcpFlag(text: string, cwd: string): { label: string; server: McpServerSetting } {
	const { label, rest } = labelled(text, "--mcp", "COMMAND or URL");
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) return { label, server: { url: rest } };
	const [command, ...args] = splitCommandLine(rest);
	if (!command) throw mcpError(`--mcp ${label}= needs a command or a URL`);
	return { label, server: { command, args, cwd } };
}

function labelled(text: string, flag: "--mcp" | "--index", what: string): { label: string; rest: string } {
	const key = flag === "--mcp" ? "mcpServers" : "indexes";
	const at = text.indexOf("=");
	if (at < 0) throw settingsError("settings.invalid", FLAG_PLACE, key, `${flag} must be LABEL=${what}, not '${text}'`);
	const label = text.slice(0, at).trim();
	if (!ORIGIN_LABEL.test(label)) {
		const message = `${flag}: '${label}' is not a valid origin label (lowercase letters, digits and '-', starting with a letter or digit)`;
		throw settingsError("settings.invalid", FLAG_PLACE, key, message);
	}
	return { label, rest: text.slice(at + 1).trim() };
}

function mcpError(message: string): SettingsError {
	return new SettingsError("settings.invalid", message, {
		setting: "mcpServers",
		source: FLAG_PLACE.source("mcpServers"),
	});
}
