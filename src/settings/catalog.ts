import type { CatalogBudget, CatalogFormat } from "../catalog/index.ts";
import { type Place, type SettingSource, SettingsError, settingsError } from "./errors.ts";
import type { SkillsetConfig } from "./shape.ts";

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
