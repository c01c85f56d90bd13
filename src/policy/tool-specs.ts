// What the gate knows about tools: how much each can do, and which of its arguments hold paths, a command or a URL.

/** How much a tool can do: `safe` tools are always allowed, `read` ones are allowed within bounds, the rest ask. */
export type ToolRisk = "safe" | "read" | "write" | "exec" | "network";

/** How to read a tool's calls: its risk, and which arguments hold paths, a command or a URL. */
export interface ToolSpec {
	risk: ToolRisk;
	/** Its calls create what runs or loads later (a new skill): never pre-approved by a skill's allowed-tools. */
	runsLater?: boolean;
	pathArgs?: string[];
	commandArg?: string;
	urlArg?: string;
}

/** Tool specs for the skill tools and common agent tools (Claude Code's names and generic ones). */
export const DEFAULT_TOOL_SPECS: Readonly<Record<string, ToolSpec>> = {
	load_skill: { risk: "safe" },
	read_skill_resource: { risk: "safe" },
	list_skills: { risk: "safe" },
	search_skills: { risk: "safe" },
	Read: { risk: "read", pathArgs: ["file_path", "path"] },
	Grep: { risk: "read", pathArgs: ["path"] },
	Glob: { risk: "read", pathArgs: ["path"] },
	LS: { risk: "read", pathArgs: ["path"] },
	read_file: { risk: "read", pathArgs: ["path"] },
	list_dir: { risk: "read", pathArgs: ["path"] },
	Write: { risk: "write", pathArgs: ["file_path", "path"] },
	Edit: { risk: "write", pathArgs: ["file_path", "path"] },
	MultiEdit: { risk: "write", pathArgs: ["file_path"] },
	NotebookEdit: { risk: "write", pathArgs: ["notebook_path"] },
	write_file: { risk: "write", pathArgs: ["path"] },
	edit_file: { risk: "write", pathArgs: ["path"] },
	Bash: { risk: "exec", commandArg: "command" },
	shell: { risk: "exec", commandArg: "command" },
	WebFetch: { risk: "network", urlArg: "url" },
	fetch: { risk: "network", urlArg: "url" },
};
