import { stripInvisible } from "../skill/index.ts";

// Text from a skill (a name, a description, a path) goes into prompts next to structure: list entries, XML
// elements, `<skill_content>` blocks. These helpers make sure such text can only ever be text.

/** Whitespace and control characters of any kind, in runs: line breaks, tabs, NEL, U+2028/2029, NBSP and the rest. */
const BREAKS = /[\s\p{Cc}]+/gu;
/** Whitespace other than single spaces inside the text, or a control character: what {@link foldField} changes. */
const NEEDS_FOLDING = /[^\S ]| {2}|^ | $|\p{Cc}/u;
/** A character that ends a line or is a control character (in a path these are kept, but never raw). */
const CONTROL = /[\p{Cc}\u2028\u2029]/gu;
/** `<` that could open a tag: before a letter, `/`, `!` or `?`, allowing spaces and invisible characters between. */
const TAG_OPEN = /<(?=[\s\p{Cf}]*[\p{L}/!?])/gu;

/**
 * A field as one line of plain text: invisible characters removed, every run of whitespace, line breaks and
 * control characters folded into one space, ends trimmed. Idempotent; text that needs none of it is returned as is.
 */
export function foldField(text: string): string {
	const visible = stripInvisible(text);
	return NEEDS_FOLDING.test(visible) ? visible.replace(BREAKS, " ").trim() : visible;
}

/**
 * A path as one line: line breaks, control characters and invisible characters become U+FFFD, so the path can
 * never start a new line or hide part of itself; ordinary paths are unchanged.
 */
export function foldPath(path: string): string {
	return stripInvisible(path) === path ? path.replace(CONTROL, "\uFFFD") : foldPath(markInvisible(path));
}

function markInvisible(path: string): string {
	let out = "";
	for (const char of path) out += stripInvisible(char) === "" ? "\uFFFD" : char;
	return out;
}

/**
 * Plain text for a Markdown list or a tool result: every `<` that could open a tag becomes `&lt;`, so no field
 * can open or close an element (`<skill_content>`, `</available_skills>`) a host or model looks for.
 */
export function neutralizeTags(text: string): string {
	return text.replace(TAG_OPEN, "&lt;");
}

/** {@link foldField} then {@link neutralizeTags}: a field as one safe line of a list. */
export function listText(text: string): string {
	return neutralizeTags(foldField(text));
}
