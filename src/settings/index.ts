// The settings stage: one resolver for every setting (defaults < config file < SKILLSET_* < flags), trust-guarded,
// with the source of each value. Used by every CLI command and by library hosts. Light on purpose: it loads only
// the discovery stage (already loaded by any scan) and nothing of the catalog stage but its types. Four modules,
// since every command loads all of them and start-up pays per module.

export type { SettingsEnv, SettingsFlags } from "./env-flags.ts";
export { homeFrom, splitCommandLine } from "./env-flags.ts";
export type { CatalogConfig, CatalogSettings } from "./layers.ts";
export type {
	ModelSettings,
	OriginSettings,
	ResolvedSettings,
	ResolveSettingsOptions,
} from "./resolve-settings.ts";
export { DEFAULT_MODEL, discoverOptionsFor, resolveSettings } from "./resolve-settings.ts";
export type { McpServerSetting, SettingLayer, SettingSource, SettingsErrorCode, SkillsetConfig } from "./shape.ts";
export { ORIGIN_LABEL, SETTINGS_ERROR_CODES, SettingsError } from "./shape.ts";
