import { SkillsetError } from "../skill/index.ts";
import type { Catalog } from "./catalog.ts";
import { type CatalogFormat, formatParts } from "./render.ts";

/** How the model activates a skill: through a load tool, or by reading SKILL.md with its file tool. */
export type ActivationMode = "tool" | "file-read";

/** Options for {@link systemPromptSection}. */
export interface PromptSectionOptions {
	activation?: ActivationMode;
	/** The load tool's name, for tool activation. Default `load_skill`. */
	toolName?: string;
}

/**
 * The catalog with the short usage instruction that goes beside it in a system prompt (the client guide's advice,
 * in two variants). Empty when the catalog is: no skills, no section.
 */
export function systemPromptSection(catalog: Catalog, options: PromptSectionOptions = {}): string {
	if (catalog.text === "") return "";
	const activation = options.activation ?? "tool";
	if (activation === "file-read" && !listsLocations(catalog)) {
		throw new SkillsetError("invalid-option", "file-read activation needs a catalog that includes locations");
	}
	const instruction =
		activation === "tool"
			? `When a task matches a skill's description, call the ${options.toolName ?? "load_skill"} tool with the skill's name before you start, then follow the instructions it returns. Load a skill only when the task needs it, and do not load one that is already loaded.`
			: "When a task matches a skill's description, read the SKILL.md at its location before you start, then follow it. Resolve relative paths in a skill against the folder that holds its SKILL.md, and use absolute paths in tool calls.";
	return `## Skills\n\nSkills are folders of instructions and resources for particular tasks. ${instruction}\n\n${catalog.text}\n`;
}

/** True when the catalog's text lists its first entry with its location (as the format writes it, escaped). */
function listsLocations(catalog: Catalog): boolean {
	const first = catalog.entries[0];
	if (!first) return true;
	const format = catalog.report.format as CatalogFormat;
	return catalog.text.includes(formatParts({ format, location: true }).entry(first));
}
