import type { Severity } from "../skill/index.ts";

/** Why a selected skill is not served over MCP (SEP-2640 rules and skillset's own). */
export type McpCode =
	| "mcp.name-invalid"
	| "mcp.name-mismatch"
	| "mcp.frontmatter"
	| "mcp.skill-file"
	| "mcp.field-invalid"
	| "mcp.link"
	| "mcp.too-large"
	| "mcp.too-many-files"
	| "mcp.unreadable"
	| "mcp.lock-mismatch"
	| "mcp.remote"
	| "mcp.busy";

/** What the table knows about an MCP code. */
export interface McpCodeInfo {
	readonly severity: Severity;
	readonly description: string;
	readonly hint: string;
}

/** The one table of the `mcp/` stage's codes: every reason a selected skill is left out of the server. */
export const MCP_CODES: Readonly<Record<McpCode, McpCodeInfo>> = {
	"mcp.remote": {
		severity: "info",
		description:
			"A skill from a remote origin (an MCP server or an index) is not served again: it belongs to its origin.",
		hint: "Clients that want it can use that origin directly.",
	},
	"mcp.name-invalid": {
		severity: "warning",
		description: "The frontmatter `name` is missing or not a spec-valid name, so no skill URI can end with it.",
		hint: "Give the skill a lowercase, hyphenated `name` (1-64 characters) equal to its folder name.",
	},
	"mcp.name-mismatch": {
		severity: "warning",
		description:
			"The frontmatter `name` differs from the name the skill is indexed under (SEP-2640: the URI's last segment must equal it).",
		hint: "Make the declared name unique and equal to the folder name.",
	},
	"mcp.frontmatter": {
		severity: "warning",
		description: "The frontmatter cannot be served verbatim: it parses only after repair, or not at all.",
		hint: "Quote values that contain ': ' so the YAML parses as written.",
	},
	"mcp.skill-file": {
		severity: "warning",
		description: "The skill's file is not named exactly `SKILL.md`, which every skill URI names.",
		hint: "Rename the file to SKILL.md.",
	},
	"mcp.field-invalid": {
		severity: "warning",
		description:
			"A field breaks a rule MCP clients check: description 1-1,024 characters, compatibility 1-500, metadata a map of strings.",
		hint: "Fix the field; `skillset validate` names the rule.",
	},
	"mcp.link": {
		severity: "warning",
		description: "The skill folder holds a symbolic link, a hard-linked file or a special file, which is never served.",
		hint: "Replace links with the files themselves (or pass --allow-hard-links for package managers that hard-link).",
	},
	"mcp.too-large": {
		severity: "warning",
		description: "A file is over the read cap, or the skill is over 16 MiB in all (SEP-2640's interoperability limit).",
		hint: "Move large assets out of the skill folder.",
	},
	"mcp.too-many-files": {
		severity: "warning",
		description:
			"The skill has more than 512 files (SEP-2640's interoperability limit), so its resource list cannot be complete.",
		hint: "Keep a skill to the files it needs.",
	},
	"mcp.unreadable": {
		severity: "warning",
		description: "A file or folder of the skill could not be read.",
		hint: "Check the permissions of the skill folder.",
	},
	"mcp.busy": {
		severity: "warning",
		description:
			"A `resources/read` of a large file (over 1 MiB) is refused because 64 large reads are waiting for their turn already, or a quarter of them on its own connection (the share is per socket: a client with several connections has one on each).",
		hint: "Retry once the large reads in flight are answered; read fewer large files at once on one connection.",
	},
	"mcp.lock-mismatch": {
		severity: "warning",
		description:
			"With --verify: SKILL.md does not match skills.lock.json (other files that do not match are left out of the skill).",
		hint: "Review the change, then run `skillset lock` again.",
	},
};
