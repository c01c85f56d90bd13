// The settings stage: one resolver for every setting (defaults < config file < SKILLSET_* < flags), trust-guarded,
// with the source of each value. Used by every CLI command and by library hosts. Light on purpose: it loads only
// the discovery stage (already loaded by any scan) and nothing of the catalog stage but its types.

export type { CatalogConfig, CatalogSettings } from "./catalog.ts";
export type { SettingLayer, SettingSource, SettingsErrorCode } from "./errors.ts";
export { SETTINGS_ERROR_CODES, SettingsError } from "./errors.ts";
export type { SettingsEnv } from "./from-env.ts";
export { homeFrom } from "./from-env.ts";
export type { SettingsFlags } from "./from-flags.ts";
export { splitCommandLine } from "./from-flags.ts";
export { discoverOptionsFor } from "./host.ts";
export type {
	ModelSettings,
	OriginSettings,
	ResolvedSettings,
	ResolveSettingsOptions,
} from "./resolve-settings.ts";
export { DEFAULT_MODEL, resolveSettings } from "./resolve-settings.ts";
export type { McpServerSetting, SkillsetConfig } from "./shape.ts";
export { ORIGIN_LABEL } from "./shape.ts";
