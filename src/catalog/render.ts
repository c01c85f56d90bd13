import { foldField, foldPath, listText, neutralizeTags } from "./safe-text.ts";

/** One skill as the catalog shows it. */
export interface CatalogEntry {
	name: string;
	description: string;
	/** Absolute path of SKILL.md; shown when the format includes locations. */
	location: string;
	/** Precedence of the skill's root, 0 the highest: the budget drops the highest ranks first. Default 0. */
	rank?: number;
	/** Extra text that says when to use the skill (WorkBuddy `read_when`), searched by `query`, never shown. */
	triggers?: string;
}

/** The catalog formats. */
export type CatalogFormat = "xml" | "markdown" | "json";

/** Every catalog format. */
export const CATALOG_FORMATS: readonly CatalogFormat[] = ["xml", "markdown", "json"];

/** How entries are written: `markdown` by default; `location` defaults to true for xml and json, false for markdown. */
export interface RenderOptions {
	format?: CatalogFormat;
	location?: boolean;
}

/** A format split into the pieces the budget fitter measures separately. */
export interface FormatParts {
	/** The text of one entry. */
	entry(entry: CatalogEntry): string;
	/** One name as the names line writes it: plain, or quoted as a JSON string when it is not a plain name. */
	name(name: string): string;
	/**
	 * The whole catalog from entry texts, the names (as {@link FormatParts.name} writes them) of skills listed by
	 * name only, and the count of skills left out.
	 */
	assemble(entryTexts: readonly string[], names: readonly string[], omitted: number): string;
	/** The shortest text for a catalog that lists none of its `omitted` skills (for budgets too small for more). */
	brief(omitted: number): string;
	/** A piece of description as the format writes it (escaped), so its cost is measured as written. */
	escape(text: string): string;
}

/** Skills a catalog lists without a description: by name only, or not at all (only counted). */
export interface CatalogRest {
	/** Names listed on one line after the entries, to load by name or find with search_skills. */
	named?: readonly string[];
	/** How many skills the catalog does not list at all. */
	omitted?: number;
}

/**
 * Renders entries as a catalog. `xml` is byte-identical to the reference `skills-ref to-prompt` output for the
 * same entries (each tag and value on its own line, HTML-escaped name and description); `markdown` is
 * `- name: description` lines; `json` is `{ "skills": [...] }`. Skills in `rest.named` follow on one line of names
 * ("Also available — load by name or search_skills: …"), and `rest.omitted` gets a last line with the count. No
 * field can change the structure in any format: names and descriptions are folded to one line without invisible
 * characters, a name that is not plain is quoted in the names line, paths keep to one line, and markup is escaped
 * (the xml `location` too, unlike the reference, which writes it raw).
 */
export function renderCatalog(
	entries: readonly CatalogEntry[],
	options: RenderOptions = {},
	rest: CatalogRest = {},
): string {
	const parts = formatParts(options);
	return parts.assemble(entries.map(parts.entry), (rest.named ?? []).map(parts.name), rest.omitted ?? 0);
}

/** The pieces of a format, for measuring entries one by one. */
export function formatParts(options: RenderOptions = {}): FormatParts {
	const format = options.format ?? "markdown";
	const location = options.location ?? format !== "markdown";
	if (format === "markdown") return markdownParts(location);
	if (format === "json") return jsonParts(location);
	return xmlParts(location);
}

function xmlParts(location: boolean): FormatParts {
	return {
		entry: (e) => {
			const lines = ["<skill>", "<name>", xmlField(e.name), "</name>", "<description>", xmlField(e.description)];
			lines.push("</description>");
			if (location) lines.push("<location>", escapeXml(foldPath(e.location)), "</location>");
			lines.push("</skill>");
			return lines.join("\n");
		},
		name: nameText,
		assemble: (texts, names, omitted) => {
			const block = ["<available_skills>", ...texts, "</available_skills>"].join("\n");
			const rest = [
				...(names.length > 0 ? [namesLine(names, texts.length)] : []),
				...(omitted > 0 ? [moreLine(omitted)] : []),
			];
			return [block, ...rest].join("\n");
		},
		escape: xmlField,
		brief: briefLine,
	};
}

function markdownParts(location: boolean): FormatParts {
	return {
		entry: (e) => {
			const description = listText(e.description);
			const text = description ? `- ${listText(e.name)}: ${description}` : `- ${listText(e.name)}`;
			return location ? `${text} (file: ${neutralizeTags(foldPath(e.location))})` : text;
		},
		name: nameText,
		assemble: (texts, names, omitted) => {
			const rest = [
				...(names.length > 0 ? [namesLine(names, texts.length)] : []),
				...(omitted > 0 ? [moreLine(omitted)] : []),
			];
			return [...texts, ...rest.map((line) => `- ${line}`)].join("\n");
		},
		escape: listText,
		brief: (omitted) => `- ${briefLine(omitted)}`,
	};
}

function jsonParts(location: boolean): FormatParts {
	return {
		entry: (e) => {
			const fields = { name: foldField(e.name), description: foldField(e.description) };
			return jsonText(location ? { ...fields, location: foldPath(e.location) } : fields);
		},
		name: (name) => jsonText(foldField(name)),
		assemble: (texts, names, omitted) => {
			const skills = texts.length > 0 ? `[\n${texts.join(",\n")}\n]` : "[]";
			const also = names.length > 0 ? `,\n"also_available": [${names.join(", ")}]` : "";
			const count = omitted > 0 ? `,\n"omitted": ${omitted}` : "";
			const notes = [
				...(names.length > 0 ? [`also_available: ${ALSO_HOW}.`] : []),
				...(omitted > 0 ? [moreLine(omitted)] : []),
			];
			const note = notes.length > 0 ? `,\n"note": ${jsonText(notes.join(" "))}` : "";
			return `{"skills": ${skills}${also}${count}${note}}`;
		},
		escape: (text) => jsonText(foldField(text)).slice(1, -1),
		brief: (omitted) => `{"skills": [], "omitted": ${omitted}}`,
	};
}

/** How to use a skill listed by name only. */
const ALSO_HOW = "load by name or search_skills";

/** A name that needs no quotes in a names line: letters, digits and `.`, `_`, `@`, `:`, `+`, `-` (no spaces or commas). */
const PLAIN_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._@:+-]*$/u;

/** A name in a names line: as it is when plain, else a JSON string (no tag, comma or line break can get out). */
function nameText(name: string): string {
	const folded = foldField(name);
	return PLAIN_NAME.test(folded) ? folded : jsonText(folded);
}

/** The line of skills listed by name only, after `described` entries. */
function namesLine(names: readonly string[], described: number): string {
	return `${described > 0 ? "Also available" : "Available"} — ${ALSO_HOW}: ${names.join(", ")}`;
}

/** The line that says the budget left skills out, and how to find them. */
function moreLine(omitted: number): string {
	return `${omitted} more skill${omitted === 1 ? " is" : "s are"} not listed: use search_skills to find them.`;
}

/** The "more" line at its shortest. */
function briefLine(omitted: number): string {
	return `${omitted} skill${omitted === 1 ? "" : "s"}: use search_skills`;
}

/** A name or description in xml: one line, escaped. */
function xmlField(text: string): string {
	return escapeXml(foldField(text));
}

/** JSON with `<`, `>` and `&` as `\u` escapes: the same value, but no text in it can look like a tag. */
function jsonText(value: unknown): string {
	return JSON.stringify(value).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/** Python's `html.escape(text, quote=True)`, which the reference uses: & < > " and '. */
export function escapeXml(text: string): string {
	return text
		.replaceAll("&", "&amp;")
		.replaceAll("<", "&lt;")
		.replaceAll(">", "&gt;")
		.replaceAll('"', "&quot;")
		.replaceAll("'", "&#x27;");
}
