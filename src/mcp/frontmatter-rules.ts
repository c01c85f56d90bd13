import { basename } from "node:path";
import type { IndexedSkill } from "../discovery/index.ts";
import { readContained, type SkillsLock, sha256 } from "../runtime/index.ts";
import { codePointLength, type ParsedSkill, parseSkillFrontmatter, validateParsedSkill } from "../skill/index.ts";
import type { McpCode } from "./codes.ts";
import type { FrontmatterProblem } from "./read-cache.ts";
import type { FileRules } from "./walk.ts";

// What a SKILL.md must say to be served (SEP-2640's entry rules and skillset's own), for the plan and for a saved
// plan's rows alike: one set of checks, whichever way the frontmatter came.

/** A JSON value, as frontmatter is sent. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Frontmatter as the plan checks and sends it. */
export type Frontmatter = { [key: string]: JsonValue };

// SEP-2640 clients check names against the spec's ASCII form; a name outside it cannot be a URI's last segment.
const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
/** Why the frontmatter's name cannot end the skill's URIs, if it cannot. */
export function nameProblem(
	frontmatter: Frontmatter,
	skill: IndexedSkill,
): { code: McpCode; message: string } | undefined {
	const name = frontmatter.name;
	if (typeof name !== "string" || name.length > MAX_NAME_LENGTH || !NAME_PATTERN.test(name))
		return {
			code: "mcp.name-invalid",
			message: `the frontmatter name ${JSON.stringify(name ?? null)} is not a spec-valid name`,
		};
	if (name !== skill.id)
		return {
			code: "mcp.name-mismatch",
			message: `the frontmatter name '${name}' differs from the indexed name '${skill.id}'`,
		};
	return undefined;
}

export const FRONTMATTER_PROBLEMS: Readonly<Record<FrontmatterProblem, string>> = {
	unparsed: "the frontmatter does not parse",
	repaired: "the frontmatter parses only after quoting values that contain ': '",
};

/** Reads and parses SKILL.md itself (contained, within the cap; in verify mode against the lock). */
export function readFrontmatter(
	skill: IndexedSkill,
	dir: string,
	rules: FileRules & { lock?: SkillsLock | undefined },
): { frontmatter: Frontmatter } | { code: McpCode; message: string; problem?: FrontmatterProblem } {
	const read = readContained(dir, "SKILL.md", { maxBytes: rules.maxBytes, allowHardLinks: rules.allowHardLinks });
	if (!read.ok)
		return { code: read.code === "resource.too-large" ? "mcp.too-large" : "mcp.unreadable", message: read.message };
	if (rules.lock && rules.lock.skills[skill.name]?.files["SKILL.md"]?.sha256 !== sha256(read.bytes))
		return { code: "mcp.lock-mismatch", message: "SKILL.md does not match the lock" };
	const parsed = parseSkillFrontmatter(read.bytes, { profile: "lenient", complete: true });
	if ("needMore" in parsed || !parsed.frontmatter) return frontmatterProblem("unparsed");
	if (parsed.diagnostics.some((d) => d.code === "yaml.repaired")) return frontmatterProblem("repaired");
	// The catalog, prompts and tools show what discovery read: in verify mode that must be the verified bytes too.
	if (rules.lock && !sameProperties(skill, parsed))
		return {
			code: "mcp.lock-mismatch",
			message: "SKILL.md changed after discovery read it; what it read was not verified",
		};
	return { frontmatter: JSON.parse(JSON.stringify(parsed.frontmatter.data)) as Frontmatter };
}

function frontmatterProblem(problem: FrontmatterProblem): {
	code: McpCode;
	message: string;
	problem: FrontmatterProblem;
} {
	return { code: "mcp.frontmatter", message: FRONTMATTER_PROBLEMS[problem], problem };
}

/** Whether `parsed` (verified bytes) gives the properties discovery recorded for the skill. */
function sameProperties(skill: IndexedSkill, parsed: ParsedSkill): boolean {
	const checked = validateParsedSkill(parsed, { profile: "lenient", file: skill.file, dirName: basename(skill.dir) });
	return JSON.stringify(checked.properties) === JSON.stringify(skill.properties);
}

/** True when `text` has more than `max` code points; a text of no more UTF-16 units than that is never counted. */
function longerThan(text: string, max: number): boolean {
	return text.length > max && codePointLength(text) > max;
}

/** The first rule of SEP-2640's entry validation that the frontmatter breaks, if any. */
export function fieldProblem(frontmatter: { [key: string]: JsonValue }): string | undefined {
	const { description, compatibility, metadata } = frontmatter;
	if (typeof description !== "string" || description === "" || longerThan(description, 1024))
		return "description must be a string of 1-1,024 characters";
	if (
		compatibility !== undefined &&
		(typeof compatibility !== "string" || compatibility === "" || longerThan(compatibility, 500))
	)
		return "compatibility must be a string of 1-500 characters";
	if (
		metadata !== undefined &&
		(metadata === null ||
			typeof metadata !== "object" ||
			Array.isArray(metadata) ||
			Object.values(metadata).some((value) => typeof value !== "string"))
	)
		return "metadata must map keys to strings";
	return undefined;
}
