// The config's shape and what is wrong with a setting: the types every layer fills and the errors every check
// raises. One module with the errors, since every command loads both (start-up pays per module).
import type { CatalogBudget, CatalogFormat } from "../catalog/index.ts";
import { COLLISION_POLICIES, type CollisionPolicy, PRESET_NAMES, type PresetName } from "../discovery/index.ts";

/** Where a setting's value came from, lowest precedence first: a default, the config file, a variable, a flag. */
export type SettingLayer = "default" | "file" | "env" | "flag";

/** Where one setting came from, named as the user set it: the file, the `SKILLSET_*` variable, the flag. */
export type SettingSource =
	| { from: "default" }
	| { from: "file"; file: string }
	| { from: "env"; variable: string }
	| { from: "flag"; flag: string };

/** Codes of {@link SettingsError}: what is wrong with a setting. */
export type SettingsErrorCode =
	| "settings.unreadable"
	| "settings.not-json"
	| "settings.unknown"
	| "settings.invalid"
	| "settings.conflict"
	| "settings.incomplete"
	| "settings.not-a-folder";

/** Each code with a one-line description. */
export const SETTINGS_ERROR_CODES: Readonly<Record<SettingsErrorCode, string>> = {
	"settings.unreadable": "the config file cannot be read",
	"settings.not-json": "the config file (or a JSON variable) is not valid JSON",
	"settings.unknown": "a key that is no setting",
	"settings.invalid": "a value of the wrong type, outside the allowed values, or badly formed",
	"settings.conflict": "two settings of one source that cannot be used together (two budgets, a token twice)",
	"settings.incomplete": "a setting that needs another one (a budget fraction without a context window)",
	"settings.not-a-folder": "a root named on the command line that does not exist or is not a folder",
};

/**
 * A setting that cannot be used. The message names the setting as the user set it (the key in the file, the
 * variable, the flag); `setting` is its key as the config file spells it, `source` where the value came from.
 */
export class SettingsError extends Error {
	readonly code: SettingsErrorCode;
	readonly setting: string | undefined;
	readonly source: SettingSource | undefined;

	constructor(
		code: SettingsErrorCode,
		message: string,
		options: { setting?: string; source?: SettingSource; cause?: unknown } = {},
	) {
		super(message, { cause: options.cause });
		this.name = "SettingsError";
		this.code = code;
		this.setting = options.setting;
		this.source = options.source;
	}
}

/**
 * One source of settings as it names them: a key becomes `"catalog.tokens" in FILE`, `SKILLSET_BUDGET_TOKENS` or
 * `--budget-tokens`, and has the source recorded for it.
 */
export interface Place {
	layer: Exclude<SettingLayer, "default">;
	/** The name the user knows the setting `key` by (a list item `key[3]` is named as its list). */
	label(key: string): string;
	/** Where the setting `key` came from. */
	source(key: string): SettingSource;
}

/** `key` without a list index or the part inside a structured setting: what `SettingsError.setting` holds. */
export function settingOf(key: string): string {
	return key.replace(/\[\d+\]$/, "");
}

/** A {@link SettingsError} about `key` of `place`: `message` is the whole text. */
export function settingsError(code: SettingsErrorCode, place: Place, key: string, message: string): SettingsError {
	return new SettingsError(code, message, { setting: settingOf(key), source: place.source(key) });
}

/** A place whose settings are named by a table (variables, flags); a part of a structured setting by its setting. */
export function namedPlace(layer: "env" | "flag", names: Readonly<Record<string, string>>): Place {
	const nameOf = (key: string): string | undefined => {
		const bare = settingOf(key);
		return names[bare] ?? names[bare.split(".")[0] ?? bare];
	};
	const label = (key: string): string => {
		const bare = settingOf(key);
		const [first = bare, ...rest] = bare.split(".");
		// A part of a structured setting (`mcpServers.acme.url`) is named after the setting that holds it.
		if (names[bare] === undefined && names[first] !== undefined) return `${names[first]} (${rest.join(".")})`;
		return names[bare] ?? bare;
	};
	const source = (key: string): SettingSource => {
		const name = nameOf(key) ?? settingOf(key);
		return layer === "env" ? { from: "env", variable: name } : { from: "flag", flag: name };
	};
	return { layer, label, source };
}

/** The place of a config file: keys are named `"key" in FILE`, the file itself by its path. */
export function filePlace(file: string): Place {
	return {
		layer: "file",
		label: (key) => (key === "" ? file : `"${settingOf(key)}" in ${file}`),
		source: () => ({ from: "file", file }),
	};
}

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
	/** Exit 0 even when an origin failed and nothing of it was served from the cache (the warning is still shown). */
	allowOffline?: boolean;
}

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

// The catalog's formats, spelled here so that reading a config does not load the catalog stage (start-up time);
// the type check below fails if this list and `CatalogFormat` ever differ.
const CATALOG_FORMATS = ["xml", "markdown", "json"] as const satisfies readonly CatalogFormat[];
const _formatsComplete: [Exclude<CatalogFormat, (typeof CATALOG_FORMATS)[number]>] extends [never] ? true : never =
	true;

type Check = (value: unknown, key: string, place: Place) => void;

const shown = (value: unknown) => (typeof value === "string" ? `'${value}'` : JSON.stringify(value));
const invalid = (place: Place, key: string, message: string) => settingsError("settings.invalid", place, key, message);

const string: Check = (value, key, place) => {
	if (typeof value !== "string" || value === "")
		throw invalid(place, key, `${place.label(key)} must be a non-empty string`);
};
const boolean: Check = (value, key, place) => {
	if (typeof value !== "boolean")
		throw invalid(place, key, `${place.label(key)} must be true or false, not ${shown(value)}`);
};
const positive: Check = (value, key, place) => {
	if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
		throw invalid(place, key, `${place.label(key)} must be a positive number, not ${shown(value)}`);
	}
};
const oneOf =
	(allowed: readonly string[]): Check =>
	(value, key, place) => {
		if (typeof value !== "string" || !allowed.includes(value)) {
			throw invalid(place, key, `${place.label(key)} must be one of ${allowed.join(", ")}, not ${shown(value)}`);
		}
	};
const list =
	(item: Check): Check =>
	(value, key, place) => {
		if (!Array.isArray(value)) throw invalid(place, key, `${place.label(key)} must be a list`);
		value.forEach((entry, index) => {
			item(entry, `${key}[${index}]`, place);
		});
	};
const object =
	(shape: Readonly<Record<string, Check>>): Check =>
	(value, key, place) => {
		if (value === null || typeof value !== "object" || Array.isArray(value)) {
			throw invalid(place, key, `${place.label(key)} must be an object`);
		}
		for (const [name, child] of Object.entries(value)) {
			const path = key === "" ? name : `${key}.${name}`;
			const check = Object.hasOwn(shape, name) ? shape[name] : undefined;
			if (!check) {
				const known = Object.keys(shape).join(", ");
				throw settingsError(
					"settings.unknown",
					place,
					path,
					`${place.label(path)} is not a known setting (known: ${known})`,
				);
			}
			check(child, path, place);
		}
	};

const isObject = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === "object" && !Array.isArray(value);
const text: Check = (value, key, place) => {
	if (typeof value !== "string") throw invalid(place, key, `${place.label(key)} must be a string`);
};
/** An object keyed by origin label; each value checked by `item`. */
const byLabel =
	(item: Check): Check =>
	(value, key, place) => {
		if (!isObject(value)) throw invalid(place, key, `${place.label(key)} must be an object of LABEL: setting`);
		for (const [name, child] of Object.entries(value)) {
			if (!ORIGIN_LABEL.test(name)) {
				throw invalid(
					place,
					key,
					`${place.label(key)}: '${name}' is not a valid origin label (lowercase letters, digits and '-', starting with a letter or digit)`,
				);
			}
			item(child, `${key}.${name}`, place);
		}
	};
const stringMap: Check = (value, key, place) => {
	if (!isObject(value)) throw invalid(place, key, `${place.label(key)} must be an object of NAME: value`);
	for (const [name, child] of Object.entries(value)) text(child, `${key}.${name}`, place);
};
/** A URL with one of `protocols`, and no user name or password in it (those belong in a token, never printed). */
const url =
	(protocols: readonly string[]): Check =>
	(value, key, place) => {
		string(value, key, place);
		let parsed: URL;
		try {
			parsed = new URL(value as string);
		} catch {
			throw invalid(place, key, `${place.label(key)} is not a URL: ${shown(value)}`);
		}
		if (!protocols.includes(parsed.protocol)) {
			throw invalid(place, key, `${place.label(key)} must be a ${protocols.join(", ")} URL, not ${parsed.protocol}`);
		}
		if (parsed.username || parsed.password) {
			throw invalid(place, key, `${place.label(key)} must not carry credentials: give a token (tokenEnv) instead`);
		}
	};
const envName: Check = (value, key, place) => {
	if (typeof value !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
		throw invalid(place, key, `${place.label(key)} must be an environment variable name, not ${shown(value)}`);
	}
};
const stdioServer: Check = object({
	command: string,
	args: list(text),
	env: stringMap,
	cwd: string,
	skillUris: list(string),
});
const httpServer: Check = object({
	url: url(["http:", "https:"]),
	token: string,
	tokenEnv: envName,
	skillUris: list(string),
});
const mcpServer: Check = (value, key, place) => {
	if (!isObject(value) || Object.hasOwn(value, "command") === Object.hasOwn(value, "url")) {
		throw invalid(place, key, `${place.label(key)} must be an object with either "command" or "url"`);
	}
	if (Object.hasOwn(value, "command")) {
		stdioServer(value, key, place);
		return;
	}
	httpServer(value, key, place);
	if (Object.hasOwn(value, "token") && Object.hasOwn(value, "tokenEnv")) {
		const message = `${place.label(`${key}.token`)} and tokenEnv cannot be used together: choose one`;
		throw settingsError("settings.conflict", place, `${key}.token`, message);
	}
};

const CATALOG_SHAPE = {
	format: oneOf(CATALOG_FORMATS),
	location: boolean,
	tokens: positive,
	chars: positive,
	contextWindow: positive,
	fraction: positive,
} as const satisfies Record<string, Check>;

const SETTINGS_SHAPE = {
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
	catalog: object(CATALOG_SHAPE),
	permissions: object({ allow: list(string), deny: list(string) }),
	mcpServers: byLabel(mcpServer),
	indexes: byLabel(url(["http:", "https:", "file:"])),
	originTimeoutMs: positive,
	allowOffline: boolean,
} as const satisfies Record<keyof SkillsetConfig, Check>;

const CONFIG_SHAPE: Check = object(SETTINGS_SHAPE);

/** Every key of the config file, in its order. */
export const SETTING_KEYS: readonly (keyof SkillsetConfig)[] = Object.keys(SETTINGS_SHAPE) as (keyof SkillsetConfig)[];

/** Every key of the config file's `catalog`. */
export const CATALOG_KEYS: readonly (keyof CatalogBudget | "format" | "location")[] = Object.keys(
	CATALOG_SHAPE,
) as (keyof typeof CATALOG_SHAPE)[];

/** Checks a whole config (from any source) against the config file's rules, naming each key as `place` does. */
export function checkConfig(config: unknown, place: Place): void {
	CONFIG_SHAPE(config, "", place);
}

/** Checks `value` against the config file's rules for the setting `key`, naming it as `place` does. */
export function checkSetting(value: unknown, key: string, place: Place): void {
	CONFIG_SHAPE({ [key]: value }, "", place);
}
