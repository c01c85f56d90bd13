import type { ParseArgsConfig } from "node:util";
import { type LintResult, lintSkills } from "../../authoring/index.ts";
import { loadDefaultTokenizer } from "../../catalog/index.ts";
import { type DiscoveryFlagValues, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import type { CliIo, CommandResult, Style } from "../io.ts";
import { plural, renderCounts, renderDiagnostics } from "../render-diagnostics.ts";
import { resolveTargets } from "../targets.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset lint [PATH...] [options]

Check skills against the spec (strict, with the claude-code and workbuddy extensions) and best practice: body at
most 500 lines and 5,000 tokens, a description that says what and when, the reference graph (broken links, deep
chains, orphaned files), and descriptions of different skills that overlap. PATH is a skill folder or a root;
without PATH, the discovered skills.

${discoveryUsage}

Options:
  --json                     print the results as JSON

Exit status: 0 no errors, 1 errors, 2 usage error.`;

/** Lints every target; exit 1 when any has an error. */
export async function run(
	values: DiscoveryFlagValues,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<LintResult[]>> {
	const { targets, problems } = await resolveTargets(positionals, values, io);
	const results = await lintSkills(
		targets.map((t) => t.dir),
		{ tokenizer: await loadDefaultTokenizer() },
	);
	results.unshift(...problems.map((d) => ({ path: d.file, name: null, valid: false, diagnostics: [d] })));
	const failed = results.some((r) => r.diagnostics.some((d) => d.severity === "error"));
	return { exitCode: failed ? 1 : 0, data: results };
}

/** Every diagnostic, then a summary line. */
export function render(data: readonly LintResult[], style: Style): string {
	const lines: string[] = [];
	const hinted = new Set<string>();
	for (const result of data) lines.push(...renderDiagnostics(result.diagnostics, style, hinted));
	const counts = renderCounts(data.flatMap((r) => r.diagnostics));
	lines.push(`${plural(data.length, "skill")} linted${counts ? `: ${counts}` : ", no findings"}`);
	return `${lines.join("\n")}\n`;
}
