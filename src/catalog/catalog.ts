import type { IndexedSkill, SkillIndex } from "../discovery/index.ts";
import { codePointLength, SkillsetError } from "../skill/index.ts";
import { type BudgetUnit, capDescription, type FitStep, fitCatalog, type Meter, truncationsOf } from "./budget.ts";
import { validateCatalogOptions } from "./options.ts";
import { type CatalogEntry, formatParts, type RenderOptions, renderCatalog } from "./render.ts";
import { loadDefaultTokenizer, type Tokenizer } from "./tokenizer.ts";

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
	kept: string[];
	truncated: { name: string; droppedChars: number }[];
	omitted: string[];
	/** Description characters cut in all. */
	truncatedChars: number;
	/** `tokens / kept`, rounded to one decimal. */
	tokensPerSkill: number;
}

/** The tier-1 catalog: the text for the model, the entries it lists, and the report. */
export interface Catalog {
	text: string;
	entries: CatalogEntry[];
	report: CatalogReport;
}

/** Default share of the context window for the catalog, as Codex and DESIGN.md use. */
export const DEFAULT_BUDGET_FRACTION = 0.02;
const MIN_SHARE: Readonly<Record<BudgetUnit, number>> = { tokens: 16, chars: 64 };

/** The catalog entries of an index: selected, trusted, enabled, model-invocable skills in rank-then-name order. */
export function catalogEntries(index: SkillIndex): CatalogEntry[] {
	return index.catalogSkills.map(toEntry);
}

function toEntry(skill: IndexedSkill): CatalogEntry {
	return { name: skill.name, description: skill.description, location: skill.realFile };
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
	const entries = Array.isArray(source)
		? [...(source as readonly CatalogEntry[])]
		: catalogEntries(source as SkillIndex);
	const tokenizer = options.tokenizer ?? (await loadDefaultTokenizer());
	const format = options.format ?? "markdown";
	const budget = resolveBudget(options.budget);
	const maxDescription = options.maxDescriptionCodePoints ?? 1024;
	if (entries.length === 0) return emptyCatalog(format, budget, tokenizer);
	if (!budget) {
		const capped = entries.map((e) => capDescription(e, maxDescription));
		const text = renderCatalog(capped, options);
		return finish({ step: "fits", kept: capped, omitted: [], text, entries, format, budget, tokenizer });
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
		minShare: MIN_SHARE[budget.unit],
	});
	return finish({ ...fit, entries, format, budget, tokenizer });
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
			omitted: input.omitted.map((e) => e.name),
			truncatedChars: truncated.reduce((sum, t) => sum + t.droppedChars, 0),
			tokensPerSkill: input.kept.length > 0 ? Math.round((tokens / input.kept.length) * 10) / 10 : 0,
		},
	};
}

function emptyCatalog(format: string, budget: Catalog["report"]["budget"], tokenizer: Tokenizer): Catalog {
	return finish({ step: "fits", kept: [], omitted: [], text: "", entries: [], format, budget, tokenizer });
}
