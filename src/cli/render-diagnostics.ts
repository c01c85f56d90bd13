import type { Diagnostic, Severity } from "../skill/index.ts";
import type { Style } from "./io.ts";

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
