import { escapeXml, foldField, foldPath, neutralizeTags } from "../catalog/index.ts";
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
 * The `<` of a tag of ours inside skill text (`</skill_content>`, `<skill_content …>`, `<skill_resources>`,
 * `</available_skills>`), in any case, with spaces, separators or invisible characters anywhere in it.
 */
const OWN_TAG =
	/<(?=[\s\p{Cf}]*\/?[\s\p{Cf}]*(?:skill[\s\p{Cf}_-]*(?:content|resources)|available[\s\p{Cf}_-]*skills))/giu;

/**
 * A skill's body with every tag of ours neutralised (`<` written `&lt;`), so the rendered block is exactly one
 * `<skill_content>` block whatever the body says. Nothing else in the body changes.
 */
function neutralizeSkillTags(body: string): string {
	return body.replace(OWN_TAG, "&lt;");
}

/**
 * The activation as a model receives it: the body in a `<skill_content name="…">` block, then the base directory
 * line and a `<skill_resources>` list. Hosts recognise the block (see {@link isSkillContent}) and keep it out of
 * truncation and compaction. A repeated activation renders a short reminder instead of the body. Nothing from the
 * skill can end the block early or open another: the name is folded and escaped, the directory and file paths kept
 * to one line, and the body's own skill tags neutralised.
 */
export function renderActivation(activation: RenderableActivation): string {
	const name = escapeXml(foldField(activation.name));
	if (activation.cached || activation.body === null) {
		return `<skill_content name="${name}" cached="true">\nThe skill "${name}" is already loaded earlier in this conversation; follow those instructions.\n</skill_content>`;
	}
	const { resources } = activation;
	const files = [...resources.scripts, ...resources.references, ...resources.assets, ...resources.other];
	const lines = [
		`<skill_content name="${name}">`,
		neutralizeSkillTags(activation.body),
		"",
		`Base directory for this skill: ${neutralizeTags(foldPath(activation.dir))}`,
		"Relative paths in this skill are relative to that directory.",
	];
	if (files.length > 0) {
		lines.push("<skill_resources>", ...files.map((file) => `<file>${escapeXml(foldPath(file))}</file>`));
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
