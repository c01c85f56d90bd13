import { resolve } from "node:path";
import type { CatalogFormat } from "../catalog/index.ts";
import type { CollisionPolicy, PresetName } from "../discovery/index.ts";
import { type CatalogConfig, checkFlagCounts, checkOneBudget } from "./catalog.ts";
import { namedPlace, type Place, SettingsError, settingsError } from "./errors.ts";
import { checkSetting, type McpServerSetting, ORIGIN_LABEL, type SkillsetConfig } from "./shape.ts";

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
