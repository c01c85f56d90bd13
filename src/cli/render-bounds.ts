import type { DiscoveryReport, RootReport } from "../discovery/index.ts";
import type { Style } from "./io.ts";

const BOUNDS: ReadonlyArray<[keyof RootReport["bounds"], string, string]> = [
	["dirs", "folders", "maxDirs"],
	["entries", "entries", "maxEntries"],
	["depth", "depth", "maxDepth"],
];

/**
 * The lines that open human `scan` output when a walk bound cut a root short: which root, which bound, and the
 * config key that lifts it. Empty when every root was walked whole.
 */
export function renderBoundNotices(report: DiscoveryReport, style: Style): string[] {
	const lines: string[] = [];
	for (const root of report.roots) {
		const hit = BOUNDS.filter(([bound]) => root.bounds[bound]);
		if (hit.length === 0) continue;
		const what = hit.map(([, label]) => label).join(", ");
		const keys = hit.map(([, , key]) => `"limits": { "${key}": N }`).join(" and ");
		const named = root.source === "option" ? "" : ", or name the folder with --root (named roots get larger bounds)";
		lines.push(style.yellow(`Incomplete: the walk of ${root.path} stopped at its ${what} bound.`));
		lines.push(`  Set ${keys} in skillset.config.json${named} to scan it all.`);
	}
	if (lines.length > 0) lines.push("");
	return lines;
}
