import { layerCatalog } from "./catalog.ts";
import type { Place, SettingSource } from "./errors.ts";
import { CATALOG_KEYS, SETTING_KEYS, type SkillsetConfig } from "./shape.ts";

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
