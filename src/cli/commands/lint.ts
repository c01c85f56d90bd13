import type { ParseArgsConfig } from "node:util";
import { type LintResult, lintSkills } from "../../authoring/index.ts";
import { loadDefaultTokenizer } from "../../catalog/index.ts";
import type { Diagnostic } from "../../skill/index.ts";
import { type DiscoveryFlagValues, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import type { CliIo, CommandResult, Style } from "../io.ts";
import {
	checkDetail,
	type Detail,
	detailFlags,
	detailUsage,
	plural,
	renderCounts,
	renderGroups,
} from "../render-diagnostics.ts";
import { resolveTargets } from "../targets.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...detailFlags,
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset lint [PATH...] [options]

Check skills against the spec (strict, with the claude-code and workbuddy extensions) and best practice: body at
most 500 lines and 5,000 tokens, a description that says what and when, the reference graph (broken links, deep
chains, orphaned files), and descriptions of different skills that overlap. PATH is a skill folder or a root;
without PATH, the discovered skills. Info notes (such as orphaned files) are shown only with --verbose.

${discoveryUsage}

Options:
${detailUsage}
  --json                     print the results as JSON

Exit status: 0 no errors, 1 errors, 2 usage error.`;

/** Lints every target; exit 1 when any has an error. */
export async function run(
	values: DiscoveryFlagValues & Detail,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<LintResult[]>> {
	checkDetail(values);
	const { targets, problems } = await resolveTargets(positionals, values, io);
	const results = await lintSkills(
		targets.map((t) => t.dir),
		{ tokenizer: await loadDefaultTokenizer() },
	);
	results.unshift(...problems.map((d) => ({ path: d.file, name: null, valid: false, diagnostics: [d] })));
	const failed = results.some((r) => r.diagnostics.some((d) => d.severity === "error"));
	return { exitCode: failed ? 1 : 0, data: results };
}

/**
 * Diagnostics (in full when few or with --verbose, else grouped by skill and code; info notes such as orphan files
 * only with --verbose), then a summary that counts the skills actually linted.
 */
export function render(data: readonly LintResult[], style: Style, detail: Detail = {}): string {
	const shown = (diagnostics: readonly Diagnostic<string>[]) =>
		detail.verbose ? diagnostics : diagnostics.filter((d) => d.severity !== "info");
	const lines = renderGroups(
		data.map((r) => ({ label: r.path, diagnostics: shown(r.diagnostics) })),
		style,
		detail,
	);
	const all = data.flatMap((r) => r.diagnostics);
	const hidden = all.length - shown(all).length;
	const linted = data.filter((r) => r.name !== null || !r.diagnostics.some((d) => d.code.startsWith("path."))).length;
	const unnamed = data.length - linted;
	const counts = renderCounts(shown(all));
	let summary = `${plural(linted, "skill")} linted${counts ? `: ${counts}` : ", no findings"}`;
	if (unnamed > 0) summary += `; ${plural(unnamed, "path")} named no skill`;
	if (hidden > 0) summary += ` (${hidden} info ${hidden === 1 ? "note" : "notes"} hidden; --verbose shows them)`;
	if (data.length === 0) summary += ": no skill was found ('skillset scan' shows where skillset looked)";
	lines.push(summary);
	return `${lines.join("\n")}\n`;
}
