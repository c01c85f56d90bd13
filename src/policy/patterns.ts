/** A tool pattern: `Tool`, or `Tool(spec)` where spec is a command prefix (`git:*`), a command, or a path glob. */
export interface ToolPattern {
	tool: string;
	spec?: string;
}

/** Parses `Bash(git log:*)` into `{ tool: "Bash", spec: "git log:*" }`. */
export function parseToolPattern(pattern: string): ToolPattern {
	const match = /^([^()\s]+)\((.*)\)$/.exec(pattern.trim());
	return match ? { tool: match[1] ?? "", spec: (match[2] ?? "").trim() } : { tool: pattern.trim() };
}

/** A call reduced to what patterns match: the tool, and its command or workspace-relative path(s). */
export interface CallSubject {
	tool: string;
	command?: string;
	paths?: string[];
}

/** True when the pattern covers the call: same tool, and (if any) the spec matches the command or every path. */
export function matchesPattern(pattern: string, call: CallSubject): boolean {
	const { tool, spec } = parseToolPattern(pattern);
	if (tool !== "*" && tool !== call.tool) return false;
	if (spec === undefined || spec === "*" || spec === "**") return true;
	if (call.command !== undefined) return matchesCommand(spec, call.command);
	if (call.paths && call.paths.length > 0) return call.paths.every((path) => globToRegExp(spec).test(path));
	return false;
}

/**
 * True when an exact pattern names this very call: the same tool and the same command line (ends trimmed), or
 * its one path, character for character; a bare tool name covers only calls with no command and no path. Nothing in
 * the spec is a wildcard, so a grant built from a call the model chose (a file named `**`, a command `*`) covers
 * that call alone.
 */
export function matchesExactly(pattern: string, call: CallSubject): boolean {
	const { tool, spec } = parseToolPattern(pattern);
	if (tool !== call.tool) return false;
	const paths = call.paths ?? [];
	if (spec === undefined) return call.command === undefined && paths.length === 0;
	if (call.command !== undefined) return call.command.trim() === spec;
	return paths.length === 1 && paths[0] === unescapeGlob(spec);
}

const GLOB_SPECIAL = /[\\*?[\]{}]/g;

/** A path as a glob that matches only itself: `\`, `*`, `?`, brackets and braces are escaped with `\`. */
export function escapeGlob(path: string): string {
	return path.replace(GLOB_SPECIAL, "\\$&");
}

function unescapeGlob(glob: string): string {
	return glob.replace(/\\(.)/gs, "$1");
}

// Operators that chain, substitute or redirect: `git status; rm -rf ~` must not pass as `git status`.
const SHELL_OPERATORS = /[;&|`<>\n]|\$\(/;

/**
 * `git:*` matches `git` and `git log ...`; a spec without `:*` matches that exact command. A command that chains,
 * substitutes or redirects matches no spec: only the whole of a plain command can be pre-approved.
 */
function matchesCommand(spec: string, command: string): boolean {
	const trimmed = command.trim();
	if (SHELL_OPERATORS.test(trimmed)) return false;
	if (spec.endsWith(":*")) {
		const prefix = spec.slice(0, -2).trim();
		return trimmed === prefix || trimmed.startsWith(`${prefix} `);
	}
	return trimmed === spec;
}

/**
 * A glob as a regular expression: `**` any depth, `*` within one segment, `?` one character, and `\` makes the next
 * character literal.
 */
export function globToRegExp(glob: string): RegExp {
	let source = "";
	for (let i = 0; i < glob.length; i++) {
		const char = glob[i] ?? "";
		if (char === "\\" && i + 1 < glob.length) {
			source += (glob[++i] as string).replace(/[.*?+^${}()|[\]\\]/g, "\\$&");
		} else if (char === "*" && glob[i + 1] === "*") {
			source += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
			i += glob[i + 2] === "/" ? 2 : 1;
		} else if (char === "*") source += "[^/]*";
		else if (char === "?") source += "[^/]";
		else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
	}
	// A folder pattern ("src/" or "src") also covers what is inside it.
	const folder = glob.endsWith("/") ? ".*" : "(?:/.*)?";
	return new RegExp(`^${source}${folder}$`);
}
