import { SkillsetError } from "../skill/index.ts";
import { CATALOG_FORMATS } from "./render.ts";

const BUDGET_KEYS = ["tokens", "chars", "contextWindow", "fraction"] as const;

function fail(name: string, expected: string, value: unknown): never {
	const shown = JSON.stringify(value) ?? String(value);
	throw new SkillsetError("invalid-option", `${name} must be ${expected}, not ${shown}`, { data: { option: name } });
}

/**
 * Checks `buildCatalog`'s options at run time, as the CLI checks its flags: JavaScript callers get no type check,
 * and a typo (`format: "yml"`, `budget: { token: 4000 }`) must not silently mean the default.
 */
export function validateCatalogOptions(options: Record<string, unknown>): void {
	if (options === null || typeof options !== "object") fail("options", "an object", options);
	const { format, location, budget, tokenizer, maxDescriptionCodePoints, floorWords, query, recent } = options;
	if (floorWords !== undefined && !(typeof floorWords === "number" && floorWords >= 0)) {
		fail("floorWords", "a number of words, 0 or more", floorWords);
	}
	if (query !== undefined && typeof query !== "string") fail("query", "a string", query);
	if (recent !== undefined && !(Array.isArray(recent) && recent.every((name) => typeof name === "string"))) {
		fail("recent", "an array of skill names", recent);
	}
	if (format !== undefined && !CATALOG_FORMATS.includes(format as never)) {
		fail("format", `one of ${CATALOG_FORMATS.join(", ")}`, format);
	}
	if (location !== undefined && typeof location !== "boolean") fail("location", "true or false", location);
	if (maxDescriptionCodePoints !== undefined && !(Number(maxDescriptionCodePoints) > 0)) {
		fail("maxDescriptionCodePoints", "a positive number", maxDescriptionCodePoints);
	}
	if (tokenizer !== undefined && typeof (tokenizer as { count?: unknown } | null)?.count !== "function") {
		fail("tokenizer", "an object with a count(text) function", tokenizer);
	}
	if (options.cacheDir !== undefined && typeof options.cacheDir !== "string")
		fail("cacheDir", "a folder path", options.cacheDir);
	if (budget === undefined) return;
	if (budget === null || typeof budget !== "object") fail("budget", "an object", budget);
	const set = BUDGET_KEYS.filter((key) => (budget as Record<string, unknown>)[key] !== undefined);
	if (set.length === 0) fail("budget", "an object with tokens, chars or contextWindow", budget);
	for (const key of set) {
		const value = (budget as Record<string, unknown>)[key];
		if (typeof value !== "number") fail(`budget.${key}`, "a positive number", value);
	}
}
