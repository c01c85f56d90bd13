import { basename, dirname } from "node:path";
import type { Tokenizer } from "../catalog/index.ts";
import { buildReferenceGraph } from "../runtime/index.ts";
import { type Diagnostic, type ExtensionSet, type Severity, validateSkillPath } from "../skill/index.ts";
import { PLACEHOLDER_DESCRIPTION } from "./new-skill.ts";

/** Codes of lint's best-practice checks (the spec's codes come from `validate`, the reference graph's from refs). */
export type LintCode =
	| "lint.body-lines"
	| "lint.body-tokens"
	| "lint.description-when"
	| "lint.description-short"
	| "lint.overlap"
	| "lint.placeholder";

/** Severity, meaning and fix of each lint code. */
export const LINT_CODES: Readonly<Record<LintCode, { severity: Severity; description: string; hint: string }>> = {
	"lint.body-lines": {
		severity: "warning",
		description: "The body is longer than 500 lines.",
		hint: "Move detail into references/ files and say in SKILL.md when to read each.",
	},
	"lint.body-tokens": {
		severity: "warning",
		description: "The body is longer than 5,000 tokens.",
		hint: "Keep SKILL.md to the steps; move reference material into references/.",
	},
	"lint.description-when": {
		severity: "warning",
		description: "The description does not say when to use the skill.",
		hint: "Add a trigger: 'Use when the user asks to ...'. The description alone decides whether the skill is used.",
	},
	"lint.description-short": {
		severity: "warning",
		description: "The description is too short to say what the skill does and when.",
		hint: "Name the task, the inputs and the words a user would use.",
	},
	"lint.overlap": {
		severity: "warning",
		description: "Two skills have descriptions so alike that a model may pick the wrong one.",
		hint: "Make each description say what is different about its skill.",
	},
	"lint.placeholder": {
		severity: "error",
		description: "The description is still the template's placeholder text.",
		hint: "Write what the skill does and when to use it, in the words a user would say.",
	},
};

/** One skill's lint result. */
export interface LintResult {
	path: string;
	name: string | null;
	valid: boolean;
	diagnostics: Diagnostic<string>[];
}

/** Options for {@link lintSkills}. */
export interface LintOptions {
	tokenizer: Tokenizer;
	/** Extension sets the spec check accepts. Default: claude-code and workbuddy. */
	allowExtensions?: readonly ExtensionSet[];
	/** Word-set similarity above which two descriptions overlap. Default 0.6. */
	overlapThreshold?: number;
}

const MAX_BODY_LINES = 500;
const MAX_BODY_TOKENS = 5000;
const WHEN = /\b(when|whenever|if the user|for (tasks|requests|questions)|use (it|this|for)|used (for|to)|trigger)/i;
const STOP_WORDS = new Set(
	"a an and are as at be by for from how in into is it its of on or that the this to use used when with you your".split(
		" ",
	),
);

/**
 * Lints skill folders: the spec (strict), then best practice: body length in lines and tokens, a description that
 * says what and when, the reference graph (broken links, deep chains, orphans), and descriptions of different
 * skills that overlap enough to confuse a model.
 */
export async function lintSkills(paths: readonly string[], options: LintOptions): Promise<LintResult[]> {
	const results: LintResult[] = [];
	const descriptions: { result: LintResult; words: Set<string>; file: string }[] = [];
	for (const path of paths) {
		const checked = await validateSkillPath(path, {
			allowExtensions: options.allowExtensions ?? ["claude-code", "workbuddy"],
		});
		const result: LintResult = {
			path,
			name: checked.properties?.name ?? null,
			valid: checked.valid,
			diagnostics: [...checked.diagnostics],
		};
		results.push(result);
		if (!checked.file || !checked.properties) continue;
		const file = checked.file;
		const add = (code: LintCode, message: string, line?: number) =>
			result.diagnostics.push(lintDiagnostic(code, message, file, line));
		const body = checked.body ?? "";
		const lines = body === "" ? 0 : body.split("\n").length;
		if (lines > MAX_BODY_LINES) add("lint.body-lines", `The body has ${lines} lines (at most ${MAX_BODY_LINES})`);
		const tokens = options.tokenizer.count(body);
		if (tokens > MAX_BODY_TOKENS) add("lint.body-tokens", `The body is ${tokens} tokens (at most ${MAX_BODY_TOKENS})`);
		const description = checked.properties.description;
		if (description.includes(PLACEHOLDER_DESCRIPTION))
			add("lint.placeholder", "The description is the placeholder text of `skillset new`");
		else if ([...description].length < 40)
			add("lint.description-short", `The description has ${[...description].length} characters`);
		else if (!WHEN.test(`${description} ${checked.properties.whenToUse ?? ""}`))
			add("lint.description-when", "The description says what, but not when");
		result.diagnostics.push(...buildReferenceGraph(dirname(file), basename(file)).diagnostics);
		descriptions.push({ result, words: contentWords(description), file });
	}
	addOverlaps(descriptions, options.overlapThreshold ?? 0.6);
	return results;
}

function addOverlaps(items: { result: LintResult; words: Set<string>; file: string }[], threshold: number): void {
	for (let i = 0; i < items.length; i++) {
		for (let j = i + 1; j < items.length; j++) {
			const a = items[i];
			const b = items[j];
			if (!a || !b || a.result.name === b.result.name) continue;
			const similarity = jaccard(a.words, b.words);
			if (similarity < threshold) continue;
			const percent = Math.round(similarity * 100);
			// Once per pair, on the later skill: a pair reported on both sides reads as two problems.
			b.result.diagnostics.push(
				lintDiagnostic(
					"lint.overlap",
					`'${b.result.name}' and '${a.result.name}' (${a.file}) have descriptions ${percent}% alike`,
					b.file,
				),
			);
		}
	}
}

function contentWords(text: string): Set<string> {
	return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOP_WORDS.has(word)));
}

function jaccard(a: Set<string>, b: Set<string>): number {
	if (a.size === 0 || b.size === 0) return 0;
	let shared = 0;
	for (const word of a) if (b.has(word)) shared++;
	return shared / (a.size + b.size - shared);
}

function lintDiagnostic(code: LintCode, message: string, file: string, line?: number): Diagnostic<string> {
	const info = LINT_CODES[code];
	return { code, severity: info.severity, message, file, ...(line ? { line } : {}), hint: info.hint };
}
