// The config file, the catalog settings and how the layers merge: one module, since every command loads all three
// (start-up pays per module).
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { CatalogBudget, CatalogFormat } from "../catalog/index.ts";
import {
	CATALOG_KEYS,
	checkConfig,
	filePlace,
	type McpServerSetting,
	type Place,
	SETTING_KEYS,
	type SettingSource,
	SettingsError,
	type SkillsetConfig,
	settingsError,
} from "./shape.ts";

/** The catalog settings as the config file spells them: a format, `location`, and one budget. */
export type CatalogConfig = NonNullable<SkillsetConfig["catalog"]>;

/** The catalog options the settings give (`buildCatalog`'s format, location and budget). */
export interface CatalogSettings {
	format?: CatalogFormat;
	location?: boolean;
	budget?: CatalogBudget;
}

const BUDGET_KEYS = ["tokens", "chars", "contextWindow"] as const;

/** One source may set one budget: tokens, chars or a context window. Two is an error naming both. */
export function checkOneBudget(catalog: CatalogConfig | undefined, place: Place): void {
	const [first, second] = BUDGET_KEYS.filter((key) => catalog?.[key] !== undefined);
	if (first && second) {
		const message = `${place.label(`catalog.${first}`)} and ${place.label(`catalog.${second}`)} cannot be used together: choose one budget`;
		throw settingsError("settings.conflict", place, `catalog.${second}`, message);
	}
}

/**
 * Catalog settings of a higher-precedence source over a lower one. A budget is one setting: when the higher source
 * sets any budget (tokens, chars or a context window), the lower source's budget is dropped whole.
 */
export function layerCatalog(lower: CatalogConfig | undefined, upper: CatalogConfig | undefined): CatalogConfig {
	const merged = { ...lower, ...upper };
	if (BUDGET_KEYS.some((key) => upper?.[key] !== undefined)) {
		for (const key of BUDGET_KEYS) if (upper?.[key] === undefined) delete merged[key];
		if (upper?.contextWindow === undefined && upper?.fraction === undefined) delete merged.fraction;
	}
	return merged;
}

/** Flag budgets are counts: at least 1 (a file or variable may say any positive number). */
export function checkFlagCounts(flags: CatalogConfig | undefined, place: Place): void {
	for (const key of ["tokens", "chars"] as const) {
		if ((flags?.[key] ?? 1) < 1) {
			throw settingsError(
				"settings.invalid",
				place,
				`catalog.${key}`,
				`${place.label(`catalog.${key}`)} must be at least 1`,
			);
		}
	}
}

/**
 * The catalog options from the layered catalog settings. With `strict`, a fraction is checked: it needs a context
 * window and is at most 1, named as the user set it (`fraction.name`); without, an incomplete one is left out.
 */
export function catalogSettingsFrom(
	merged: CatalogConfig,
	fraction: { name: string; source: SettingSource },
	strict: boolean,
): CatalogSettings {
	const budget: CatalogBudget = {};
	if (merged.tokens !== undefined) budget.tokens = merged.tokens;
	else if (merged.chars !== undefined) budget.chars = merged.chars;
	else if (merged.contextWindow !== undefined) budget.contextWindow = merged.contextWindow;
	if (merged.fraction !== undefined && strict) {
		const about = { setting: "catalog.fraction", source: fraction.source };
		if (budget.contextWindow === undefined) {
			const message = `${fraction.name} needs a context window (--context-window or "catalog.contextWindow")`;
			throw new SettingsError("settings.incomplete", message, about);
		}
		if (merged.fraction > 1) throw new SettingsError("settings.invalid", `${fraction.name} must be at most 1`, about);
	}
	if (merged.fraction !== undefined && budget.contextWindow !== undefined && merged.fraction <= 1) {
		budget.fraction = merged.fraction;
	}
	return {
		...(merged.format ? { format: merged.format } : {}),
		...(merged.location !== undefined ? { location: merged.location } : {}),
		...(Object.keys(budget).length > 0 ? { budget } : {}),
	};
}

/** The config file looked for in the workspace. */
export const CONFIG_FILE_NAME = "skillset.config.json";

/** Largest config file read: far above any real one, and a bound on what a cloned workspace can make us read. */
export const MAX_CONFIG_BYTES: number = 1024 * 1024;

/** A config file as read: its settings (paths made absolute), and where it is. */
export interface LoadedConfig {
	config: SkillsetConfig;
	/** The file read; undefined when the workspace has no config file. */
	file: string | undefined;
	place: Place;
}

/**
 * Reads and checks a config file: `path` when given (it must exist), else `skillset.config.json` in `workspace`
 * when it exists. Mistakes (bad JSON, unknown keys, wrong types) are errors naming the file and the key.
 */
export async function loadConfigFile(path: string | undefined, workspace: string): Promise<LoadedConfig> {
	const file = resolve(workspace, path ?? CONFIG_FILE_NAME);
	const place = filePlace(file);
	let text: string;
	try {
		// Looked at first, so that a workspace without a config never loads the runtime stage (start-up time); a
		// synchronous stat, so that neither does it load the promise file API and start a thread pool for one stat.
		statSync(file);
		const { readRegularFile } = await import("../runtime/index.ts");
		// Bounded, and a regular file only: a cloned workspace's config may be a FIFO or a link to /dev/zero.
		text = await readRegularFile(file, MAX_CONFIG_BYTES);
	} catch (error) {
		if (path === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") {
			return { config: {}, file: undefined, place };
		}
		const message = `cannot read config ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`;
		throw new SettingsError("settings.unreadable", message, { source: { from: "file", file }, cause: error });
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		const message = `${file} is not valid JSON: ${(error as Error).message}`;
		throw new SettingsError("settings.not-json", message, { source: { from: "file", file }, cause: error });
	}
	checkConfig(data, place);
	checkOneBudget((data as SkillsetConfig).catalog, place);
	return { config: relativeTo(dirname(file), data as SkillsetConfig), file, place };
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

/** One source of settings, in the config file's terms, with how it names them. */
export interface Layer {
	config: SkillsetConfig;
	place: Place;
}

/** Settings layered by label: a higher source's label replaces a lower one's. */
type ByLabel = "mcpServers" | "indexes";

/** Keys whose values are not replaced whole by a higher source. */
const MERGED_KEYS: ReadonlySet<string> = new Set(["roots", "catalog", "permissions", "mcpServers", "indexes"]);

/**
 * The layers merged, lowest first: a higher source's value replaces a lower one's, except that roots and
 * permissions join (higher first for roots), origins replace label by label (`originLayers`: the layers whose origins
 * count), and the catalog's budget is one setting.
 */
export function mergeLayers(layers: readonly Layer[], originLayers: readonly Layer[]): SkillsetConfig {
	const merged: SkillsetConfig = {};
	for (const { config } of layers) {
		for (const [key, value] of Object.entries(config)) {
			if (!MERGED_KEYS.has(key)) Object.assign(merged, { [key]: value });
		}
	}
	const highFirst = [...layers].reverse();
	merged.roots = highFirst.flatMap((layer) => layer.config.roots ?? []);
	merged.catalog = layers.reduce((lower, layer) => layerCatalog(lower, layer.config.catalog), {});
	const allow = layers.flatMap((layer) => layer.config.permissions?.allow ?? []);
	const deny = layers.flatMap((layer) => layer.config.permissions?.deny ?? []);
	if (allow.length > 0 || deny.length > 0) merged.permissions = { allow, deny };
	merged.mcpServers = Object.assign({}, ...originLayers.map((layer) => layer.config.mcpServers ?? {}));
	merged.indexes = Object.assign({}, ...originLayers.map((layer) => layer.config.indexes ?? {}));
	return merged;
}

/**
 * Where each setting of `merged` came from: the highest layer that gave it, else the default. Keys are the config
 * file's (`policy`, `catalog.tokens`, `permissions.allow`); an origin is keyed by its label (`mcpServers.acme`).
 */
export function sourcesOf(
	layers: readonly Layer[],
	originLayers: readonly Layer[],
	merged: SkillsetConfig,
): Record<string, SettingSource> {
	const sources: Record<string, SettingSource> = {};
	const highest = (from: readonly Layer[], key: string, has: (config: SkillsetConfig) => boolean) => {
		const layer = [...from].reverse().find((candidate) => has(candidate.config));
		sources[key] = layer ? layer.place.source(key) : { from: "default" };
	};
	for (const key of SETTING_KEYS) {
		if (key !== "catalog" && key !== "permissions") highest(layers, key, (config) => present(config[key]));
	}
	for (const key of CATALOG_KEYS) {
		const kept = merged.catalog?.[key] !== undefined;
		highest(kept ? layers : [], `catalog.${key}`, (config) => config.catalog?.[key] !== undefined);
	}
	for (const key of ["allow", "deny"] as const) {
		highest(layers, `permissions.${key}`, (config) => present(config.permissions?.[key]));
	}
	for (const key of ["mcpServers", "indexes"] as const satisfies ByLabel[]) {
		highest(originLayers, key, (config) => present(config[key]));
		for (const label of Object.keys(merged[key] ?? {})) {
			highest(originLayers, `${key}.${label}`, (config) => Object.hasOwn(config[key] ?? {}, label));
		}
	}
	return sources;
}

/** Whether a source gave a setting: an empty list or map is as good as none. */
function present(value: unknown): boolean {
	if (value === undefined) return false;
	if (Array.isArray(value)) return value.length > 0;
	return typeof value !== "object" || value === null || Object.keys(value).length > 0;
}
