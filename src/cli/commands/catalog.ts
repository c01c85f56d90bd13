import type { ParseArgsConfig } from "node:util";
import {
	type ActivationMode,
	buildCatalog,
	buildSkillsSection,
	type Catalog,
	type CatalogOptions,
} from "../../catalog/index.ts";
import type { SkillIndex } from "../../discovery/index.ts";
import type { SettingsFlags } from "../../settings/index.ts";
import { SkillsetError } from "../../skill/index.ts";
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
	const flags = { catalog: catalogSettingsFlags(values) };
	const {
		index,
		catalog: settings,
		report: found,
		discover,
	} = await discoverFor(values, positionals[0], io, { flags });
	const deeper = await noteDeeperSkills("catalog", positionals[0], found, io);
	const recent = values.recent?.flatMap((names) => names.split(",")).map((name) => name.trim());
	const options: CatalogOptions = {
		...settings,
		...(discover.cacheDir !== undefined ? { cacheDir: discover.cacheDir } : {}),
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

/** The catalog flags as the settings resolver takes them (numbers as typed: it names the flag of a bad one). */
export function catalogSettingsFlags(values: CatalogFlagValues): NonNullable<SettingsFlags["catalog"]> {
	return {
		...(values.format !== undefined ? { format: values.format } : {}),
		...(values.location !== undefined ? { location: values.location } : {}),
		...(values["budget-tokens"] !== undefined ? { tokens: values["budget-tokens"] } : {}),
		...(values["budget-chars"] !== undefined ? { chars: values["budget-chars"] } : {}),
		...(values["context-window"] !== undefined ? { contextWindow: values["context-window"] } : {}),
		...(values.fraction !== undefined ? { fraction: values.fraction } : {}),
	};
}

function parseActivation(value: string | undefined): ActivationMode | undefined {
	if (value === undefined || value === "tool" || value === "file-read") return value;
	throw new UsageError(`--prompt must be tool or file-read, not '${value}'`);
}
