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
