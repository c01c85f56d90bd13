import type { FrontmatterValue } from "./parsed-yaml.ts";

/** The six fields of the Agent Skills spec. */
export const SPEC_FIELDS: readonly string[] = [
	"name",
	"description",
	"license",
	"compatibility",
	"metadata",
	"allowed-tools",
];

/** The shapes an extension field may have. */
export type FieldType = "string" | "boolean" | "string-list" | "mapping";

/** Named sets of extension fields, allowed in strict validation with `allowFields`/`--allow-fields`. */
export type ExtensionSet = "claude-code" | "workbuddy";

/** Every extension set, by name, with the type of each field. */
export const EXTENSION_FIELDS: Readonly<Record<ExtensionSet, Readonly<Record<string, FieldType>>>> = {
	// Claude Code's skill and command frontmatter (see shared/research/codex-claude-goose.md).
	"claude-code": {
		when_to_use: "string",
		"argument-hint": "string",
		arguments: "string-list",
		"disable-model-invocation": "boolean",
		"user-invocable": "boolean",
		"disallowed-tools": "string-list",
		model: "string",
		effort: "string",
		context: "string",
		agent: "string",
		background: "boolean",
		hooks: "mapping",
		paths: "string-list",
		shell: "string",
	},
	// The WorkBuddy style: display title and summary, triggers, provenance, a permission block, dependencies.
	workbuddy: {
		title: "string",
		summary: "string",
		read_when: "string-list",
		agent_created: "boolean",
		permissions: "mapping",
		depends_on: "string-list",
	},
};

/** All extension sets' names. */
export const EXTENSION_SETS: readonly ExtensionSet[] = Object.keys(EXTENSION_FIELDS) as ExtensionSet[];

/** The type an extension field must have, looked up across all sets. */
export function extensionFieldType(key: string): FieldType | undefined {
	for (const set of EXTENSION_SETS) {
		const type = EXTENSION_FIELDS[set][key];
		if (type) return type;
	}
	return undefined;
}

const TRUE_WORDS: ReadonlySet<string> = new Set(["true", "yes", "on", "1"]);
const FALSE_WORDS: ReadonlySet<string> = new Set(["false", "no", "off", "0"]);

/**
 * Reads a value as the given type, or returns undefined when it does not have that shape. A `string-list`
 * accepts a list of scalars or one string; `lenientBooleans` also accepts yes/no/on/off/1/0 as Claude Code does.
 */
export function coerceField(
	value: FrontmatterValue,
	type: FieldType,
	lenientBooleans: boolean,
): string | boolean | string[] | FrontmatterValue | undefined {
	switch (type) {
		case "string":
			return isScalar(value) && value !== null ? String(value) : undefined;
		case "boolean":
			if (typeof value === "boolean") return value;
			if (lenientBooleans && (typeof value === "string" || typeof value === "number")) {
				const word = String(value).trim().toLowerCase();
				if (TRUE_WORDS.has(word)) return true;
				if (FALSE_WORDS.has(word)) return false;
			}
			return undefined;
		case "string-list":
			if (typeof value === "string") return [value];
			if (Array.isArray(value) && value.every((item) => isScalar(item) && item !== null)) return value.map(String);
			return undefined;
		case "mapping":
			return isMapping(value) ? value : undefined;
	}
}

/** True for strings, numbers, booleans and null. */
export function isScalar(value: FrontmatterValue): value is string | number | boolean | null {
	return value === null || typeof value !== "object";
}

/** True for frontmatter mappings (not lists). */
function isMapping(value: FrontmatterValue): value is { [key: string]: FrontmatterValue } {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Splits an `allowed-tools` string into tool patterns: on whitespace and commas, but not inside parentheses, so
 * `Bash(git commit:*) Read` is two entries.
 */
export function splitToolList(text: string): string[] {
	// Index by index with slices: a string built one character at a time costs an object per character.
	const tools: string[] = [];
	let depth = 0;
	let start = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code === OPEN) depth++;
		else if (code === CLOSE) depth = Math.max(0, depth - 1);
		if (depth === 0 && (code === COMMA || isSpace(code))) {
			if (i > start) tools.push(text.slice(start, i));
			start = i + 1;
		}
	}
	if (text.length > start) tools.push(text.slice(start));
	return tools;
}

const OPEN = 0x28;
const CLOSE = 0x29;
const COMMA = 0x2c;
// JavaScript's `\s` outside ASCII (no surrogate is one, so a pair is never split).
const WIDE_SPACE = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** `/\s/` for one UTF-16 unit. */
function isSpace(code: number): boolean {
	if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
	return code >= 0xa0 && WIDE_SPACE.test(String.fromCharCode(code));
}
