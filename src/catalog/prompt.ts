import type { SkillIndex } from "../discovery/index.ts";
import { codePointLength, SkillsetError } from "../skill/index.ts";
import {
	buildCatalog,
	CATALOG_CODEC,
	type Catalog,
	type CatalogOptions,
	catalogEntries,
	isCatalog,
	resolveBudget,
} from "./catalog.ts";
import { type EntryCodec, isRecord, memoized } from "./catalog-cache.ts";
import { loadDefaultTokenizer } from "./default-tokenizer.ts";
import { validateCatalogOptions } from "./options.ts";
import { type CatalogEntry, type CatalogFormat, formatParts } from "./render.ts";

/** How the model activates a skill: through a load tool, or by reading SKILL.md with its file tool. */
export type ActivationMode = "tool" | "file-read";

/** Options for {@link systemPromptSection}. */
export interface PromptSectionOptions {
	activation?: ActivationMode;
	/** The load tool's name, for tool activation. Default `load_skill`. */
	toolName?: string;
	/**
	 * The usage instruction in place of the built-in one (e.g. an MCP server without tools, whose clients read a
	 * skill's SKILL.md resource). `activation` is then not checked against the catalog.
	 */
	instruction?: string;
}

/**
 * The catalog with the short usage instruction that goes beside it in a system prompt (the client guide's advice,
 * in two variants). Empty when the catalog is: no skills, no section.
 */
export function systemPromptSection(catalog: Catalog, options: PromptSectionOptions = {}): string {
	if (catalog.text === "") return "";
	const activation = options.activation ?? "tool";
	if (options.instruction !== undefined) return section(options.instruction, catalog);
	if (activation === "file-read" && !listsLocations(catalog)) {
		throw new SkillsetError("invalid-option", "file-read activation needs a catalog that includes locations");
	}
	const instruction =
		activation === "tool"
			? `When a task matches a skill's description, call the ${options.toolName ?? "load_skill"} tool with the skill's name before you start, then follow the instructions it returns. Load a skill only when the task needs it, and do not load one that is already loaded.`
			: "When a task matches a skill's description, read the SKILL.md at its location before you start, then follow it. Resolve relative paths in a skill against the folder that holds its SKILL.md, and use absolute paths in tool calls.";
	return section(instruction, catalog);
}

function section(instruction: string, catalog: Catalog): string {
	return `## Skills\n\nSkills are folders of instructions and resources for particular tasks. ${instruction}\n\n${catalog.text}\n`;
}

/** Options for {@link buildSkillsSection}: the catalog's and the section's. */
export interface SkillsSectionOptions extends CatalogOptions, PromptSectionOptions {}

/** A system-prompt section and the catalog in it. */
export interface SkillsSection {
	/** The section: heading, usage instruction and catalog; empty when there are no skills. */
	text: string;
	/**
	 * The catalog in the section. Give it to `createSkillTools(session, { catalog })`, so `load_skill`'s enum lists
	 * the skills it describes; `catalog.report` says which are listed by name only and which are left out.
	 */
	catalog: Catalog;
}

/** How many times the catalog is fitted again when the section around it does not fit. */
const SECTION_ATTEMPTS = 4;

/**
 * The system-prompt section fitted as a whole: the budget covers the heading and the usage instruction too, so the
 * catalog is fitted into what they leave (measured on the real text, tightened until the whole section fits).
 * Hosts such as the MCP server's instructions and the agent call this once per index and hand the same `catalog`
 * to the skill tools. Throws `invalid-option` when the budget cannot hold even the instruction.
 */
export async function buildSkillsSection(
	source: SkillIndex | readonly CatalogEntry[],
	options: SkillsSectionOptions = {},
): Promise<SkillsSection> {
	validateCatalogOptions(options as Record<string, unknown>);
	const index = Array.isArray(source) ? undefined : (source as SkillIndex);
	const entries = index ? catalogEntries(index) : (source as readonly CatalogEntry[]);
	const build = () => fitSection(entries, options);
	return memoized("catalog-section", { entries, index }, options, isSection, SECTION_CODEC, build);
}

async function fitSection(entries: readonly CatalogEntry[], options: SkillsSectionOptions): Promise<SkillsSection> {
	const { cacheDir: _unused, ...rest } = options;
	const tokenizer = options.tokenizer ?? (await loadDefaultTokenizer());
	const catalogOptions: CatalogOptions = { ...rest, tokenizer };
	if (options.activation === "file-read" && options.instruction === undefined) catalogOptions.location = true;
	let catalog = await buildCatalog(entries, catalogOptions);
	const budget = resolveBudget(options.budget);
	if (!budget) return { text: systemPromptSection(catalog, options), catalog };
	const measure = (text: string) => (budget.unit === "tokens" ? tokenizer.count(text) : codePointLength(text));
	for (let attempt = 0; attempt < SECTION_ATTEMPTS; attempt++) {
		// Skills that the budget hides entirely (not even the count line fits) would leave no section at all.
		if (catalog.text === "" && catalog.report.skills > 0) break;
		const text = systemPromptSection(catalog, options);
		const over = measure(text) - budget.limit;
		if (over <= 0) return { text, catalog };
		// Refit from what the catalog really takes, not from its limit: a catalog a few units under its limit would
		// otherwise shrink by one unit per attempt and never fit. Each attempt cuts one unit more than the last.
		const limit = Math.min(
			(catalog.report.budget?.limit ?? budget.limit) - over,
			measure(catalog.text) - over - attempt,
		);
		if (limit < 1) break;
		catalog = await buildCatalog(entries, { ...catalogOptions, budget: { [budget.unit]: limit } });
	}
	throw new SkillsetError(
		"invalid-option",
		`the skills section does not fit in the budget of ${budget.limit} ${budget.unit}: raise the budget`,
		{ data: { option: "budget" } },
	);
}

/** True when the catalog's text lists its first entry with its location (as the format writes it, escaped). */
function listsLocations(catalog: Catalog): boolean {
	const first = catalog.entries[0];
	if (!first) return true;
	const format = catalog.report.format as CatalogFormat;
	return catalog.text.includes(formatParts({ format, location: true }).entry(first));
}

/** How a section keeps its catalog's entries in the cache: as its catalog does. */
const SECTION_CODEC: EntryCodec<SkillsSection> = {
	pack: (section, refs) => {
		// The section's text holds the catalog's: saved once, with what stands around it.
		const inner = section.catalog.text;
		const at = inner === "" ? -1 : section.text.indexOf(inner);
		const text =
			at === -1 ? section.text : { before: section.text.slice(0, at), after: section.text.slice(at + inner.length) };
		return { ...section, text, catalog: CATALOG_CODEC.pack(section.catalog, refs) };
	},
	text: (section) => CATALOG_CODEC.text(section.catalog),
	unpack: (saved, deref, tail) => {
		if (!isRecord(saved)) return saved;
		const catalog = CATALOG_CODEC.unpack(saved.catalog, deref, tail);
		const { text } = saved;
		// Anything but two texts around a catalog's text stays as it is, for the shape check to refuse.
		const around = isRecord(text) && typeof text.before === "string" && typeof text.after === "string";
		const inner = isRecord(catalog) ? catalog.text : undefined;
		if (!around || typeof inner !== "string") return { ...saved, catalog };
		return { ...saved, text: `${text.before}${inner}${text.after}`, catalog };
	},
};

/** True when `value` is a skills section: its text and its catalog. */
function isSection(value: unknown): value is SkillsSection {
	return isRecord(value) && typeof value.text === "string" && isCatalog(value.catalog);
}
