// The `skill/` stage: the SKILL.md document model, hardened parsing and the validation profiles.
// Anything exported here is public API of the stage; later stages import only from this file.

export type { CodeInfo, Profile, Severity, SkillCode } from "./codes.ts";
export { ALL_SKILL_CODES, SKILL_CODES } from "./codes.ts";
export type { Diagnostic, Finding, PlaceOptions, Position } from "./diagnostics.ts";
export { codePointLength, hasErrors, LineIndex, placeFindings, severityOf } from "./diagnostics.ts";
export type { SkillsetErrorCode } from "./errors.ts";
export { SkillsetError } from "./errors.ts";
export { DEFAULT_MAX_FRONTMATTER_BYTES } from "./fences.ts";
export type { ExtensionSet, FieldType } from "./fields.ts";
export { EXTENSION_FIELDS, EXTENSION_SETS, SPEC_FIELDS, splitToolList } from "./fields.ts";
export { describeInvisibleChars, hasInvisibleChars, stripInvisible } from "./invisible.ts";
export type { NameProblem } from "./names.ts";
export { checkSkillName, isValidSkillName, MAX_NAME_CODE_POINTS, normalizeSkillName } from "./names.ts";
export type { ParsedFrontmatterPrefix, ParsedSkill, ParseSkillOptions, SkillFrontmatter } from "./parse-skill.ts";
export { DEFAULT_MAX_FILE_BYTES, parseSkillFrontmatter, parseSkillMd } from "./parse-skill.ts";
export type { FrontmatterField, FrontmatterMap, FrontmatterValue, ParsedYaml } from "./parsed-yaml.ts";
export type { PermissionManifest } from "./permissions.ts";
export { emptyManifest, parsePermissions } from "./permissions.ts";
export type { SkillProperties } from "./properties.ts";
export type { SkillPathValidation } from "./read.ts";
export {
	pickSkillFileName,
	readSkillBody,
	readSkillBodySync,
	readSkillFrontmatter,
	readSkillFrontmatterSync,
	readSkillMd,
	readSkillMdSync,
	SKILL_FILE_NAME,
	validateSkillPath,
} from "./read.ts";
export type { FileSignature, ReadBody, ReadSkill, ReadSkillOptions } from "./read-tasks.ts";
export type { FrontmatterValidation, ValidateOptions } from "./validate.ts";
export { MAX_DESCRIPTION_CODE_POINTS, validateFrontmatter } from "./validate.ts";
export { MAX_COMPATIBILITY_CODE_POINTS } from "./validate-fields.ts";
export type { SkillValidation, ValidateSkillOptions } from "./validate-skill.ts";
export { sortByPosition, validateParsedSkill, validateSkillMd } from "./validate-skill.ts";
export type { ParseYamlOptions } from "./yaml.ts";
export { parseFrontmatterYaml } from "./yaml.ts";
export { MAX_YAML_DEPTH, MAX_YAML_KEYS } from "./yaml-limits.ts";
