// Splits a text file into units the rules look at, each with the context that sets a finding's severity. Long
// lines are cut into overlapping windows so that every rule works on a bounded string (linear time overall).

import { shellLines } from "./continued.ts";
import type { AuditContext } from "./rules.ts";

/** How a file is read: Markdown (prose and code), a script, a data file, or a licence (URLs are expected). */
export type FileKind = "markdown" | "script" | "data" | "licence";

/** A piece of text with where it sits. `flow` groups the units of one script, code block or command line. */
export interface Unit {
	file: string;
	line: number;
	column: number;
	text: string;
	context: AuditContext;
	kind: FileKind;
	flow: number;
	/** Prose just before inline code on the same line (for negations such as "never run `…`"). */
	before: string;
	/** Set on the windows of a longer line, so its commands are read from the whole line (see {@link LineWindow}). */
	window?: LineWindow;
}

/**
 * A window of a line longer than {@link WINDOW}. Its commands are read from the whole line, not from the window's
 * text, so a command longer than the overlap is never cut in two: the window owns the commands that start in
 * `[offset, next)`, and `cursor` (shared by the line's windows, read in order) is where the next unread command
 * starts.
 */
export interface LineWindow {
	line: string;
	offset: number;
	next: number;
	cursor: { at: number };
}

/** Longest string a rule sees; longer lines are windows of this size that overlap by {@link OVERLAP}. */
export const WINDOW = 4096;
const OVERLAP = 512;

const SCRIPT_EXT =
	/\.(sh|bash|zsh|fish|ksh|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|ps1|psm1|psd1|rb|pl|pm|bat|cmd|php|lua|go|rs|java|kt|swift|r|applescript|scpt|vbs|command|tool)$/i;
const MARKDOWN_EXT = /\.(md|markdown|mdx|txt|rst)$/i;
const SCRIPT_NAMES = new Set([
	"makefile",
	"dockerfile",
	"justfile",
	"rakefile",
	"procfile",
	"gnumakefile",
	"vagrantfile",
]);
const LICENCE = /^(licen[cs]e|copying|notice)([._-].{0,40})?$/i;

/** What kind of file `rel` is, from its name, its place in the package, its first bytes and its mode. */
export function fileKind(rel: string, text: string, executable: boolean): FileKind {
	const name = rel.slice(rel.lastIndexOf("/") + 1);
	if (LICENCE.test(name)) return "licence";
	if (text.startsWith("#!")) return "script";
	if (/^requirements[\w.-]{0,40}\.(txt|in)$/.test(name)) return "data";
	// Markdown stays Markdown with the executable bit (the audit reads it as a script as well); plain text with it
	// is a script.
	if (MARKDOWN_EXT.test(name) && !(executable && !/\.(md|markdown|mdx)$/i.test(name))) return "markdown";
	if (executable || scriptLikeName(rel)) return "script";
	return "data";
}

/** A script by its name: a script extension, a build file name, or no extension in `scripts/` or a `bin/` folder. */
export function scriptLikeName(rel: string): boolean {
	const name = rel.slice(rel.lastIndexOf("/") + 1);
	if (SCRIPT_EXT.test(name) || SCRIPT_NAMES.has(name.toLowerCase())) return true;
	return !name.includes(".") && (rel.startsWith("scripts/") || rel.includes("/bin/") || rel.startsWith("bin/"));
}

/** Words in a heading or lead-in line that make the code below an example of an attack or of what not to do. */
const EXAMPLE_CUE =
	/\b(payloads?|exploits?|attacks?|malicious|malware|vulnerable|insecure|anti-?patterns?|bad|wrong|detect(s|ion|ing)?|signatures?|indicators?|iocs?|never|don'?t|do not|avoid|dangerous|unsafe|what not to|red[- ]team|pentest(ing)?|penetration|ctf|proof of concept|poc|phishing|injection|obfuscat\w{0,6})\b/i;
/** A lead-in that tells the agent to run the block, which keeps it a step even in a security-education skill. */
const DIRECTIVE_CUE =
	/\b(run|execute|install|first|setup|set up|prerequisites?|required|requirements|before (you|using|starting)|to (start|begin|use))\b/i;

/** Splits one file into units. `educational` marks a skill that documents attacks (its code blocks are examples). */
export function unitsOf(
	file: string,
	text: string,
	kind: FileKind,
	options: { flow: () => number; educational: boolean },
): Unit[] {
	const units: Unit[] = [];
	if (kind !== "markdown") {
		const flow = options.flow();
		const context: AuditContext = kind === "script" ? "script" : "data";
		const emit = (line: string, number: number) => {
			if (line !== "")
				pushWindows(units, { file, line: number, column: 1, text: line, context, kind, flow, before: "" });
		};
		// Only scripts are read as shell; in data a trailing `|` is YAML's block scalar, not a pipe.
		if (kind === "script") {
			const lines = shellLines(emit);
			forEachLine(text, lines.push);
			lines.flush();
		} else forEachLine(text, emit);
		return units;
	}
	markdownUnits(file, text, options, units);
	return units;
}

interface BlockState {
	fence?: string;
	context: AuditContext;
	flow: number;
	heading: string;
	lead: string;
	comment: boolean;
	frontmatter: boolean;
}

function markdownUnits(
	file: string,
	text: string,
	options: { flow: () => number; educational: boolean },
	units: Unit[],
): void {
	const state: BlockState = { context: "step", flow: 0, heading: "", lead: "", comment: false, frontmatter: false };
	const unit = (line: number, text: string, context: AuditContext, flow: number): Unit =>
		markdownUnit(file, line, 1, text, context, flow);
	const code = shellLines((line, number) => pushWindows(units, unit(number, line, state.context, state.flow)));
	forEachLine(text, (line, number) => {
		if (number === 1 && line.trimEnd() === "---") {
			state.frontmatter = true;
			return;
		}
		if (state.frontmatter) {
			if (line.trimEnd() === "---") state.frontmatter = false;
			else pushWindows(units, unit(number, line, "prose", options.flow()));
			return;
		}
		const marker = fenceMarker(line);
		if (marker && (state.fence === undefined || marker.startsWith(state.fence))) {
			code.flush();
			if (state.fence === undefined) {
				state.fence = marker;
				state.flow = options.flow();
				state.context = blockContext(state, options.educational);
			} else state.fence = undefined;
			return;
		}
		if (state.fence !== undefined) {
			code.push(line, number);
			return;
		}
		proseLine(file, line, number, state, options, units);
	});
	code.flush();
}

/**
 * A unit of a Markdown file. Always this literal, never a spread of a shared base: V8 gives spread-built objects a
 * slow shape, and every rule reads every unit (a spread here cost more than all the prose rules together).
 */
function markdownUnit(
	file: string,
	line: number,
	column: number,
	text: string,
	context: AuditContext,
	flow: number,
	before = "",
): Unit {
	return { file, line, column, text, context, kind: "markdown", flow, before };
}

function proseLine(
	file: string,
	line: string,
	number: number,
	state: BlockState,
	options: { flow: () => number },
	units: Unit[],
): void {
	const trimmed = line.trimStart();
	if (trimmed.startsWith("#")) state.heading = trimmed.slice(0, 200);
	if (trimmed !== "") state.lead = trimmed.slice(-200);
	const table = trimmed.startsWith("|");
	if (trimmed.startsWith("$ ") || trimmed.startsWith("> $ ")) {
		const flow = options.flow();
		pushWindows(units, markdownUnit(file, number, 1, line, table ? "table" : "step", flow));
		return;
	}
	state.comment = scanComment(line, state.comment, (part, column) =>
		pushWindows(units, markdownUnit(file, number, column, part, "comment", options.flow())),
	);
	// Commands written in prose ("paste this into a terminal: curl … | bash") are checked too, each line a flow.
	const proseContext: AuditContext = table ? "table" : "prose";
	pushWindows(units, markdownUnit(file, number, 1, line, proseContext, options.flow()));
	// The inline code of one line is one flow: "download with `curl -o x …`, then run `bash x`".
	let flow = 0;
	const context: AuditContext = table ? "table" : "step";
	// On a line longer than a window, the spans of each window are one unit (one per line of its text): a line of
	// millions of tiny spans costs what its windows cost.
	let batch: Unit | undefined;
	inlineCode(line, (code, column) => {
		if (flow === 0) flow = options.flow();
		if (line.length > WINDOW && code.length < WINDOW) {
			if (batch && column - batch.column + code.length < WINDOW) batch.text += `\n${code}`;
			else {
				batch = markdownUnit(file, number, column, code, context, flow);
				units.push(batch);
			}
			return;
		}
		const before = line.slice(Math.max(0, column - 161), column - 2);
		const unit = markdownUnit(file, number, column, code, context, flow, before);
		if (code.length > WINDOW) pushWindows(units, unit);
		else units.push(unit);
	});
}

function blockContext(state: BlockState, educational: boolean): AuditContext {
	const lead = state.lead.startsWith("#") ? "" : state.lead;
	if (EXAMPLE_CUE.test(lead) || EXAMPLE_CUE.test(state.heading)) return "example";
	if (educational && !DIRECTIVE_CUE.test(lead)) return "example";
	return "step";
}

/** "```" or "~~~" (three or more) at the start of a line, after at most three spaces. */
function fenceMarker(line: string): string | undefined {
	let i = 0;
	while (i < 3 && line[i] === " ") i++;
	const c = line[i];
	if (c !== "`" && c !== "~") return undefined;
	let j = i;
	while (line[j] === c) j++;
	return j - i >= 3 ? line.slice(i, j) : undefined;
}

/** Calls `report` for each inline code span (single backticks) with its 1-based column. */
function inlineCode(line: string, report: (code: string, column: number) => void): void {
	let i = line.indexOf("`");
	while (i !== -1) {
		let ticks = 1;
		while (line[i + ticks] === "`") ticks++;
		const fence = "`".repeat(ticks);
		const end = line.indexOf(fence, i + ticks);
		if (end === -1) return;
		if (end > i + ticks) report(line.slice(i + ticks, end), i + ticks + 1);
		i = line.indexOf("`", end + ticks);
	}
}

/** Reports the comment parts of a line; returns whether a comment is still open at its end. */
function scanComment(line: string, open: boolean, report: (text: string, column: number) => void): boolean {
	let inside = open;
	let position = 0;
	while (position < line.length) {
		if (inside) {
			const end = line.indexOf("-->", position);
			report(line.slice(position, end === -1 ? undefined : end), position + 1);
			if (end === -1) return true;
			inside = false;
			position = end + 3;
		} else {
			const start = line.indexOf("<!--", position);
			if (start === -1) return false;
			inside = true;
			position = start + 4;
		}
	}
	return inside;
}

/**
 * Calls `each` for every line with its 1-based number, without building one big array. Lines end at LF, CRLF or a
 * lone CR (as in CommonMark, and as Python reads a script).
 */
export function forEachLine(text: string, each: (line: string, number: number) => void): void {
	let start = 0;
	let number = 1;
	// The next lone CR, found once and reused, so a file with one far-off CR is still read in linear time.
	let cr = text.indexOf("\r");
	while (start <= text.length) {
		let end = text.indexOf("\n", start);
		if (end === -1) end = text.length;
		while (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
		let next = end + 1;
		let stop = end > start && text[end - 1] === "\r" ? end - 1 : end;
		while (cr !== -1 && cr < stop && text[cr + 1] === "\n") cr = text.indexOf("\r", cr + 1);
		if (cr !== -1 && cr < stop) {
			stop = cr;
			next = cr + 1;
			end = cr;
		}
		each(text.slice(start, stop), number++);
		if (end === text.length) break;
		start = next;
	}
}

/** Adds the unit, cut into overlapping windows when its text is longer than {@link WINDOW}. */
function pushWindows(units: Unit[], unit: Unit): void {
	const text = unit.text;
	if (text.length <= WINDOW) {
		units.push(unit);
		return;
	}
	const cursor = { at: 0 };
	for (let at = 0; at < text.length; at += WINDOW - OVERLAP) {
		const last = at + WINDOW >= text.length;
		units.push({
			file: unit.file,
			line: unit.line,
			column: unit.column + at,
			text: text.slice(at, at + WINDOW),
			context: unit.context,
			kind: unit.kind,
			flow: unit.flow,
			before: unit.before,
			window: { line: text, offset: at, next: last ? text.length : at + WINDOW - OVERLAP, cursor },
		});
		if (last) break;
	}
}
