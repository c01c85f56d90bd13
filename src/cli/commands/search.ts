import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { createSkillSearch, renderSearchResults, type SkillSearchResult } from "../../catalog/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { noteDeeperSkills } from "../workspace.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	limit: { type: "string" },
	json: { type: "boolean", default: false },
};

/** Results when --limit is not given: as many as search_skills gives. */
const DEFAULT_LIMIT = 5;

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset search QUERY [DIR] [options]

Search the skills a model could load, by topic, as the search_skills tool does: BM25 over names, descriptions
and read_when triggers, best first, each with its description. Quote a query of several words.

${discoveryUsage}

Options:
  --limit N                  most results (default ${DEFAULT_LIMIT})
  --json                     print { query, skills, results: [{ name, description, score }] }

Exit status: 0 some skill matches, 1 none does, 2 usage error.`;

/** What a search found. */
export interface SearchOutput {
	query: string;
	/** How many skills were searched (those a catalog may list). */
	skills: number;
	results: SkillSearchResult[];
}

/** Discovers the skills of DIR (default: the cwd) and searches them. */
export async function run(
	values: DiscoveryFlagValues & { limit?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<SearchOutput>> {
	const [query, dir, ...extra] = positionals;
	if (query === undefined || query.trim() === "") throw new UsageError("search needs a QUERY");
	if (extra.length > 0) {
		throw new UsageError(`search takes one QUERY and at most one DIR: quote a query of several words`);
	}
	const limit = parseLimit(values.limit);
	if (dir !== undefined) await checkDir(query, dir, io.cwd);
	const { index, report } = await discoverFor(values, dir, io);
	const deeper = await noteDeeperSkills(`search ${shellQuote(query)}`, dir, report, io);
	const results = createSkillSearch(index)(query, limit);
	const data = { query, skills: index.catalogSkills.length, results };
	return { exitCode: results.length > 0 && !deeper ? 0 : 1, data };
}

/** The hits as search_skills gives them to a model, one `- name: description` line each. */
export function render(data: SearchOutput, _style: Style): string {
	if (data.skills === 0) return "No skills found. Run 'skillset scan' to see where skillset looked.\n";
	return `${renderSearchResults(data.results, data.query)}\n`;
}

function parseLimit(text: string | undefined): number {
	if (text === undefined) return DEFAULT_LIMIT;
	const limit = Number(text);
	if (!Number.isInteger(limit) || limit < 1) {
		throw new UsageError(`--limit must be a whole number of at least 1, not '${text}'`);
	}
	return limit;
}

/** A DIR that is not a folder is most often the second word of an unquoted query: say so. */
async function checkDir(query: string, dir: string, cwd: string): Promise<void> {
	const info = await stat(resolve(cwd, dir)).catch(() => undefined);
	if (info?.isDirectory()) return;
	const what = info ? "is not a folder" : "does not exist";
	throw new UsageError(
		`DIR ${dir} ${what}; to search for several words, quote them: skillset search ${shellQuote(`${query} ${dir}`)}`,
	);
}

/** Text as one single-quoted shell word. */
function shellQuote(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}
