/** One skill as the catalog shows it. */
export interface CatalogEntry {
	name: string;
	description: string;
	/** Absolute path of SKILL.md; shown when the format includes locations. */
	location: string;
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
	/** The whole catalog from entry texts and the count of skills left out. */
	assemble(entryTexts: readonly string[], omitted: number): string;
	/** A piece of description as the format writes it (escaped), so its cost is measured as written. */
	escape(text: string): string;
}

/**
 * Renders entries as a catalog. `xml` is byte-identical to the reference `skills-ref to-prompt` output for the
 * same entries (each tag and value on its own line, HTML-escaped name and description, raw location);
 * `markdown` is `- name: description` lines; `json` is `{ "skills": [...] }`.
 */
export function renderCatalog(entries: readonly CatalogEntry[], options: RenderOptions = {}, omitted = 0): string {
	const parts = formatParts(options);
	return parts.assemble(entries.map(parts.entry), omitted);
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
			const lines = ["<skill>", "<name>", escapeXml(e.name), "</name>", "<description>", escapeXml(e.description)];
			lines.push("</description>");
			if (location) lines.push("<location>", e.location, "</location>");
			lines.push("</skill>");
			return lines.join("\n");
		},
		assemble: (texts, omitted) => {
			const block = ["<available_skills>", ...texts, "</available_skills>"].join("\n");
			return omitted > 0 ? `${block}\n${moreLine(omitted)}` : block;
		},
		escape: escapeXml,
	};
}

function markdownParts(location: boolean): FormatParts {
	return {
		entry: (e) => {
			const text = e.description ? `- ${e.name}: ${e.description}` : `- ${e.name}`;
			return location ? `${text} (file: ${e.location})` : text;
		},
		assemble: (texts, omitted) => [...texts, ...(omitted > 0 ? [`- ${moreLine(omitted)}`] : [])].join("\n"),
		escape: (text) => text,
	};
}

function jsonParts(location: boolean): FormatParts {
	return {
		entry: (e) => JSON.stringify(location ? e : { name: e.name, description: e.description }),
		assemble: (texts, omitted) => {
			const skills = texts.length > 0 ? `[\n${texts.join(",\n")}\n]` : "[]";
			const more = omitted > 0 ? `,\n"omitted": ${omitted},\n"note": ${JSON.stringify(moreLine(omitted))}` : "";
			return `{"skills": ${skills}${more}}`;
		},
		escape: (text) => JSON.stringify(text).slice(1, -1),
	};
}

/** The line that says the budget left skills out, and how to find them. */
function moreLine(omitted: number): string {
	return `${omitted} more skill${omitted === 1 ? " is" : "s are"} not listed: use search_skills to find them.`;
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
