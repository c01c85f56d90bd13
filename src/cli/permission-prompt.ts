import type { PermissionRequest } from "../agent/index.ts";
import type { Style } from "./io.ts";
import { characterCount, exactText } from "./terminal-text.ts";

/** Past this many characters (in their visible form) an argument is shown as its head and tail, with the count cut. */
const MAX_SHOWN_CHARS = 4_000;
const HEAD_CHARS = 3_000;
const TAIL_CHARS = 1_000;
/** The one-line summary of a call that is about to run. */
const MAX_SUMMARY_CHARS = 160;

/**
 * The permission question for a terminal. Every model-controlled string (the arguments, the reason, the pattern)
 * is shown exactly and on one line per value, control characters and escape sequences made visible, each argument
 * with its length, so the text cannot move the cursor or redraw the question. The answer line is
 * {@link renderAllowQuestion}.
 */
export function renderPermissionRequest(request: PermissionRequest, style: Style): string {
	const lines = [
		`${style.yellow("Permission needed")} ${style.dim(`(rule ${exactText(request.rule)})`)}`,
		`  why: ${exactText(request.reason)}`,
		`  tool: ${style.bold(exactText(request.tool))}`,
	];
	for (const [key, value] of Object.entries(request.args)) {
		const text = typeof value === "string" ? value : JSON.stringify(value);
		const count = characterCount(text);
		const breaks = text.split("\n").length;
		const size = `${count} character${count === 1 ? "" : "s"}${breaks > 1 ? `, ${breaks} lines` : ""}`;
		lines.push(`  ${exactText(key)} (${size}):`, `    ${shown(exactText(text))}`);
	}
	if (request.grantable) lines.push(`  [a]lways allows exactly this call again: ${exactText(request.pattern)}`);
	return `\n${lines.join("\n")}\n`;
}

/** The answer line of a permission question. */
export function renderAllowQuestion(grantable: boolean): string {
	return `Allow? [o]nce, ${grantable ? "[a]lways, " : ""}[d]eny: `;
}

/** One line naming a call that runs now: its tool and arguments, made visible, cut at a width. */
export function renderCallSummary(name: string, args: Record<string, unknown>): string {
	const parts = Object.entries(args).map(
		([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`,
	);
	const text = exactText(`${name} ${parts.join(", ")}`);
	return text.length > MAX_SUMMARY_CHARS ? `${text.slice(0, MAX_SUMMARY_CHARS - 1)}…` : text;
}

function shown(text: string): string {
	if (text.length <= MAX_SHOWN_CHARS) return text;
	const cut = text.length - HEAD_CHARS - TAIL_CHARS;
	return `${text.slice(0, HEAD_CHARS)} … [${cut} characters not shown] … ${text.slice(-TAIL_CHARS)}`;
}
