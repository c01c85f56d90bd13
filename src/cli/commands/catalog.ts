import type { ParseArgsConfig } from "node:util";
import {
	type ActivationMode,
	buildCatalog,
	CATALOG_FORMATS,
	type Catalog,
	type CatalogBudget,
	type CatalogFormat,
	systemPromptSection,
} from "../../catalog/index.ts";
import type { SkillsetConfig } from "../config.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { renderCatalogReport } from "../render-catalog.ts";

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
the budget (descriptions capped, then shared, then the lowest-precedence skills dropped).

${discoveryUsage}

${catalogUsage}
  --prompt tool|file-read    wrap the catalog in a system-prompt section with usage instructions
  --query TEXT               when skills must be dropped, keep the ones most relevant to TEXT
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
	values: DiscoveryFlagValues & CatalogFlagValues & { prompt?: string; query?: string; report?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<{ text: string; report: Catalog["report"] }>> {
	if (positionals.length > 1) throw new UsageError("catalog takes at most one DIR");
	const activation = parseActivation(values.prompt);
	const { index, config } = await discoverFor(values, positionals[0], io);
	// File-read activation needs the paths in the catalog.
	const catalog = await buildCatalog(index, {
		...catalogOptions(values, config),
		...(activation === "file-read" ? { location: true } : {}),
		...(values.query !== undefined ? { query: values.query } : {}),
	});
	const text = activation ? systemPromptSection(catalog, { activation }) : catalog.text;
	if (values.report) io.stderr(renderCatalogReport(catalog.report));
	return { exitCode: 0, data: { text, report: catalog.report } };
}

/** The catalog text, as it goes into a prompt. */
export function render(data: { text: string }, _style: Style): string {
	return data.text === "" ? "" : `${data.text.trimEnd()}\n`;
}

/** Catalog options from flags over config. */
export function catalogOptions(values: CatalogFlagValues, config: SkillsetConfig): Parameters<typeof buildCatalog>[1] {
	const format = values.format ?? config.catalog?.format;
	if (format !== undefined && !CATALOG_FORMATS.includes(format as CatalogFormat)) {
		throw new UsageError(`--format must be one of ${CATALOG_FORMATS.join(", ")}, not '${format}'`);
	}
	const budget: CatalogBudget = {};
	const tokens = number(values["budget-tokens"], "--budget-tokens") ?? config.catalog?.tokens;
	const chars = number(values["budget-chars"], "--budget-chars") ?? config.catalog?.chars;
	const window = number(values["context-window"], "--context-window") ?? config.catalog?.contextWindow;
	const fraction = number(values.fraction, "--fraction") ?? config.catalog?.fraction;
	if (tokens !== undefined) budget.tokens = tokens;
	else if (chars !== undefined) budget.chars = chars;
	else if (window !== undefined) budget.contextWindow = window;
	if (fraction !== undefined) {
		if (window === undefined) throw new UsageError("--fraction needs --context-window");
		if (fraction > 1) throw new UsageError("--fraction must be at most 1");
		budget.fraction = fraction;
	}
	const location = values.location ?? config.catalog?.location;
	return {
		...(format ? { format: format as CatalogFormat } : {}),
		...(location !== undefined ? { location } : {}),
		...(Object.keys(budget).length > 0 ? { budget } : {}),
	};
}

function number(value: string | undefined, flag: string): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed <= 0)
		throw new UsageError(`${flag} must be a positive number, not '${value}'`);
	return parsed;
}

function parseActivation(value: string | undefined): ActivationMode | undefined {
	if (value === undefined || value === "tool" || value === "file-read") return value;
	throw new UsageError(`--prompt must be tool or file-read, not '${value}'`);
}
