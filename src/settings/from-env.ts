import { resolve } from "node:path";
import type { CatalogFormat } from "../catalog/index.ts";
import type { CollisionPolicy, PresetName } from "../discovery/index.ts";
import { type CatalogConfig, checkOneBudget } from "./catalog.ts";
import { serversIn } from "./config-file.ts";
import { namedPlace, type Place, SettingsError } from "./errors.ts";
import { checkConfig, checkSetting, type McpServerSetting, type SkillsetConfig } from "./shape.ts";

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
