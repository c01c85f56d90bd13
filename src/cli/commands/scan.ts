import { basename } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { DiscoveryReport } from "../../discovery/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { renderBoundNotices } from "../render-bounds.ts";
import { plural, renderDiagnostic } from "../render-diagnostics.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	json: { type: "boolean", default: false },
	"exit-zero": { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset scan [DIR] [options]

Discover skills for the workspace DIR (default: the current folder) and report everything found: roots,
selected skills, and every skill that is shadowed, untrusted, disabled or rejected, with why.

${discoveryUsage}

Options:
  --json                     print the discovery report as JSON
  --exit-zero                exit 0 even when skills were rejected

Exit status: 0 nothing rejected, 1 a skill or root was rejected, 2 usage error.`;

/** Scans and returns the report; exit 1 when a skill was rejected or a root failed. */
export async function run(
	values: DiscoveryFlagValues & { "exit-zero"?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<DiscoveryReport>> {
	if (positionals.length > 1) throw new UsageError("scan takes at most one DIR");
	const { report } = await discoverFor(values, positionals[0], io);
	const failed = report.rejected.length > 0 || report.diagnostics.some((d) => d.severity === "error");
	return { exitCode: failed && !values["exit-zero"] ? 1 : 0, data: report };
}

/** The readable summary: roots, then what was selected, shadowed, untrusted, disabled and rejected, and why. */
export function render(report: DiscoveryReport, style: Style): string {
	const lines: string[] = [
		...renderBoundNotices(report, style),
		style.bold(`Roots (${report.roots.filter((r) => r.exists).length} of ${report.roots.length} exist)`),
	];
	// Conventional folders that do not exist are the normal case; list them only when they were asked for.
	const shown = report.roots.filter((root) => root.exists || root.source === "option");
	for (const root of shown) {
		const flags = [
			root.scope,
			root.exists ? null : "missing",
			root.trusted ? null : "untrusted",
			root.locked ? "locked" : null,
		];
		const counts = root.exists ? `  ${plural(root.counts.candidates, "skill")}` : "";
		lines.push(`  ${root.path}  ${style.dim(flags.filter(Boolean).join(", "))}${counts}`);
	}
	const hidden = report.roots.length - shown.length;
	if (hidden > 0) lines.push(`  ${style.dim(`(${hidden} conventional folders do not exist; --json lists them)`)}`);
	section(
		lines,
		style,
		`Selected (${report.selected.length})`,
		report.selected,
		(s) => `${s.name}  ${style.dim(`${s.scope}  ${s.file}`)}`,
	);
	section(
		lines,
		style,
		`Shadowed (${report.shadowed.length})`,
		report.shadowed,
		(s) => `${s.qualifiedName}  ${style.dim(`by ${s.shadowedBy}  ${s.file}`)}`,
	);
	section(
		lines,
		style,
		`Untrusted (${report.untrusted.length})`,
		report.untrusted,
		(s) => `${s.name}  ${style.dim(s.file)}`,
	);
	section(
		lines,
		style,
		`Disabled (${report.disabled.length})`,
		report.disabled,
		(s) => `${s.name}  ${style.dim(s.file)}`,
	);
	section(lines, style, `Rejected (${report.rejected.length})`, report.rejected, (r) => {
		const reasons = r.diagnostics
			.filter((d) => d.severity === "error")
			.map((d) => `      ${renderDiagnostic(d, style, false)}`);
		return [`${r.name ?? basename(r.dir)}  ${style.dim(r.file)}`, ...reasons].join("\n");
	});
	const notes = [...report.diagnostics, ...report.selected.flatMap((s) => s.diagnostics)].filter(
		(d) => d.severity !== "info",
	);
	if (notes.length > 0) {
		lines.push("", style.bold(`Warnings (${notes.length})`));
		for (const d of notes) lines.push(`  ${renderDiagnostic(d, style, false)}`);
	}
	const { counts, timings } = report;
	lines.push(
		"",
		`${plural(counts.selected, "skill")} selected, ${counts.shadowed} shadowed, ${counts.untrusted} untrusted, ${counts.disabled} disabled, ${counts.rejected} rejected (${timings.totalMs} ms)`,
	);
	return `${lines.join("\n")}\n`;
}

function section<T>(
	lines: string[],
	style: Style,
	title: string,
	items: readonly T[],
	line: (item: T) => string,
): void {
	if (items.length === 0) return;
	lines.push("", style.bold(title));
	for (const item of items) lines.push(`  ${line(item)}`);
}
