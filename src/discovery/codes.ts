import type { Diagnostic, Severity, SkillCode } from "../skill/index.ts";

/** Diagnostic codes that discovery adds to those of the `skill/` stage. */
export type DiscoveryOnlyCode =
	| "root.missing"
	| "root.not-directory"
	| "root.unreadable"
	| "walk.depth-limit"
	| "walk.dir-limit"
	| "walk.entry-limit"
	| "walk.unreadable"
	| "walk.vanished"
	| "walk.hidden-skipped"
	| "walk.symlink-loop"
	| "entry.symlink"
	| "entry.dangling-link"
	| "entry.duplicate-path"
	| "entry.nested"
	| "name.collision-renamed"
	| "collision.shadowed"
	| "collision.rejected"
	| "collision.same-rank"
	| "collision.locked"
	| "trust.untrusted"
	| "trust.config-ignored"
	| "skill.disabled"
	| "origin.failed"
	| "origin.cached"
	| "origin.refused"
	| "origin.collision"
	| "index.ignored"
	| "index.unavailable";

/** Every code a discovery diagnostic can carry. */
export type DiscoveryCode = SkillCode | DiscoveryOnlyCode;

/** A diagnostic from discovery: a skill's own, or one about roots, the walk or collisions. */
export type DiscoveryDiagnostic = Diagnostic<DiscoveryCode>;

/** What the table knows about a discovery code. */
export interface DiscoveryCodeInfo {
	readonly severity: Severity;
	readonly description: string;
	readonly hint: string;
}

/** The one table of discovery's own codes (the `skill/` codes are in `SKILL_CODES`). */
export const DISCOVERY_CODES: Readonly<Record<DiscoveryOnlyCode, DiscoveryCodeInfo>> = {
	"root.missing": {
		severity: "warning",
		description: "A root that was asked for explicitly does not exist.",
		hint: "Check the path given with --root or in skillset.config.json.",
	},
	"root.not-directory": {
		severity: "error",
		description: "A root is a file, not a directory.",
		hint: "Point the root at the folder that holds the skill folders.",
	},
	"root.unreadable": {
		severity: "error",
		description: "A root could not be read.",
		hint: "Check the folder's permissions.",
	},
	"walk.depth-limit": {
		severity: "warning",
		description: "Folders deeper than the depth bound (6 by default) were not scanned.",
		hint: "Move the skills up, add the deeper folder as a root, or raise limits.maxDepth.",
	},
	"walk.dir-limit": {
		severity: "warning",
		description:
			"The root has more folders than the bound (2,000 by default, 100,000 for named roots); the scan stopped there.",
		hint: "Point the root at the skills folder itself, or raise limits.maxDirs.",
	},
	"walk.entry-limit": {
		severity: "warning",
		description:
			"The root has more entries than the bound (20,000 by default, 1,000,000 for named roots); the scan stopped there.",
		hint: "Point the root at the skills folder itself, or raise limits.maxEntries.",
	},
	"walk.unreadable": {
		severity: "warning",
		description: "A folder could not be listed; skills inside it were not found.",
		hint: "Check the folder's permissions.",
	},
	"walk.vanished": {
		severity: "info",
		description: "A folder or file disappeared while the scan was running.",
		hint: "Scan again once the files have settled.",
	},
	"walk.hidden-skipped": {
		severity: "info",
		description: "Hidden folders below a root are not scanned.",
		hint: "To include them, pass --include-hidden (option includeHidden), or add one as a root of its own.",
	},
	"walk.symlink-loop": {
		severity: "info",
		description: "A folder link points back at a folder already being scanned; it was not followed again.",
		hint: "Nothing to do, unless the link is a mistake.",
	},
	"entry.symlink": {
		severity: "warning",
		description: "SKILL.md is a symbolic link, which is not loaded by default.",
		hint: "Link the whole skill folder instead, or allow symlinked files (allowSymlinkedSkillFile).",
	},
	"entry.dangling-link": {
		severity: "warning",
		description: "A link in a skills folder points at nothing.",
		hint: "Remove the link or restore its target.",
	},
	"entry.duplicate-path": {
		severity: "info",
		description: "The same SKILL.md was reached twice (through links or overlapping roots); it is loaded once.",
		hint: "Nothing to do; the first root that reaches it owns it.",
	},
	"entry.nested": {
		severity: "info",
		description: "A SKILL.md inside another skill's folder is not loaded as a separate skill.",
		hint: "Move the inner skill next to the outer one if it should be a skill of its own.",
	},
	"name.collision-renamed": {
		severity: "warning",
		description: "Two skills in one root declare the same name; one whose folder differs is known by its folder name.",
		hint: "Give each skill a unique name equal to its folder name.",
	},
	"origin.failed": {
		severity: "warning",
		description: "A remote origin (MCP server or index) could not be reached or read; local discovery went on.",
		hint: "Check the origin's command or URL, its timeout, and `skillset sources`.",
	},
	"origin.cached": {
		severity: "info",
		description: "A remote origin could not be reached; its last verified copies serve, from the cache.",
		hint: "They stay verified against the digests recorded when they were fetched.",
	},
	"origin.refused": {
		severity: "error",
		description: "A remote skill failed verification (digest, size, unlisted file, frontmatter) and is not used.",
		hint: "The origin serves files that differ from what it lists; the last verified copy, if any, stays.",
	},
	"origin.collision": {
		severity: "warning",
		description: "A remote skill has the name of a skill of another origin; it is reachable only as name@origin.",
		hint: "Use the qualified name (name@mcp:label or name@index:label) to load it.",
	},
	"collision.shadowed": {
		severity: "warning",
		description: "A skill with the same name in a higher-precedence root wins; this copy is shadowed.",
		hint: "Rename one of them, or reach this copy by its qualified name (name@scope).",
	},
	"collision.rejected": {
		severity: "error",
		description: "Several roots hold a skill of this name and the collision policy is `reject`.",
		hint: "Rename or remove all but one copy.",
	},
	"collision.same-rank": {
		severity: "error",
		description: "Two different skills in one root have the same name; neither is loaded.",
		hint: "Rename one of them (names must be unique within a root).",
	},
	"collision.locked": {
		severity: "error",
		description: "A skill tries to take the name of a skill in a locked admin root.",
		hint: "Rename the skill: names in a locked admin root cannot be shadowed.",
	},
	"trust.untrusted": {
		severity: "info",
		description: "The skill is in an untrusted workspace, so it is kept out of the catalog and activation.",
		hint: "Trust the workspace (trustWorkspace, or the host's trust store) to use its skills.",
	},
	"trust.config-ignored": {
		severity: "warning",
		description:
			"An untrusted workspace's own skillset.config.json sets roots, scopes, locks or origins (or MCP server commands or `permissions.allow`, unless trusted explicitly); those keys are ignored.",
		hint: "Trust the workspace to use them, or pass the settings with --config, flags or SKILLSET_* variables.",
	},
	"index.ignored": {
		severity: "warning",
		description:
			"A file of the persistent discovery index was not used (a link, not ours, writable by others, too large, or corrupt); every skill was read from disk instead.",
		hint: "Nothing is lost; the next scan writes a fresh file. If you did not change it, check who can write your cache folder.",
	},
	"index.unavailable": {
		severity: "warning",
		description:
			"The persistent discovery index folder is not safe to use (a link, not ours, or writable by others), so the index is off.",
		hint: "Fix the folder's owner and mode (0700), point SKILLSET_CACHE_DIR elsewhere, or pass --no-cache.",
	},
	"skill.disabled": {
		severity: "info",
		description: "The skill is disabled by configuration.",
		hint: "Remove it from `disabled` to use it.",
	},
};

/** A discovery diagnostic with the table's severity and hint. */
export function discoveryDiagnostic(
	code: DiscoveryOnlyCode,
	message: string,
	file: string,
	extra: { line?: number; column?: number; field?: string } = {},
): DiscoveryDiagnostic {
	const info = DISCOVERY_CODES[code];
	return { code, severity: info.severity, message, file, ...extra, hint: info.hint };
}
