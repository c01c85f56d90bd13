import { escapeXml } from "../catalog/index.ts";
import type { SkillResources } from "./resources.ts";

/** What {@link renderActivation} needs. */
export interface RenderableActivation {
	name: string;
	cached: boolean;
	body: string | null;
	dir: string;
	resources: SkillResources;
}

const OPENING = /^\s*<skill_content name="[^"]*"(?: cached="true")?>/;

/**
 * The activation as a model receives it: the body in a `<skill_content name="…">` block, then the base directory
 * line and a `<skill_resources>` list. Hosts recognise the block (see {@link isSkillContent}) and keep it out of
 * truncation and compaction. A repeated activation renders a short reminder instead of the body.
 */
export function renderActivation(activation: RenderableActivation): string {
	const name = escapeXml(activation.name);
	if (activation.cached || activation.body === null) {
		return `<skill_content name="${name}" cached="true">\nThe skill "${activation.name}" is already loaded earlier in this conversation; follow those instructions.\n</skill_content>`;
	}
	const { resources } = activation;
	const files = [...resources.scripts, ...resources.references, ...resources.assets, ...resources.other];
	const lines = [
		`<skill_content name="${name}">`,
		activation.body,
		"",
		`Base directory for this skill: ${activation.dir}`,
		"Relative paths in this skill are relative to that directory.",
	];
	if (files.length > 0) {
		lines.push("<skill_resources>", ...files.map((file) => `<file>${escapeXml(file)}</file>`));
		if (resources.truncated) lines.push("<!-- more files exist than are listed -->");
		lines.push("</skill_resources>");
	}
	lines.push("</skill_content>");
	return lines.join("\n");
}

/** True for text that is (or starts with) a skill content block: protect it from truncation and compaction. */
export function isSkillContent(text: string): boolean {
	return OPENING.test(text);
}
