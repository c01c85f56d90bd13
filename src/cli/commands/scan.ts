import { basename } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { DiscoveryReport } from "../../discovery/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import type { OriginStatus } from "../origin-status.ts";
import { renderBoundNotices } from "../render-bounds.ts";
import {
	checkDetail,
	type Detail,
	detailFlags,
	detailUsage,
	FULL_DIAGNOSTICS,
	plural,
	renderDiagnostic,
	renderGroups,
} from "../render-diagnostics.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...detailFlags,
	json: { type: "boolean", default: false },
	"exit-zero": { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset scan [DIR] [options]

Discover skills for the workspace DIR (default: the current folder) and report everything found: roots,
selected skills, and every skill that is shadowed, untrusted, disabled or rejected, with why. Lists over 20 are
cut to their first ten unless --verbose; every rejected skill is always listed.

${discoveryUsage}

Options:
  --json                     print the discovery report as JSON
  --exit-zero                exit 0 even when skills were rejected
${detailUsage}

Exit status: 0 nothing rejected, 1 a skill or root was rejected, 2 usage error.`;

/** The scan's data: the discovery report, and each configured origin's status when there are any. */
export type ScanData = DiscoveryReport & { origins?: OriginStatus[] };

/** Scans and returns the report; exit 1 when a skill was rejected or a root failed. */
export async function run(
	values: DiscoveryFlagValues & Detail & { "exit-zero"?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<ScanData>> {
	if (positionals.length > 1) throw new UsageError("scan takes at most one DIR");
	checkDetail(values);
	const startedAt = Date.now();
	// The report opens with any bound hit itself (on stdout), so discovery need not announce it on stderr too.
	const { report, originList: origins } = await discoverFor(values, positionals[0], io, { announceBounds: false });
	// Loaded only when needed: a plain scan stays close to a bare Node start.
	const deeper =
		positionals[0] !== undefined &&
		(await (await import("../workspace.ts")).noteDeeperSkills("scan", positionals[0], report, io));
	const failed = deeper || report.rejected.length > 0 || report.diagnostics.some((d) => d.severity === "error");
	const statuses = origins.length > 0 ? (await import("../origin-status.ts")).originStatuses : undefined;
	const data: ScanData = statuses ? { ...report, origins: await statuses(origins, report, startedAt) } : report;
	return { exitCode: failed && !values["exit-zero"] ? 1 : 0, data };
}

/** The readable summary: roots, then what was selected, shadowed, untrusted, disabled and rejected, and why. */
export function render(report: ScanData, style: Style, detail: Detail = {}): string {
	if (detail.quiet) return `${summaryLine(report)}\n`;
	const lines: string[] = [
		...renderBoundNotices(report, style),
		style.bold(`Roots (${report.roots.filter((r) => r.exists).length} of ${report.roots.length} exist)`),
	];
	// Conventional folders that do not exist are the normal case; list them only when they were asked for.
	const shown = report.roots.filter((root) => root.exists || root.source === "option");
	for (const root of shown) {
		const origin = root.origin ? report.origins?.find((o) => o.origin === root.origin) : undefined;
		if (root.origin) {
			// An origin is named by its label; its folder is only the cache of its verified copies.
			const state = origin ? `, ${origin.status}` : "";
			const where = origin ? `  ${style.dim(origin.where)}` : "";
			lines.push(
				`  ${root.origin}  ${style.dim(`remote${state}`)}  ${plural(root.counts.candidates, "skill")}${where}`,
			);
			continue;
		}
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
		(s) => `${s.name}  ${style.dim(`${s.origin ? `${s.scope} ${s.origin}` : s.scope}  ${s.file}`)}`,
		!detail.verbose,
	);
	section(
		lines,
		style,
		`Shadowed (${report.shadowed.length})`,
		report.shadowed,
		(s) => `${s.qualifiedName}  ${style.dim(`by ${s.shadowedBy}  ${s.file}`)}`,
		!detail.verbose,
	);
	section(
		lines,
		style,
		`Untrusted (${report.untrusted.length})`,
		report.untrusted,
		(s) => `${s.name}  ${style.dim(s.file)}`,
		!detail.verbose,
	);
	section(
		lines,
		style,
		`Disabled (${report.disabled.length})`,
		report.disabled,
		(s) => `${s.name}  ${style.dim(s.file)}`,
		!detail.verbose,
	);
	section(lines, style, `Rejected (${report.rejected.length})`, report.rejected, (r) => {
		// Every rejected skill shows why, whatever the severity of the reason (a symlinked SKILL.md is a warning).
		const errors = r.diagnostics.filter((d) => d.severity === "error");
		const reasons = (errors.length > 0 ? errors : r.diagnostics).map(
			(d) => `      ${renderDiagnostic(d, style, false)}`,
		);
		return [`${r.name ?? basename(r.dir)}  ${style.dim(r.file)}`, ...reasons].join("\n");
	});
	const notes = [...report.diagnostics, ...report.selected.flatMap((s) => s.diagnostics)].filter(
		(d) => d.severity !== "info",
	);
	if (notes.length > 0 && !detail.verbose && notes.length > FULL_DIAGNOSTICS) {
		// Hundreds of skills can carry a warning each: one line per skill with its codes, then a count per code.
		const groups = [
			{ label: "(discovery)", diagnostics: report.diagnostics.filter((d) => d.severity !== "info") },
			...report.selected.map((s) => ({
				label: s.name,
				diagnostics: s.diagnostics.filter((d) => d.severity !== "info"),
			})),
		];
		lines.push("", style.bold(`Warnings (${notes.length})`));
		for (const line of renderGroups(groups, style, {})) lines.push(line === "" ? "" : `  ${line}`);
	} else if (notes.length > 0) {
		lines.push("", style.bold(`Warnings (${notes.length})`));
		for (const d of notes) lines.push(`  ${renderDiagnostic(d, style, false)}`);
	}
	lines.push("", summaryLine(report));
	return `${lines.join("\n")}\n`;
}

function summaryLine({ counts, timings }: DiscoveryReport): string {
	return `${plural(counts.selected, "skill")} selected, ${counts.shadowed} shadowed, ${counts.untrusted} untrusted, ${counts.disabled} disabled, ${counts.rejected} rejected (${timings.totalMs} ms)`;
}

/** Lists longer than this are cut to their first {@link LIST_SHOWN} entries unless --verbose. */
const LIST_LIMIT = 20;
const LIST_SHOWN = 10;

function section<T>(
	lines: string[],
	style: Style,
	title: string,
	items: readonly T[],
	line: (item: T) => string,
	cut = false,
): void {
	if (items.length === 0) return;
	lines.push("", style.bold(title));
	const shown = cut && items.length > LIST_LIMIT ? items.slice(0, LIST_SHOWN) : items;
	for (const item of shown) lines.push(`  ${line(item)}`);
	if (shown.length < items.length) {
		const more = `... and ${items.length - shown.length} more (--verbose or 'skillset list --all' lists them)`;
		lines.push(`  ${style.dim(more)}`);
	}
}
