import type { SkillCode } from "./codes.ts";
import { codePointsOver } from "./diagnostics.ts";

/** Spec §name: at most 64 characters, counted in code points. */
export const MAX_NAME_CODE_POINTS = 64;

/** One rule a name breaks. */
export interface NameProblem {
	code: SkillCode;
	message: string;
}

// Python's str.isalnum, which the reference validator uses: letters (Lu, Ll, Lt, Lm, Lo) and numbers.
const ALNUM = /^[\p{L}\p{N}]$/u;
// Characters that would turn a name into a path or hide part of it.
const UNSAFE = /[/\\\p{Cc}]/u;
const ASCII_NAME = /^[a-z0-9-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: every ASCII character is the point.
const ASCII = /^[\u0000-\u007f]*$/;

/** The name as the spec compares it: trimmed, then NFKC-normalised (what the reference validator does). */
export function normalizeSkillName(raw: string): string {
	return nfkc(raw.trim());
}

/** NFKC of `text`: ASCII text is its own NFKC form, and most names are ASCII (ICU is not called for them). */
function nfkc(text: string): string {
	return ASCII.test(text) ? text : text.normalize("NFKC");
}

/**
 * Checks a normalised name against the spec's rules, in the reference validator's order, and against the
 * directory name (NFKC of it) when one is given. Returns every rule broken; an empty list means valid.
 */
export function checkSkillName(name: string, dirName?: string): NameProblem[] {
	const problems: NameProblem[] = [];
	const length = codePointsOver(name, MAX_NAME_CODE_POINTS);
	if (length !== undefined) {
		problems.push({
			code: "name.too-long",
			message: `Skill name '${name}' exceeds ${MAX_NAME_CODE_POINTS} character limit (${length} chars)`,
		});
	}
	if (name !== name.toLowerCase()) {
		problems.push({ code: "name.uppercase", message: `Skill name '${name}' must be lowercase` });
	}
	if (name.startsWith("-") || name.endsWith("-")) {
		problems.push({ code: "name.hyphen-edge", message: "Skill name cannot start or end with a hyphen" });
	}
	if (name.includes("--")) {
		problems.push({ code: "name.consecutive-hyphens", message: "Skill name cannot contain consecutive hyphens" });
	}
	const characterProblem = checkCharacters(name);
	if (characterProblem) problems.push(characterProblem);
	if (dirName !== undefined && nfkc(dirName) !== name) {
		problems.push({
			code: "name.dir-mismatch",
			message: `Directory name '${dirName}' must match skill name '${name}'`,
		});
	}
	return problems;
}

/** True when `name` is a valid spec name (directory match aside). */
export function isValidSkillName(name: string): boolean {
	return name.length > 0 && name === normalizeSkillName(name) && checkSkillName(name).length === 0;
}

/** True for names that are valid but use more than a-z, 0-9 and hyphens. */
export function isNonAsciiName(name: string): boolean {
	return !ASCII_NAME.test(name);
}

function checkCharacters(name: string): NameProblem | undefined {
	// Only a-z, 0-9 and hyphens: every one a letter, a digit or a hyphen, none unsafe.
	if (ASCII_NAME.test(name)) return undefined;
	if (UNSAFE.test(name)) {
		const shown = JSON.stringify(name);
		return { code: "name.unsafe-chars", message: `Skill name ${shown} contains a path separator or control character` };
	}
	for (const char of name) {
		if (char !== "-" && !ALNUM.test(char)) {
			return {
				code: "name.invalid-chars",
				message: `Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
			};
		}
	}
	return undefined;
}
