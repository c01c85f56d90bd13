import type { ParseArgsConfig } from "node:util";
import type { Diagnostic, Severity } from "../skill/index.ts";
import { type Style, UsageError } from "./io.ts";

/** `--verbose` and `--quiet`, for commands that report diagnostics. */
export const detailFlags: NonNullable<ParseArgsConfig["options"]> = {
	verbose: { type: "boolean", default: false },
	quiet: { type: "boolean", default: false },
};

/** Usage lines for {@link detailFlags}. */
export const detailUsage = `  --verbose                  every diagnostic with its line and hint (default: up to 10 in full, more
                             grouped: one line per skill with its codes, then a count per code)
  --quiet                    only the summary line`;

/** How much of a report to show. */
export interface Detail {
	verbose?: boolean;
	quiet?: boolean;
}

/** `--verbose` with `--quiet` is a contradiction: a usage error. */
export function checkDetail(values: Detail): void {
	if (values.verbose && values.quiet) throw new UsageError("--verbose and --quiet cannot be used together");
}

/** At most this many diagnostics are shown in full without --verbose; more are grouped by skill and code. */
export const FULL_DIAGNOSTICS = 10;

/** One skill's (or one PATH's) diagnostics, under the label that names it. */
export interface DiagnosticGroup {
	label: string;
	diagnostics: readonly Diagnostic<string>[];
}

/**
 * Diagnostics for a person: every one (hints on each code's first use) with `verbose` or when there are few;
 * otherwise one line per skill with problems (`label  error  code ×2, code`), then a count per code, most frequent
 * first. Nothing with `quiet`: the caller prints only its summary line.
 */
export function renderGroups(groups: readonly DiagnosticGroup[], style: Style, detail: Detail): string[] {
	if (detail.quiet) return [];
	const all = groups.flatMap((group) => group.diagnostics);
	if (detail.verbose || all.length <= FULL_DIAGNOSTICS) {
		const hinted = new Set<string>();
		return groups.flatMap((group) => renderDiagnostics(group.diagnostics, style, hinted));
	}
	const lines: string[] = [];
	for (const group of groups) {
		if (group.diagnostics.length === 0) continue;
		const codes = [...countCodes(group.diagnostics)].map(([code, n]) => (n > 1 ? `${code} ×${n}` : code));
		const worst = worstSeverity(group.diagnostics);
		lines.push(`${group.label}  ${paintSeverity(worst, style)}  ${codes.join(", ")}`);
	}
	const byCode = [...countCodes(all)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
	lines.push("", style.bold(`By code (${plural(groups.filter((g) => g.diagnostics.length > 0).length, "skill")}):`));
	for (const [code, n] of byCode) lines.push(`  ${code} × ${n}`);
	lines.push(style.dim("(--verbose shows every diagnostic with its line and hint)"));
	return lines;
}

function countCodes(diagnostics: readonly Diagnostic<string>[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const d of diagnostics) counts.set(d.code, (counts.get(d.code) ?? 0) + 1);
	return counts;
}

function worstSeverity(diagnostics: readonly Diagnostic<string>[]): Severity {
	if (diagnostics.some((d) => d.severity === "error")) return "error";
	return diagnostics.some((d) => d.severity === "warning") ? "warning" : "info";
}

/** `file:line:col  severity  code  message`, then (when `withHint`) the hint indented on the next line. */
export function renderDiagnostic(diagnostic: Diagnostic<string>, style: Style, withHint = true): string {
	const place = [diagnostic.file, diagnostic.line, diagnostic.column].filter((part) => part !== undefined).join(":");
	const severity = paintSeverity(diagnostic.severity, style);
	const line = `${place}  ${severity}  ${style.bold(diagnostic.code)}  ${diagnostic.message}`;
	return diagnostic.hint && withHint ? `${line}\n    ${style.dim(`hint: ${diagnostic.hint}`)}` : line;
}

/**
 * Renders diagnostics in order, giving each code's hint only the first time it appears (across calls that share
 * `hinted`), so a long report is not a wall of repeated hints.
 */
export function renderDiagnostics(
	diagnostics: readonly Diagnostic<string>[],
	style: Style,
	hinted: Set<string>,
): string[] {
	return diagnostics.map((diagnostic) => {
		const line = renderDiagnostic(diagnostic, style, !hinted.has(diagnostic.code));
		hinted.add(diagnostic.code);
		return line;
	});
}

/** Counts by severity, for summary lines: "2 errors, 1 warning". Empty when there are none. */
export function renderCounts(diagnostics: readonly Diagnostic<string>[]): string {
	const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
	for (const d of diagnostics) counts[d.severity]++;
	const parts = (Object.entries(counts) as [Severity, number][])
		.filter(([, count]) => count > 0)
		.map(([severity, count]) => (severity === "info" ? `${count} info` : plural(count, severity)));
	return parts.join(", ");
}

/** "1 skill", "2 skills". */
export function plural(count: number, noun: string): string {
	return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function paintSeverity(severity: Severity, style: Style): string {
	if (severity === "error") return style.red(severity);
	if (severity === "warning") return style.yellow(severity);
	return style.blue(severity);
}
