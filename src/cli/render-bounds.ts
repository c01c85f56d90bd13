import type { DiscoveryReport, RootReport } from "../discovery/index.ts";
import type { CliIo, Style } from "./io.ts";

const BOUNDS: ReadonlyArray<[keyof RootReport["bounds"], string, string]> = [
	["dirs", "folders", "maxDirs"],
	["entries", "entries", "maxEntries"],
	["depth", "depth", "maxDepth"],
];

/** A root a walk bound cut short: its path, the bounds it hit (`dirs`, `entries`, `depth`), whether it was named. */
export interface IncompleteRoot {
	root: string;
	bounds: string[];
	/** The user named the root (`--root`, `roots`): such roots already get the larger bounds. */
	named: boolean;
}

/** The roots of `report` that a walk bound cut short. */
export function incompleteRoots(report: DiscoveryReport): IncompleteRoot[] {
	const cut: IncompleteRoot[] = [];
	for (const root of report.roots) {
		const bounds = BOUNDS.filter(([bound]) => root.bounds[bound]).map(([bound]) => bound);
		if (bounds.length > 0) cut.push({ root: root.path, bounds, named: root.source === "option" });
	}
	return cut;
}

/**
 * The lines that open human `scan` output when a walk bound cut a root short: which root, which bound, and the
 * config key that lifts it. Empty when every root was walked whole.
 */
export function renderBoundNotices(report: DiscoveryReport, style: Style): string[] {
	return renderIncomplete(incompleteRoots(report), style);
}

/** {@link renderBoundNotices} for roots already picked out. */
export function renderIncomplete(roots: readonly IncompleteRoot[], style: Style): string[] {
	const lines: string[] = [];
	for (const root of roots) {
		const hit = BOUNDS.filter(([bound]) => root.bounds.includes(bound));
		const what = hit.map(([, label]) => label).join(", ");
		const keys = hit.map(([, , key]) => `"limits": { "${key}": N }`).join(" and ");
		const named = root.named ? "" : ", or name the folder with --root (named roots get larger bounds)";
		lines.push(style.yellow(`Incomplete: the walk of ${root.root} stopped at its ${what} bound.`));
		lines.push(`  Set ${keys} in skillset.config.json${named} to scan it all.`);
	}
	if (lines.length > 0) lines.push("");
	return lines;
}

const PLAIN: Style = { red: String, yellow: String, blue: String, dim: String, bold: String };

/**
 * Says on stderr that a walk bound cut a root short (what `scan` puts at the top of its report): every command
 * that discovers announces it, so a partial answer never looks complete, while stdout keeps its contract.
 */
export function announceBounds(report: DiscoveryReport, io: Pick<CliIo, "stderr">): void {
	const lines = renderBoundNotices(report, PLAIN);
	if (lines.length > 0) io.stderr(lines.join("\n"));
}
