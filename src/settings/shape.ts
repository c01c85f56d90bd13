import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { CatalogBudget, CatalogFormat } from "../catalog/index.ts";
import {
	COLLISION_POLICIES,
	type CollisionPolicy,
	type DiscoverOptions,
	PRESET_NAMES,
	type PresetName,
} from "../discovery/index.ts";
import { UsageError } from "./io.ts";

/** `skillset.config.json`: discovery and catalog settings. Paths are relative to the file. */
export interface SkillsetConfig {
	roots?: string[];
	defaultRoots?: boolean;
	conventions?: string[];
	presets?: PresetName[];
	userRoots?: string[];
	adminRoots?: string[];
	adminLocked?: boolean;
	pluginRoots?: string[];
	builtinRoots?: string[];
	policy?: CollisionPolicy;
	trustWorkspace?: boolean;
	disabled?: string[];
	followSymlinks?: boolean;
	allowSymlinkedSkillFile?: boolean;
	includeHidden?: boolean;
	limits?: { maxDepth?: number; maxDirs?: number; maxEntries?: number };
	catalog?: { format?: CatalogFormat; location?: boolean } & CatalogBudget;
	/** The ceiling for `skillset chat`: tool patterns allowed at all, and patterns always denied. */
	permissions?: { allow?: string[]; deny?: string[] };
	/** Remote origins: MCP servers by the host's label (a stdio command, or a Streamable HTTP URL). */
	mcpServers?: Record<string, McpServerSetting>;
	/** Remote origins: well-known skills indexes by the host's label (`https:`, `http:` or `file:` base URLs). */
	indexes?: Record<string, string>;
	/** How long one origin may take to load, in milliseconds. */
	originTimeoutMs?: number;
}

// The catalog's formats, spelled here so that reading a config does not load the catalog stage (start-up time);
// the type check below fails if this list and `CatalogFormat` ever differ.
const CATALOG_FORMATS = ["xml", "markdown", "json"] as const satisfies readonly CatalogFormat[];
const _formatsComplete: [Exclude<CatalogFormat, (typeof CATALOG_FORMATS)[number]>] extends [never] ? true : never =
	true;

/** One MCP server origin as configured: a command to spawn, or a URL with an optional bearer token. */
export type McpServerSetting = (
	| { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
	| { url: string; token?: string; tokenEnv?: string }
) & {
	/** Skill URIs to fetch with `skills/get` even when the server does not list them. */
	skillUris?: string[];
};

/** What an origin label may be: the host's own short name, lowercase letters, digits and '-'. */
export const ORIGIN_LABEL: RegExp = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The config file name looked for in the working directory. */
const CONFIG_FILE_NAME = "skillset.config.json";

/** How a setting is named to the user where it came from: a key in a file, a variable, a flag. */
export type Label = (key: string) => string;

type Check = (value: unknown, key: string, label: Label) => void;

const shown = (value: unknown) => (typeof value === "string" ? `'${value}'` : JSON.stringify(value));

const string: Check = (value, key, label) => {
	if (typeof value !== "string" || value === "") throw new UsageError(`${label(key)} must be a non-empty string`);
};
const boolean: Check = (value, key, label) => {
	if (typeof value !== "boolean") throw new UsageError(`${label(key)} must be true or false, not ${shown(value)}`);
};
const positive: Check = (value, key, label) => {
	if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
		throw new UsageError(`${label(key)} must be a positive number, not ${shown(value)}`);
	}
};
const oneOf =
	(allowed: readonly string[]): Check =>
	(value, key, label) => {
		if (typeof value !== "string" || !allowed.includes(value)) {
			throw new UsageError(`${label(key)} must be one of ${allowed.join(", ")}, not ${shown(value)}`);
		}
	};
const list =
	(item: Check): Check =>
	(value, key, label) => {
		if (!Array.isArray(value)) throw new UsageError(`${label(key)} must be a list`);
		value.forEach((entry, index) => {
			item(entry, `${key}[${index}]`, label);
		});
	};
const object =
	(shape: Readonly<Record<string, Check>>): Check =>
	(value, key, label) => {
		if (value === null || typeof value !== "object" || Array.isArray(value)) {
			throw new UsageError(`${label(key)} must be an object`);
		}
		for (const [name, child] of Object.entries(value)) {
			const path = key === "" ? name : `${key}.${name}`;
			const check = Object.hasOwn(shape, name) ? shape[name] : undefined;
			if (!check) {
				throw new UsageError(`${label(path)} is not a known setting (known: ${Object.keys(shape).join(", ")})`);
			}
			check(child, path, label);
		}
	};

const isObject = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === "object" && !Array.isArray(value);
const text: Check = (value, key, label) => {
	if (typeof value !== "string") throw new UsageError(`${label(key)} must be a string`);
};
/** An object keyed by origin label; each value checked by `item`. */
const byLabel =
	(item: Check): Check =>
	(value, key, label) => {
		if (!isObject(value)) throw new UsageError(`${label(key)} must be an object of LABEL: setting`);
		for (const [name, child] of Object.entries(value)) {
			if (!ORIGIN_LABEL.test(name)) {
				throw new UsageError(
					`${label(key)}: '${name}' is not a valid origin label (lowercase letters, digits and '-', starting with a letter or digit)`,
				);
			}
			item(child, `${key}.${name}`, label);
		}
	};
const stringMap: Check = (value, key, label) => {
	if (!isObject(value)) throw new UsageError(`${label(key)} must be an object of NAME: value`);
	for (const [name, child] of Object.entries(value)) text(child, `${key}.${name}`, label);
};
/** A URL with one of `protocols`, and no user name or password in it (those belong in a token, never printed). */
const url =
	(protocols: readonly string[]): Check =>
	(value, key, label) => {
		string(value, key, label);
		let parsed: URL;
		try {
			parsed = new URL(value as string);
		} catch {
			throw new UsageError(`${label(key)} is not a URL: ${shown(value)}`);
		}
		if (!protocols.includes(parsed.protocol)) {
			throw new UsageError(`${label(key)} must be a ${protocols.join(", ")} URL, not ${parsed.protocol}`);
		}
		if (parsed.username || parsed.password) {
			throw new UsageError(`${label(key)} must not carry credentials: give a token (tokenEnv) instead`);
		}
	};
const envName: Check = (value, key, label) => {
	if (typeof value !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
		throw new UsageError(`${label(key)} must be an environment variable name, not ${shown(value)}`);
	}
};
const mcpServer: Check = (value, key, label) => {
	if (!isObject(value) || Object.hasOwn(value, "command") === Object.hasOwn(value, "url")) {
		throw new UsageError(`${label(key)} must be an object with either "command" or "url"`);
	}
	if (Object.hasOwn(value, "command"))
		object({ command: string, args: list(text), env: stringMap, cwd: string, skillUris: list(string) })(
			value,
			key,
			label,
		);
	else {
		object({ url: url(["http:", "https:"]), token: string, tokenEnv: envName, skillUris: list(string) })(
			value,
			key,
			label,
		);
		if (Object.hasOwn(value, "token") && Object.hasOwn(value, "tokenEnv")) {
			throw new UsageError(`${label(`${key}.token`)} and tokenEnv cannot be used together: choose one`);
		}
	}
};

const CONFIG_SHAPE: Check = object({
	roots: list(string),
	defaultRoots: boolean,
	conventions: list(string),
	presets: list(oneOf(PRESET_NAMES)),
	userRoots: list(string),
	adminRoots: list(string),
	adminLocked: boolean,
	pluginRoots: list(string),
	builtinRoots: list(string),
	policy: oneOf(COLLISION_POLICIES),
	trustWorkspace: boolean,
	disabled: list(string),
	followSymlinks: boolean,
	allowSymlinkedSkillFile: boolean,
	includeHidden: boolean,
	limits: object({ maxDepth: positive, maxDirs: positive, maxEntries: positive }),
	catalog: object({
		format: oneOf(CATALOG_FORMATS),
		location: boolean,
		tokens: positive,
		chars: positive,
		contextWindow: positive,
		fraction: positive,
	}),
	permissions: object({ allow: list(string), deny: list(string) }),
	mcpServers: byLabel(mcpServer),
	indexes: byLabel(url(["http:", "https:", "file:"])),
	originTimeoutMs: positive,
});

/**
 * Reads and checks a config file. Without `path`, `skillset.config.json` in `cwd` is used when it exists.
 * Mistakes (bad JSON, unknown keys, wrong types) are usage errors naming the file and the key.
 */
export async function loadConfig(path: string | undefined, cwd: string): Promise<SkillsetConfig> {
	const file = resolve(cwd, path ?? CONFIG_FILE_NAME);
	let text: string;
	try {
		text = await readFile(file, "utf8");
	} catch (error) {
		if (path === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") return {};
		throw new UsageError(`cannot read config ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
	}
	const label: Label = (key) => (key === "" ? file : `"${key.replace(/\[\d+\]$/, "")}" in ${file}`);
	CONFIG_SHAPE(data, "", label);
	checkOneBudget((data as SkillsetConfig).catalog, "catalog", label);
	return relativeTo(dirname(file), data as SkillsetConfig);
}

function relativeTo(base: string, config: SkillsetConfig): SkillsetConfig {
	const paths = (list: string[] | undefined) => list?.map((path) => resolve(base, path));
	const out: SkillsetConfig = { ...config };
	for (const key of ["roots", "userRoots", "adminRoots", "pluginRoots", "builtinRoots"] as const) {
		const resolved = paths(config[key]);
		if (resolved) out[key] = resolved;
	}
	// A server's folder is relative to the file too; without one it starts in the file's folder.
	if (config.mcpServers) out.mcpServers = serversIn(base, config.mcpServers);
	return out;
}

/** Stdio servers with their `cwd` resolved against `base` (and `base` when none is given). */
export function serversIn(
	base: string,
	servers: Readonly<Record<string, McpServerSetting>>,
): Record<string, McpServerSetting> {
	const entries = Object.entries(servers).map(([name, server]) => [
		name,
		"command" in server ? { ...server, cwd: resolve(base, server.cwd ?? ".") } : server,
	]);
	return Object.fromEntries(entries);
}

/** The variable behind each setting `configFromEnv` reads, so messages name what the user set. */
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
};

/** The name a setting has among `names` (a setting's list item is named as the setting). */
export function labelFrom(names: Readonly<Record<string, string>>): Label {
	return (key) => {
		const bare = key.replace(/\[\d+\]$/, "");
		const [first = bare, ...rest] = bare.split(".");
		// A part of a structured setting (`mcpServers.acme.url`) is named after the setting that holds it.
		if (names[bare] === undefined && names[first] !== undefined) return `${names[first]} (${rest.join(".")})`;
		return names[bare] ?? bare;
	};
}

/** Settings from `SKILLSET_*` environment variables, checked like the config file; messages name the variable. */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>, cwd: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	const roots = env.SKILLSET_ROOTS;
	if (roots)
		config.roots = roots
			.split(roots.includes(";") ? ";" : ":")
			.filter(Boolean)
			.map((p) => resolve(cwd, p));
	const presets = env.SKILLSET_PRESETS;
	if (presets) config.presets = presets.split(",").map((p) => p.trim()) as PresetName[];
	if (env.SKILLSET_POLICY) config.policy = env.SKILLSET_POLICY as CollisionPolicy;
	if (env.SKILLSET_DEFAULT_ROOTS)
		config.defaultRoots = parseBoolean(env.SKILLSET_DEFAULT_ROOTS, "SKILLSET_DEFAULT_ROOTS");
	if (env.SKILLSET_TRUST_WORKSPACE) {
		config.trustWorkspace = parseBoolean(env.SKILLSET_TRUST_WORKSPACE, "SKILLSET_TRUST_WORKSPACE");
	}
	const catalog: NonNullable<SkillsetConfig["catalog"]> = {};
	if (env.SKILLSET_FORMAT) catalog.format = env.SKILLSET_FORMAT as CatalogFormat;
	if (env.SKILLSET_BUDGET_TOKENS) catalog.tokens = envNumber(env.SKILLSET_BUDGET_TOKENS);
	if (env.SKILLSET_BUDGET_CHARS) catalog.chars = envNumber(env.SKILLSET_BUDGET_CHARS);
	if (env.SKILLSET_CONTEXT_WINDOW) catalog.contextWindow = envNumber(env.SKILLSET_CONTEXT_WINDOW);
	if (Object.keys(catalog).length > 0) config.catalog = catalog;
	Object.assign(config, originsFromEnv(env, cwd));
	const label = labelFrom(ENV_NAMES);
	CONFIG_SHAPE(config, "", label);
	checkOneBudget(config.catalog, "catalog", label);
	return config;
}

/**
 * Origins from `SKILLSET_INDEXES` (`label=url,label=url`), `SKILLSET_MCP_SERVERS` (JSON, as `mcpServers` in the
 * config file) and `SKILLSET_ORIGIN_TIMEOUT_MS`; checked by the caller.
 */
function originsFromEnv(env: Readonly<Record<string, string | undefined>>, cwd: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	if (env.SKILLSET_INDEXES) {
		config.indexes = {};
		for (const pair of env.SKILLSET_INDEXES.split(",").filter((p) => p.trim() !== "")) {
			const at = pair.indexOf("=");
			if (at < 1) throw new UsageError(`SKILLSET_INDEXES must be LABEL=URL pairs separated by commas, not '${pair}'`);
			config.indexes[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
		}
	}
	if (env.SKILLSET_MCP_SERVERS) {
		let servers: unknown;
		try {
			servers = JSON.parse(env.SKILLSET_MCP_SERVERS);
		} catch (error) {
			throw new UsageError(`SKILLSET_MCP_SERVERS is not valid JSON: ${(error as Error).message}`);
		}
		checkSetting(servers, "mcpServers", labelFrom(ENV_NAMES));
		config.mcpServers = serversIn(cwd, servers as Record<string, McpServerSetting>);
	}
	if (env.SKILLSET_ORIGIN_TIMEOUT_MS) config.originTimeoutMs = envNumber(env.SKILLSET_ORIGIN_TIMEOUT_MS);
	return config;
}

/** A number from a variable; text that is not one stays text, so the check below names the variable and value. */
function envNumber(text: string): number {
	const number = Number(text);
	return (text.trim() === "" || Number.isNaN(number) ? text : number) as number;
}

/** Checks `value` against the config file's rules for the setting `key`, naming it with `label`. */
export function checkSetting(value: unknown, key: string, label: Label): void {
	CONFIG_SHAPE({ [key]: value }, "", label);
}

const BUDGET_KEYS = ["tokens", "chars", "contextWindow"] as const;

/** One source may set one budget: tokens, chars or a context window. Two is a usage error naming both. */
export function checkOneBudget(catalog: SkillsetConfig["catalog"], prefix: string, label: Label): void {
	const set = BUDGET_KEYS.filter((key) => catalog?.[key] !== undefined);
	const [first, second] = set;
	if (first && second) {
		throw new UsageError(
			`${label(`${prefix}.${first}`)} and ${label(`${prefix}.${second}`)} cannot be used together: choose one budget`,
		);
	}
}

/**
 * Catalog settings of a higher-precedence source over a lower one. A budget is one setting: when the higher source
 * sets any budget (tokens, chars or a context window), the lower source's budget is dropped whole.
 */
export function layerCatalog(
	lower: SkillsetConfig["catalog"],
	upper: SkillsetConfig["catalog"],
): NonNullable<SkillsetConfig["catalog"]> {
	const merged = { ...lower, ...upper };
	if (BUDGET_KEYS.some((key) => upper?.[key] !== undefined)) {
		for (const key of BUDGET_KEYS) if (upper?.[key] === undefined) delete merged[key];
		if (upper?.contextWindow === undefined && upper?.fraction === undefined) delete merged.fraction;
	}
	return merged;
}

/** A yes/no environment value (1, true, yes, on / 0, false, no, off); anything else is a usage error naming it. */
export function parseBoolean(value: string, name: string): boolean {
	if (/^(1|true|yes|on)$/i.test(value)) return true;
	if (/^(0|false|no|off)$/i.test(value)) return false;
	throw new UsageError(`${name} must be true or false, not '${value}'`);
}

/** Discovery options from a merged config (later sources already applied over earlier ones). */
export function discoverOptionsFrom(config: SkillsetConfig, cwd: string, home: string): DiscoverOptions {
	const { catalog: _catalog, mcpServers: _servers, indexes: _indexes, originTimeoutMs: _timeout, ...rest } = config;
	return { ...rest, cwd, home };
}

/** The home folder: `SKILLSET_HOME`, else `HOME`, else the system's. */
export function homeFrom(env: Readonly<Record<string, string | undefined>>, fallback: string): string {
	return env.SKILLSET_HOME ?? env.HOME ?? fallback;
}
