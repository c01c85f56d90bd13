import type { IndexedSkill, SkillIndex } from "../discovery/index.ts";
import { codePointLength, SkillsetError } from "../skill/index.ts";
import { fitCatalog } from "./budget.ts";
import { type EntryCodec, isRecord, memoized } from "./catalog-cache.ts";
import { capDescription, truncationsOf } from "./cut.ts";
import { loadDefaultTokenizer } from "./default-tokenizer.ts";
import type { BudgetUnit, FitStep, Meter } from "./fitter.ts";
import { DEFAULT_FLOOR_WORDS } from "./floor.ts";
import { validateCatalogOptions } from "./options.ts";
import { keepOrder } from "./priority.ts";
import { type CatalogEntry, formatParts, type RenderOptions, renderCatalog } from "./render.ts";
import { foldField, foldPath } from "./safe-text.ts";
import type { Tokenizer } from "./tokenizer.ts";

/** A tier-1 budget: tokens, characters, or a fraction of a context window (in tokens). */
export interface CatalogBudget {
	tokens?: number;
	chars?: number;
	/** The model's context window in tokens; the budget is `contextWindow × fraction`. */
	contextWindow?: number;
	/** Default 0.02 (2%). */
	fraction?: number;
}

/** Options for {@link buildCatalog}. */
export interface CatalogOptions extends RenderOptions {
	budget?: CatalogBudget;
	/** Counts tokens for budgets and reports. Default: o200k_base from gpt-tokenizer. */
	tokenizer?: Tokenizer;
	/** Step 2's cap on each description, in code points. Default 1,024 (the spec's limit). */
	maxDescriptionCodePoints?: number;
	/**
	 * The floor: a description keeps at least this many words, and its "Use when …" clause within 30 words (or
	 * this many, if more); when not every skill can have that much, some are listed by name only. Default 12; 0
	 * turns it off.
	 */
	floorWords?: number;
	/**
	 * What the task is about. When not every skill keeps its description, the most relevant to it keep theirs
	 * (BM25 over name, description and triggers), within each precedence rank.
	 */
	query?: string;
	/**
	 * Skills used recently in this workspace, most recent first. When not every skill keeps its description, these
	 * keep theirs next (after precedence and `query`); the rest go by a stable hash of the name, never the alphabet.
	 */
	recent?: readonly string[];
	/**
	 * A cache folder (discovery's `cacheDir`): the fitted catalog is kept there under a key naming the entries, the
	 * options and this code, and reused while all three are the same. Not used with a custom `tokenizer`.
	 */
	cacheDir?: string;
}

/** What the catalog cost and what the budget did to it. */
export interface CatalogReport {
	format: string;
	budget: { unit: BudgetUnit; limit: number } | null;
	tokenizer: string;
	step: FitStep;
	/** Exact tier-1 tokens of `text` with the tokenizer. */
	tokens: number;
	/** Code points of `text`. */
	chars: number;
	/** Skills that could be listed. */
	skills: number;
	/** Skills listed with a description (maybe cut): the names `load_skill`'s enum lists. */
	kept: string[];
	truncated: { name: string; droppedChars: number }[];
	/** Skills listed by name only, on the line "Also available — load by name or search_skills: …". */
	named: string[];
	/** Skills not listed at all (the last line gives their count). */
	omitted: string[];
	/** Description characters cut in all. */
	truncatedChars: number;
	/** `tokens` per listed skill (described or named), rounded to one decimal. */
	tokensPerSkill: number;
}

/** The tier-1 catalog: the text for the model, the entries it describes, and the report. */
export interface Catalog {
	text: string;
	/** The skills listed with a description, as shown; `report.named` has those listed by name only. */
	entries: CatalogEntry[];
	report: CatalogReport;
}

/** Default share of the context window for the catalog, as Codex and DESIGN.md use. */
export const DEFAULT_BUDGET_FRACTION = 0.02;

/** The catalog entries of an index: selected, trusted, enabled, model-invocable skills in rank-then-name order. */
export function catalogEntries(index: SkillIndex): CatalogEntry[] {
	return index.catalogSkills.map(toEntry);
}

function toEntry(skill: IndexedSkill): CatalogEntry {
	// `when_to_use` is already part of the indexed description; WorkBuddy `read_when` triggers are not.
	const readWhen = skill.properties.readWhen;
	const triggers = readWhen && readWhen.length > 0 ? readWhen.join(" ") : undefined;
	return { name: skill.name, description: skill.description, location: skill.realFile, rank: skill.rank, triggers };
}

/** The entry as a catalog may show it: one-line name and description without invisible characters, a one-line path. */
function safeEntry(entry: CatalogEntry): CatalogEntry {
	const name = foldField(entry.name);
	const description = foldField(entry.description);
	const location = foldPath(entry.location);
	if (name === entry.name && description === entry.description && location === entry.location) return entry;
	return { ...entry, name, description, location };
}

/**
 * Builds the catalog a model sees for an index (or ready entries), fitted to the budget as DESIGN.md §4 says.
 * With no skills the text is empty: no catalog, and no load tool should be registered.
 */
export async function buildCatalog(
	source: SkillIndex | readonly CatalogEntry[],
	options: CatalogOptions = {},
): Promise<Catalog> {
	validateCatalogOptions(options as Record<string, unknown>);
	const index = Array.isArray(source) ? undefined : (source as SkillIndex);
	const entries = index ? catalogEntries(index) : (source as readonly CatalogEntry[]);
	return memoized("catalog", { entries, index }, options, isCatalog, CATALOG_CODEC, () => fitNow(entries, options));
}

async function fitNow(entries: readonly CatalogEntry[], options: CatalogOptions): Promise<Catalog> {
	const tokenizer = options.tokenizer ?? (await loadDefaultTokenizer());
	const format = options.format ?? "markdown";
	const budget = resolveBudget(options.budget);
	const maxDescription = options.maxDescriptionCodePoints ?? 1024;
	if (entries.length === 0) return emptyCatalog(format, budget, tokenizer);
	if (!budget) {
		const safe = entries.map(safeEntry);
		const capped = safe.map((e) => capDescription(e, maxDescription));
		const text = renderCatalog(capped, options);
		return finish({
			step: "fits",
			kept: capped,
			named: [],
			omitted: [],
			text,
			entries: safe,
			format,
			budget,
			tokenizer,
		});
	}
	const meter: Meter =
		budget.unit === "tokens"
			? { unit: "tokens", measure: (text) => tokenizer.count(text) }
			: { unit: "chars", measure: codePointLength };
	const fit = fitCatalog(entries, {
		parts: formatParts(options),
		meter,
		limit: budget.limit,
		maxDescriptionCodePoints: maxDescription,
		floorWords: floorWords(options.floorWords),
		priority: keepOrder(entries, {
			...(options.query !== undefined ? { query: options.query } : {}),
			...(options.recent !== undefined ? { recent: options.recent } : {}),
		}),
		prepare: safeEntry,
	});
	return finish({ ...fit, entries, format, budget, tokenizer });
}

function floorWords(value: number | undefined): number {
	if (value === undefined) return DEFAULT_FLOOR_WORDS;
	if (!Number.isInteger(value) || value < 0)
		throw new SkillsetError("invalid-option", "floorWords must be a whole number of at least 0");
	return value;
}

/** Turns budget options into one limit; an invalid budget is a programming error. */
export function resolveBudget(budget: CatalogBudget | undefined): { unit: BudgetUnit; limit: number } | null {
	if (!budget) return null;
	const positive = (value: number, what: string) => {
		if (!Number.isFinite(value) || value <= 0)
			throw new SkillsetError("invalid-option", `${what} must be a positive number`);
		return value;
	};
	if (budget.tokens !== undefined)
		return { unit: "tokens", limit: Math.floor(positive(budget.tokens, "budget.tokens")) };
	if (budget.chars !== undefined) return { unit: "chars", limit: Math.floor(positive(budget.chars, "budget.chars")) };
	if (budget.contextWindow !== undefined) {
		const window = positive(budget.contextWindow, "budget.contextWindow");
		const fraction = positive(budget.fraction ?? DEFAULT_BUDGET_FRACTION, "budget.fraction");
		if (fraction > 1) throw new SkillsetError("invalid-option", "budget.fraction must be at most 1");
		return { unit: "tokens", limit: Math.max(1, Math.floor(window * fraction)) };
	}
	return null;
}

interface Finish {
	step: FitStep;
	kept: readonly CatalogEntry[];
	named: readonly CatalogEntry[];
	omitted: readonly CatalogEntry[];
	truncated?: { name: string; droppedChars: number }[];
	text: string;
	entries: readonly CatalogEntry[];
	format: string;
	budget: { unit: BudgetUnit; limit: number } | null;
	tokenizer: Tokenizer;
}

function finish(input: Finish): Catalog {
	const tokens = input.tokenizer.count(input.text);
	const truncated = input.truncated ?? truncationsOf(input.entries, input.kept);
	const listed = input.kept.length + input.named.length;
	return {
		text: input.text,
		entries: [...input.kept],
		report: {
			format: input.format,
			budget: input.budget,
			tokenizer: input.tokenizer.name,
			step: input.step,
			tokens,
			chars: codePointLength(input.text),
			skills: input.entries.length,
			kept: input.kept.map((e) => e.name),
			truncated,
			named: input.named.map((e) => foldField(e.name)),
			omitted: input.omitted.map((e) => foldField(e.name)),
			truncatedChars: truncated.reduce((sum, t) => sum + t.droppedChars, 0),
			tokensPerSkill: listed > 0 ? Math.round((tokens / listed) * 10) / 10 : 0,
		},
	};
}

function emptyCatalog(format: string, budget: Catalog["report"]["budget"], tokenizer: Tokenizer): Catalog {
	return finish({ step: "fits", kept: [], named: [], omitted: [], text: "", entries: [], format, budget, tokenizer });
}

/** How a catalog keeps its entries in the cache (see {@link EntryCodec}). */
export const CATALOG_CODEC: EntryCodec<Catalog> = {
	// The text is kept after the value (null in it): whatever the value says, the text is the tail's.
	pack: (catalog, refs) => ({ ...catalog, text: null, entries: refs(catalog.entries) }),
	text: (catalog) => catalog.text,
	unpack: (saved, deref, text) => (isRecord(saved) ? { ...saved, text, entries: deref(saved.entries) } : saved),
};

/** True when `value` has the shape of a {@link Catalog}. */
export function isCatalog(value: unknown): value is Catalog {
	if (!isRecord(value) || typeof value.text !== "string" || !Array.isArray(value.entries)) return false;
	if (!value.entries.every(isEntry) || !isRecord(value.report)) return false;
	const report = value.report;
	return (
		typeof report.format === "string" &&
		typeof report.tokenizer === "string" &&
		typeof report.step === "string" &&
		[report.tokens, report.chars, report.skills, report.truncatedChars, report.tokensPerSkill].every(
			(n) => typeof n === "number",
		) &&
		(report.budget === null || isRecord(report.budget)) &&
		[report.kept, report.named, report.omitted].every(isNameList) &&
		Array.isArray(report.truncated) &&
		report.truncated.every((t) => isRecord(t) && typeof t.name === "string" && typeof t.droppedChars === "number")
	);
}

function isEntry(value: unknown): value is CatalogEntry {
	return (
		isRecord(value) &&
		typeof value.name === "string" &&
		typeof value.description === "string" &&
		typeof value.location === "string" &&
		(value.rank === undefined || typeof value.rank === "number") &&
		(value.triggers === undefined || typeof value.triggers === "string")
	);
}

function isNameList(value: unknown): boolean {
	return Array.isArray(value) && value.every((name) => typeof name === "string");
}
