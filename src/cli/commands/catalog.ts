import type { ParseArgsConfig } from "node:util";
import {
	type ActivationMode,
	buildCatalog,
	buildSkillsSection,
	type Catalog,
	type CatalogBudget,
	type CatalogFormat,
	type CatalogOptions,
} from "../../catalog/index.ts";
import type { SkillIndex } from "../../discovery/index.ts";
import { SkillsetError } from "../../skill/index.ts";
import { checkOneBudget, checkSetting, labelFrom, layerCatalog, type SkillsetConfig } from "../config.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { renderCatalogReport } from "../render-catalog.ts";
import { noteDeeperSkills } from "../workspace.ts";

/** Catalog flags, shared with `doctor`. */
export const catalogFlags: NonNullable<ParseArgsConfig["options"]> = {
	format: { type: "string" },
	"budget-tokens": { type: "string" },
	"budget-chars": { type: "string" },
	"context-window": { type: "string" },
	fraction: { type: "string" },
	location: { type: "boolean" },
};

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...catalogFlags,
	prompt: { type: "string" },
	query: { type: "string" },
	recent: { type: "string", multiple: true },
	report: { type: "boolean", default: false },
	json: { type: "boolean", default: false },
};

/** Usage lines for {@link catalogFlags}. */
export const catalogUsage = `Catalog options:
  --format FORMAT            markdown (default), xml (as skills-ref to-prompt), json
  --budget-tokens N          fit the catalog into N tokens (o200k_base)
  --budget-chars N           fit the catalog into N characters
  --context-window N         fit into --fraction of an N-token context window
  --fraction F               share of the context window (default 0.02)
  --location                 include SKILL.md paths (default for xml and json)`;

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset catalog [DIR] [options]

Print the tier-1 catalog a model would see: the selected, trusted, enabled, model-invocable skills, fitted to
the budget (descriptions capped, then shared down to a floor that says when to use the skill, then some skills
listed by name only, and left out only when not even their names fit).

${discoveryUsage}

${catalogUsage}
  --prompt tool|file-read    wrap the catalog in a system-prompt section with usage instructions (the
                             instruction's text counts against the budget)
  --query TEXT               when not every description fits, describe the skills most relevant to TEXT
  --recent NAME              a skill used recently: described next, after --query (repeatable, or NAME,NAME)
  --report                   print the budget report on stderr
  --json                     print { text, report } as JSON`;

/** Values of {@link catalogFlags}. */
export interface CatalogFlagValues {
	format?: string;
	"budget-tokens"?: string;
	"budget-chars"?: string;
	"context-window"?: string;
	fraction?: string;
	location?: boolean;
}

/** Builds the catalog; stdout gets its text (or the system-prompt section). */
export async function run(
	values: DiscoveryFlagValues &
		CatalogFlagValues & { prompt?: string; query?: string; recent?: string[]; report?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<{ text: string; report: Catalog["report"] }>> {
	if (positionals.length > 1) throw new UsageError("catalog takes at most one DIR");
	const activation = parseActivation(values.prompt);
	const { index, config, report: found } = await discoverFor(values, positionals[0], io);
	const deeper = await noteDeeperSkills("catalog", positionals[0], found, io);
	const recent = values.recent?.flatMap((names) => names.split(",")).map((name) => name.trim());
	const options: CatalogOptions = {
		...catalogOptions(values, config),
		...(values.query !== undefined ? { query: values.query } : {}),
		...(recent ? { recent: recent.filter(Boolean) } : {}),
	};
	const { text, catalog } = activation
		? await buildSection(index, options, activation)
		: await buildCatalog(index, options).then((built) => ({ text: built.text, catalog: built }));
	if (values.report) io.stderr(renderCatalogReport(catalog.report));
	return { exitCode: deeper ? 1 : 0, data: { text, report: catalog.report } };
}

/** The system-prompt section, the instruction counted against the budget; a budget too small is a usage error. */
async function buildSection(
	index: SkillIndex,
	options: CatalogOptions,
	activation: ActivationMode,
): Promise<{ text: string; catalog: Catalog }> {
	try {
		return await buildSkillsSection(index, { ...options, activation });
	} catch (error) {
		const tooSmall =
			error instanceof SkillsetError && (error.data as { option?: string } | undefined)?.option === "budget";
		if (!tooSmall) throw error;
		throw new UsageError(error.message.replace("the skills section", "the --prompt section"));
	}
}

/** The catalog text, as it goes into a prompt. */
export function render(data: { text: string }, _style: Style): string {
	return data.text === "" ? "" : `${data.text.trimEnd()}\n`;
}

/** The flag behind each catalog setting, so mistakes name what the user typed. */
const CATALOG_FLAG_NAMES: Readonly<Record<string, string>> = {
	"catalog.format": "--format",
	"catalog.tokens": "--budget-tokens",
	"catalog.chars": "--budget-chars",
	"catalog.contextWindow": "--context-window",
	"catalog.fraction": "--fraction",
};

/** Catalog options: flags over SKILLSET_* over the config file over defaults, one budget from the highest source. */
export function catalogOptions(values: CatalogFlagValues, config: SkillsetConfig): Parameters<typeof buildCatalog>[1] {
	const label = labelFrom(CATALOG_FLAG_NAMES);
	const flags: NonNullable<SkillsetConfig["catalog"]> = {};
	if (values.format !== undefined) flags.format = values.format as CatalogFormat;
	const numbers = [
		["tokens", values["budget-tokens"]],
		["chars", values["budget-chars"]],
		["contextWindow", values["context-window"]],
		["fraction", values.fraction],
	] as const;
	for (const [key, text] of numbers) if (text !== undefined) flags[key] = flagNumber(text);
	if (values.location !== undefined) flags.location = values.location;
	checkSetting(flags, "catalog", label);
	for (const key of ["tokens", "chars"] as const) {
		if ((flags[key] ?? 1) < 1) throw new UsageError(`${label(`catalog.${key}`)} must be at least 1`);
	}
	checkOneBudget(flags, "catalog", label);
	const merged = layerCatalog(config.catalog, flags);
	const budget: CatalogBudget = {};
	if (merged.tokens !== undefined) budget.tokens = merged.tokens;
	else if (merged.chars !== undefined) budget.chars = merged.chars;
	else if (merged.contextWindow !== undefined) budget.contextWindow = merged.contextWindow;
	if (merged.fraction !== undefined) {
		// Named as the user set it: the flag, or the config file's key.
		const name = flags.fraction !== undefined ? "--fraction" : `"catalog.fraction" in the config file`;
		if (budget.contextWindow === undefined) {
			throw new UsageError(`${name} needs a context window (--context-window or "catalog.contextWindow")`);
		}
		if (merged.fraction > 1) throw new UsageError(`${name} must be at most 1`);
		budget.fraction = merged.fraction;
	}
	return {
		...(merged.format ? { format: merged.format } : {}),
		...(merged.location !== undefined ? { location: merged.location } : {}),
		...(Object.keys(budget).length > 0 ? { budget } : {}),
	};
}

/** A flag's number; text that is not one is kept, so the check names the flag and the value. */
function flagNumber(text: string): number {
	const parsed = Number(text);
	return (text.trim() === "" || Number.isNaN(parsed) ? text : parsed) as number;
}

function parseActivation(value: string | undefined): ActivationMode | undefined {
	if (value === undefined || value === "tool" || value === "file-read") return value;
	throw new UsageError(`--prompt must be tool or file-read, not '${value}'`);
}
