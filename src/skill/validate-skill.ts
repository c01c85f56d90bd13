import type { Profile } from "./codes.ts";
import { type Diagnostic, hasErrors, placeFindings } from "./diagnostics.ts";
import { type ParsedSkill, type ParseSkillOptions, parseSkillMd, type SkillFrontmatter } from "./parse-skill.ts";
import type { SkillProperties } from "./properties.ts";
import { type ValidateOptions, validateFrontmatter } from "./validate.ts";

/** Options for {@link validateSkillMd}: parsing and validation together. */
export interface ValidateSkillOptions extends ParseSkillOptions, ValidateOptions {}

/** A SKILL.md checked against a profile. `valid` is true when no diagnostic is an error. */
export interface SkillValidation {
	valid: boolean;
	profile: Profile;
	/** What the skill declares; null when no name or description could be read. */
	properties: SkillProperties | null;
	frontmatter: SkillFrontmatter | null;
	body: string | undefined;
	/** Ordered by position in the file. */
	diagnostics: Diagnostic[];
}

/** Parses and validates SKILL.md text or bytes. Never throws for bad input. */
export function validateSkillMd(source: string | Uint8Array, options: ValidateSkillOptions = {}): SkillValidation {
	return validateParsedSkill(parseSkillMd(source, options), options);
}

/** Validates an already parsed SKILL.md (its frontmatter fields and body) against a profile. */
export function validateParsedSkill(parsed: ParsedSkill, options: ValidateSkillOptions = {}): SkillValidation {
	const profile = options.profile ?? "strict";
	const file = options.file ?? "SKILL.md";
	const diagnostics = [...parsed.diagnostics];
	let properties: SkillProperties | null = null;
	if (parsed.frontmatter) {
		// The options as they are (both default the profile to strict): a spread would cost microseconds per skill.
		const checked = validateFrontmatter(parsed.frontmatter.fields, options);
		if (checked.findings.length > 0) {
			diagnostics.push(...placeFindings(checked.findings, { file, profile, index: parsed.frontmatter.index }));
		}
		properties = checked.properties;
		if (parsed.body === "") {
			const at = { line: parsed.bodyLine ?? 1, column: 1 };
			const empty = { code: "body.empty", message: "SKILL.md has no body after the frontmatter", at } as const;
			diagnostics.push(...placeFindings([empty], { file, profile }));
		}
	}
	sortByPosition(diagnostics);
	return {
		valid: !hasErrors(diagnostics),
		profile,
		properties,
		frontmatter: parsed.frontmatter,
		body: parsed.body,
		diagnostics,
	};
}

/** Stable sort: diagnostics without a line first (they concern the whole file), then by line and column. */
export function sortByPosition(diagnostics: Diagnostic<string>[]): void {
	// Nearly every skill has at most one diagnostic: `Array#sort` would still copy the array and make a closure.
	if (diagnostics.length > 1)
		diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
