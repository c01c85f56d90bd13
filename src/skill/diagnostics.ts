import { type Profile, type Severity, SKILL_CODES, type SkillCode } from "./codes.ts";
import { SkillsetError } from "./errors.ts";

/**
 * A problem found in a skill, as plain JSON-serialisable data. `line` and `column` are 1-based, counted from the
 * start of SKILL.md (columns in Unicode code points); they are absent when the problem has no place in the file.
 */
export interface Diagnostic<Code extends string = SkillCode> {
	code: Code;
	severity: Severity;
	message: string;
	file: string;
	line?: number;
	column?: number;
	field?: string;
	hint?: string;
}

/** A 1-based place in a file. */
export interface Position {
	line: number;
	column: number;
}

/**
 * A diagnostic before it is placed: `at` is either an offset into the text the finding came from (resolved by a
 * {@link LineIndex}) or a position already known.
 */
export interface Finding {
	code: SkillCode;
	message: string;
	at?: number | Position;
	field?: string;
	hint?: string;
}

/** Maps offsets in a text to 1-based lines and code-point columns; `firstLine` is the text's line in the file. */
export class LineIndex {
	readonly #text: string;
	readonly #firstLine: number;
	#starts: number[] | undefined;

	constructor(text: string, firstLine = 1) {
		this.#text = text;
		this.#firstLine = firstLine;
	}

	/** The position of `offset` (a UTF-16 index into the text, clamped to its bounds). */
	position(offset: number): Position {
		const starts = this.#lineStarts();
		const at = Math.max(0, Math.min(offset, this.#text.length));
		let low = 0;
		let high = starts.length - 1;
		while (low < high) {
			const mid = (low + high + 1) >> 1;
			if ((starts[mid] ?? 0) <= at) low = mid;
			else high = mid - 1;
		}
		const lineStart = starts[low] ?? 0;
		return { line: this.#firstLine + low, column: codePointLength(this.#text.slice(lineStart, at)) + 1 };
	}

	#lineStarts(): number[] {
		if (this.#starts) return this.#starts;
		const starts = [0];
		for (let i = this.#text.indexOf("\n"); i !== -1; i = this.#text.indexOf("\n", i + 1)) starts.push(i + 1);
		this.#starts = starts;
		return starts;
	}
}

/** Where findings are placed and how severe they are. */
export interface PlaceOptions {
	file: string;
	profile: Profile;
	index?: LineIndex;
}

/** The severity of `code` under `profile`; reporting a code its profile never uses is a programming error. */
export function severityOf(code: SkillCode, profile: Profile): Severity {
	const severity = SKILL_CODES[code][profile];
	if (severity === null) throw new SkillsetError("internal", `${code} is not reported by the ${profile} profile`);
	return severity;
}

/** Turns findings into diagnostics: severity from the profile, position from the index, hint from the table. */
export function placeFindings(findings: readonly Finding[], options: PlaceOptions): Diagnostic[] {
	return findings.map((finding) => placeFinding(finding, options));
}

function placeFinding(finding: Finding, { file, profile, index }: PlaceOptions): Diagnostic {
	const diagnostic: Diagnostic = {
		code: finding.code,
		severity: severityOf(finding.code, profile),
		message: finding.message,
		file,
	};
	const position = typeof finding.at === "number" ? index?.position(finding.at) : finding.at;
	if (position) {
		diagnostic.line = position.line;
		diagnostic.column = position.column;
	}
	if (finding.field !== undefined) diagnostic.field = finding.field;
	diagnostic.hint = finding.hint ?? SKILL_CODES[finding.code].hint;
	return diagnostic;
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic<string>[]): boolean {
	return diagnostics.some((d) => d.severity === "error");
}

/** Length of a string in Unicode code points (what the spec's character limits count). */
export function codePointLength(text: string): number {
	let length = 0;
	for (let i = 0; i < text.length; i++) {
		const unit = text.charCodeAt(i);
		// A high surrogate followed by a low one is a single code point.
		if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
			const next = text.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) i++;
		}
		length++;
	}
	return length;
}

/**
 * The length of `text` in code points when it is over `max`, else undefined. A string has no more code points than
 * UTF-16 units, so one of at most `max` units is not counted at all (nearly every name and description).
 */
export function codePointsOver(text: string, max: number): number | undefined {
	if (text.length <= max) return undefined;
	const length = codePointLength(text);
	return length > max ? length : undefined;
}
