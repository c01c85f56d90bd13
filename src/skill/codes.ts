/**
 * Every diagnostic code of the `skill/` stage, with its severity under each validation profile, a one-line
 * description and a default hint. The README table is generated from this table (`npm run docs`), and a test
 * keeps the two in step. This file holds only the table and its types, so it may pass 400 lines (the layering test
 * names it); what reads the table (`severityOf`, placing findings) lives in `diagnostics.ts`.
 */

/** How serious a diagnostic is. Only `error` makes a skill invalid. */
export type Severity = "error" | "warning" | "info";

/** `strict` is the spec as the reference validator reads it; `lenient` is the client guide's "warn and load". */
export type Profile = "strict" | "lenient";

/** The closed set of diagnostic codes of the `skill/` stage. */
export type SkillCode =
	| "path.not-found"
	| "path.not-directory"
	| "path.no-skills"
	| "file.missing"
	| "file.unreadable"
	| "file.empty"
	| "file.too-large"
	| "file.binary"
	| "entry.case"
	| "encoding.invalid-utf8"
	| "encoding.bom"
	| "encoding.crlf"
	| "frontmatter.missing"
	| "frontmatter.leading-blank"
	| "frontmatter.unclosed"
	| "frontmatter.too-large"
	| "frontmatter.not-mapping"
	| "yaml.invalid"
	| "yaml.too-deep"
	| "yaml.too-many-keys"
	| "yaml.duplicate-key"
	| "yaml.alias"
	| "yaml.tag"
	| "yaml.directive"
	| "yaml.multiple-documents"
	| "yaml.forbidden-key"
	| "yaml.flow-style"
	| "yaml.repaired"
	| "name.missing"
	| "name.not-string"
	| "name.empty"
	| "name.too-long"
	| "name.uppercase"
	| "name.hyphen-edge"
	| "name.consecutive-hyphens"
	| "name.invalid-chars"
	| "name.unsafe-chars"
	| "name.dir-mismatch"
	| "name.non-ascii"
	| "name.fallback"
	| "description.missing"
	| "description.not-string"
	| "description.empty"
	| "description.too-long"
	| "compatibility.not-string"
	| "compatibility.empty"
	| "compatibility.too-long"
	| "license.not-string"
	| "metadata.not-string-map"
	| "allowed-tools.list"
	| "allowed-tools.invalid"
	| "permissions.invalid"
	| "permissions.path"
	| "field.unknown"
	| "field.type"
	| "field.mapped"
	| "field.invisible-chars"
	| "body.empty";

/** What the table knows about one code. */
export interface CodeInfo {
	/** Severity when validating with the `strict` profile; `null` when that profile never reports it. */
	readonly strict: Severity | null;
	/** Severity when validating with the `lenient` profile (discovery); `null` when it never reports it. */
	readonly lenient: Severity | null;
	/** One line: what the code means. */
	readonly description: string;
	/** How to fix it. */
	readonly hint: string;
}

const e = "error";
const w = "warning";
const i = "info";

/** The one table of all `skill/` diagnostic codes. */
export const SKILL_CODES: Readonly<Record<SkillCode, CodeInfo>> = {
	"path.not-found": {
		strict: e,
		lenient: e,
		description: "The path does not exist.",
		hint: "Check the path; pass a skill directory or its SKILL.md.",
	},
	"path.not-directory": {
		strict: e,
		lenient: e,
		description: "The path is a file that is not a SKILL.md.",
		hint: "Pass the skill's directory, or the SKILL.md file inside it.",
	},
	"path.no-skills": {
		strict: e,
		lenient: e,
		description: "No skill was found under a folder the user named.",
		hint: "Check the path. A collection may keep its skills in hidden folders such as skills/.curated: --include-hidden scans them.",
	},
	"file.missing": {
		strict: e,
		lenient: e,
		description: "The directory has no SKILL.md.",
		hint: "Create SKILL.md with `name` and `description` frontmatter (or run `skillset new`).",
	},
	"file.unreadable": {
		strict: e,
		lenient: e,
		description: "SKILL.md could not be read (permissions, I/O error, or not a regular file).",
		hint: "Check the file's permissions and that it is a regular file.",
	},
	"file.empty": {
		strict: e,
		lenient: e,
		description: "SKILL.md is empty.",
		hint: "Start the file with a `---` frontmatter block holding `name` and `description`.",
	},
	"file.too-large": {
		strict: e,
		lenient: e,
		description: "SKILL.md is larger than the size cap (256 KiB by default).",
		hint: "Move long material into references/ files and link to them from SKILL.md.",
	},
	"file.binary": {
		strict: e,
		lenient: e,
		description: "SKILL.md contains NUL bytes: it is not a text file.",
		hint: "SKILL.md must be UTF-8 Markdown text; keep binary files in assets/.",
	},
	"entry.case": {
		strict: w,
		lenient: w,
		description: "The skill file is not spelled exactly `SKILL.md`.",
		hint: "Rename the file to `SKILL.md`: other spellings are missed by case-sensitive clients.",
	},
	"encoding.invalid-utf8": {
		strict: e,
		lenient: w,
		description: "SKILL.md is not valid UTF-8; invalid bytes were replaced with U+FFFD.",
		hint: "Re-save the file as UTF-8.",
	},
	"encoding.bom": {
		strict: w,
		lenient: i,
		description: "SKILL.md starts with a UTF-8 byte order mark; it was ignored.",
		hint: "Save without a BOM: some clients (and the reference validator) reject it.",
	},
	"encoding.crlf": {
		strict: i,
		lenient: i,
		description: "SKILL.md uses CRLF line endings; they were read as LF.",
		hint: "Nothing to do; LF endings are the most portable.",
	},
	"frontmatter.missing": {
		strict: e,
		lenient: e,
		description: "SKILL.md does not start with a `---` frontmatter line.",
		hint: "Make the first line `---`, then `name:` and `description:`, then a closing `---` line.",
	},
	"frontmatter.leading-blank": {
		strict: e,
		lenient: w,
		description: "Blank lines come before the opening `---`.",
		hint: "Delete the blank lines so that `---` is the very first line.",
	},
	"frontmatter.unclosed": {
		strict: e,
		lenient: e,
		description: "The frontmatter has no closing `---` line.",
		hint: "Add a line containing only `---` after the last frontmatter field.",
	},
	"frontmatter.too-large": {
		strict: e,
		lenient: e,
		description: "The frontmatter is larger than the cap (64 KiB by default).",
		hint: "Keep the frontmatter to metadata; put instructions in the body.",
	},
	"frontmatter.not-mapping": {
		strict: e,
		lenient: e,
		description: "The frontmatter is not a YAML mapping of fields.",
		hint: "Write the frontmatter as `key: value` lines, e.g. `name: my-skill`.",
	},
	"yaml.invalid": {
		strict: e,
		lenient: e,
		description: "The frontmatter is not valid YAML.",
		hint: "Quote values that contain `: `, `#`, or start with a special character.",
	},
	"yaml.too-deep": {
		strict: e,
		lenient: e,
		description: "The frontmatter nests deeper than 32 levels.",
		hint: "Flatten the structure; frontmatter needs at most a few levels.",
	},
	"yaml.too-many-keys": {
		strict: e,
		lenient: e,
		description: "The frontmatter has more than 1,000 keys.",
		hint: "Keep the frontmatter to a few fields.",
	},
	"yaml.duplicate-key": {
		strict: e,
		lenient: e,
		description: "A key appears twice in one mapping; readers disagree on which wins.",
		hint: "Delete one of the two entries.",
	},
	"yaml.alias": {
		strict: e,
		lenient: e,
		description: "The frontmatter uses YAML anchors or aliases (`&a`, `*a`), which are disabled.",
		hint: "Write the value out in full.",
	},
	"yaml.tag": {
		strict: e,
		lenient: e,
		description: "The frontmatter uses an explicit YAML tag such as `!!str` or `!custom`.",
		hint: "Remove the tag; quote the value if it must be a string.",
	},
	"yaml.directive": {
		strict: e,
		lenient: e,
		description: "The frontmatter contains a YAML directive (`%YAML`, `%TAG`), which could switch the schema.",
		hint: "Delete the directive line.",
	},
	"yaml.multiple-documents": {
		strict: e,
		lenient: e,
		description: "The frontmatter holds more than one YAML document.",
		hint: "Remove the `...` or `--- ` document markers inside the frontmatter.",
	},
	"yaml.forbidden-key": {
		strict: e,
		lenient: e,
		description: "A key is `__proto__`, `constructor` or `prototype`, which are rejected for safety.",
		hint: "Rename the key.",
	},
	"yaml.flow-style": {
		strict: e,
		lenient: null,
		description: "A flow collection (`[a, b]` or `{a: b}`) is used; the reference validator rejects them.",
		hint: "Write lists as `- item` lines and mappings as `key: value` lines, or quote the text.",
	},
	"yaml.repaired": {
		strict: null,
		lenient: w,
		description: "A value containing `: ` was not valid YAML; it was quoted and parsed again.",
		hint: 'Quote the value: `description: "Use when: ..."`.',
	},
	"name.missing": {
		strict: e,
		lenient: w,
		description: "The `name` field is missing.",
		hint: "Add `name:` with the skill's directory name.",
	},
	"name.not-string": {
		strict: e,
		lenient: w,
		description: "The `name` field is a list or mapping, not a string.",
		hint: "Write the name as plain text: `name: my-skill`.",
	},
	"name.empty": {
		strict: e,
		lenient: w,
		description: "The `name` field is empty.",
		hint: "Set `name:` to the skill's directory name.",
	},
	"name.too-long": {
		strict: e,
		lenient: w,
		description: "The name is longer than 64 characters.",
		hint: "Shorten the name (and the directory) to at most 64 characters.",
	},
	"name.uppercase": {
		strict: e,
		lenient: w,
		description: "The name has uppercase letters.",
		hint: "Use lowercase letters, digits and hyphens, e.g. `pdf-processing`.",
	},
	"name.hyphen-edge": {
		strict: e,
		lenient: w,
		description: "The name starts or ends with a hyphen.",
		hint: "Remove the leading or trailing hyphen.",
	},
	"name.consecutive-hyphens": {
		strict: e,
		lenient: w,
		description: "The name contains `--`.",
		hint: "Use single hyphens between words.",
	},
	"name.invalid-chars": {
		strict: e,
		lenient: w,
		description: "The name has characters other than letters, digits and hyphens.",
		hint: "Replace spaces, underscores and punctuation with hyphens.",
	},
	"name.unsafe-chars": {
		strict: e,
		lenient: w,
		description: "The name contains a path separator, NUL or a control character.",
		hint: "Names are used as identifiers and paths: use letters, digits and hyphens only.",
	},
	"name.dir-mismatch": {
		strict: e,
		lenient: w,
		description: "The name differs from the skill's directory name.",
		hint: "Rename the directory or change `name:` so that they match.",
	},
	"name.non-ascii": {
		strict: i,
		lenient: i,
		description: "The name uses letters outside a-z; valid, but the spec's examples list only a-z and 0-9.",
		hint: "Prefer an ASCII name if the skill must work in every client.",
	},
	"name.fallback": {
		strict: null,
		lenient: w,
		description: "The declared name is unusable, so the directory name is the skill's id.",
		hint: "Fix `name:` so that it is a valid name equal to the directory name.",
	},
	"description.missing": {
		strict: e,
		lenient: e,
		description: "The `description` field is missing; a skill without one is never shown to the model.",
		hint: "Add `description:` saying what the skill does and when to use it.",
	},
	"description.not-string": {
		strict: e,
		lenient: e,
		description: "The `description` field is a list or mapping, not a string.",
		hint: "Write the description as text; use `description: >-` for several lines.",
	},
	"description.empty": {
		strict: e,
		lenient: e,
		description: "The `description` field is empty.",
		hint: "Say what the skill does and when to use it.",
	},
	"description.too-long": {
		strict: e,
		lenient: w,
		description: "The description is longer than 1,024 characters.",
		hint: "Shorten it; move detail into the body.",
	},
	"compatibility.not-string": {
		strict: e,
		lenient: w,
		description: "The `compatibility` field is a list or mapping, not a string.",
		hint: "Write requirements as one sentence, e.g. `Requires git and network access`.",
	},
	"compatibility.empty": {
		strict: w,
		lenient: i,
		description: "The `compatibility` field is empty; the spec asks for 1-500 characters when present.",
		hint: "Remove the field or state the requirements.",
	},
	"compatibility.too-long": {
		strict: e,
		lenient: w,
		description: "The compatibility text is longer than 500 characters.",
		hint: "Shorten it to the essential requirements.",
	},
	"license.not-string": {
		strict: w,
		lenient: i,
		description: "The `license` field is not a string.",
		hint: "Name the licence, e.g. `license: Apache-2.0`.",
	},
	"metadata.not-string-map": {
		strict: w,
		lenient: i,
		description: "`metadata` should map string keys to string values.",
		hint: 'Quote values (`version: "1.0"`) and avoid nested lists or maps.',
	},
	"allowed-tools.list": {
		strict: w,
		lenient: i,
		description: "`allowed-tools` is a YAML list; the spec says a space-separated string.",
		hint: "Write `allowed-tools: Read Bash(git:*)`.",
	},
	"allowed-tools.invalid": {
		strict: e,
		lenient: w,
		description: "`allowed-tools` is neither a string nor a list of strings.",
		hint: "Write `allowed-tools: Read Bash(git:*)`.",
	},
	"permissions.invalid": {
		strict: e,
		lenient: w,
		description: "The `permissions` block has an unknown key or a wrong type; the skill gets the empty manifest.",
		hint: "Use only tools (list), network (true, false or hosts) and paths.read / paths.write (lists).",
	},
	"permissions.path": {
		strict: e,
		lenient: w,
		description: "A permission path is absolute or uses `..`; the skill gets the empty manifest.",
		hint: "Write paths relative to the workspace, without `..`.",
	},
	"field.unknown": {
		strict: e,
		lenient: i,
		description: "A frontmatter field outside the spec and the allowed extensions.",
		hint: "Remove it, move it under `metadata:`, or allow it (`--allow-field NAME`).",
	},
	"field.type": {
		strict: e,
		lenient: w,
		description: "An extension field has the wrong type; it is ignored.",
		hint: "See the field's expected type in the message.",
	},
	"field.mapped": {
		strict: null,
		lenient: i,
		description: "A WorkBuddy field stands in for a missing spec field (`title` for name, `summary` for description).",
		hint: "Add the spec field too, so that every client reads the skill.",
	},
	"field.invisible-chars": {
		strict: w,
		lenient: w,
		description:
			"`name`, `description`, `title` or `summary` holds invisible characters (Unicode tags, bidi controls, zero-width); catalogs remove them.",
		hint: "Delete the invisible characters: a model reads text a person reviewing the skill cannot see.",
	},
	"body.empty": {
		strict: w,
		lenient: w,
		description: "SKILL.md has no instructions after the frontmatter.",
		hint: "Write the steps the agent should follow when the skill is active.",
	},
};

/** Every code, in table order. */
export const ALL_SKILL_CODES: readonly SkillCode[] = Object.keys(SKILL_CODES) as SkillCode[];
