import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Where a root sits in the precedence order. */
/** Where a skill lives. `remote` is for skills from an origin (an MCP server, a well-known index), never a root. */
export type Scope = "workspace" | "user" | "admin" | "plugin" | "builtin" | "remote";

/** Highest precedence first. */
export const DEFAULT_SCOPE_ORDER: readonly Scope[] = ["workspace", "user", "admin", "plugin", "builtin"];

/** The cross-client folders looked for in every workspace folder and in the home folder. */
export const DEFAULT_CONVENTIONS: readonly string[] = [".agents/skills", ".claude/skills", ".skills"];

/** A client's documented skill folders: relative to each workspace folder, to the home folder, and absolute. */
export interface Preset {
	description: string;
	workspace: readonly string[];
	user: readonly string[];
	admin: readonly string[];
}

/** The clients with a preset. */
export type PresetName = "claude" | "codex" | "opencode" | "gemini" | "copilot" | "cline" | "kilo" | "pi" | "workbuddy";

/**
 * Opt-in presets for other clients' folders, as each client's current documentation lists them (checked 2026-12-01;
 * the README table names the source of each). In each array the folder `add --client` writes to comes first, then
 * the client's other folders, then its legacy ones (still read), then the cross-client folders its docs list, so a
 * preset without the defaults reads what that client reads.
 */
export const PRESETS: Readonly<Record<PresetName, Preset>> = {
	claude: {
		description:
			"Claude Code: .claude/skills, ~/.claude/skills, managed /etc/claude-code/.claude/skills (macOS: /Library/Application Support/ClaudeCode/.claude/skills)",
		workspace: [".claude/skills"],
		user: [".claude/skills"],
		admin: ["/etc/claude-code/.claude/skills", "/Library/Application Support/ClaudeCode/.claude/skills"],
	},
	codex: {
		description:
			"OpenAI Codex: .agents/skills, ~/.agents/skills, /etc/codex/skills (legacy: .codex/skills, ~/.codex/skills)",
		workspace: [".agents/skills", ".codex/skills"],
		user: [".agents/skills", ".codex/skills"],
		admin: ["/etc/codex/skills"],
	},
	opencode: {
		description:
			"OpenCode: .opencode/skills, ~/.config/opencode/skills, plus .claude/skills and .agents/skills (legacy: skill/)",
		workspace: [".opencode/skills", ".opencode/skill", ".claude/skills", ".agents/skills"],
		user: [".config/opencode/skills", ".config/opencode/skill", ".claude/skills", ".agents/skills"],
		admin: [],
	},
	gemini: {
		description: "Gemini CLI: .gemini/skills, ~/.gemini/skills, and the .agents/skills alias",
		workspace: [".gemini/skills", ".agents/skills"],
		user: [".gemini/skills", ".agents/skills"],
		admin: [],
	},
	copilot: {
		description:
			"GitHub Copilot (VS Code, CLI): .github/skills, ~/.copilot/skills, plus .claude/skills and .agents/skills",
		workspace: [".github/skills", ".claude/skills", ".agents/skills"],
		user: [".copilot/skills", ".agents/skills", ".claude/skills"],
		admin: [],
	},
	cline: {
		description:
			"Cline: .cline/skills, ~/.cline/skills, plus .claude/skills and .agents/skills (legacy: .clinerules/skills)",
		workspace: [".cline/skills", ".clinerules/skills", ".claude/skills", ".agents/skills"],
		user: [".cline/skills", ".agents/skills"],
		admin: [],
	},
	kilo: {
		description:
			"Kilo Code: .kilo/skills, ~/.kilo/skills, plus .agents/skills and .claude/skills (legacy: .kilocode/skills)",
		workspace: [".kilo/skills", ".kilocode/skills", ".agents/skills", ".claude/skills"],
		user: [".kilo/skills", ".kilocode/skills", ".agents/skills", ".claude/skills"],
		admin: [],
	},
	pi: {
		description: "pi: .pi/skills, ~/.pi/agent/skills, plus .agents/skills",
		workspace: [".pi/skills", ".agents/skills"],
		user: [".pi/agent/skills", ".agents/skills"],
		admin: [],
	},
	workbuddy: {
		description: "WorkBuddy: .workbuddy/skills, ~/.workbuddy/skills (no first-party documentation found)",
		workspace: [".workbuddy/skills"],
		user: [".workbuddy/skills"],
		admin: [],
	},
};

/** All preset names. */
export const PRESET_NAMES: readonly PresetName[] = Object.keys(PRESETS) as PresetName[];

/** How a root came to be scanned. */
export type RootSource = "option" | "convention" | "preset" | "origin";

/** A folder whose subfolders are scanned for skills, with its place in the precedence order. */
export interface DiscoveryRoot {
	/** Absolute path. */
	path: string;
	scope: Scope;
	/** Position in the precedence order: 0 is the highest. Unique per root. */
	rank: number;
	/** Skills of an untrusted root stay out of the catalog and activation. */
	trusted: boolean;
	/** Names in a locked root cannot be shadowed (admin roots only). */
	locked: boolean;
	source: RootSource;
	/** The preset that contributed the root, if any. */
	preset?: PresetName;
	/** For the verified local copies of a remote origin: `mcp:<label>` or `index:<label>`. */
	origin?: string;
}

/** Where roots come from. Every path option is resolved against `cwd`. */
export interface RootOptions {
	/** The workspace folder. Default: the process's working directory at call time. */
	cwd?: string;
	/** The home folder for user roots. Default: `os.homedir()`. */
	home?: string;
	/** Add the conventional folders (default true). */
	defaultRoots?: boolean;
	/** Conventional folders looked for in each workspace folder and the home folder. */
	conventions?: readonly string[];
	/** Extra workspace roots, highest precedence first; they come before the conventional ones. */
	roots?: readonly string[];
	/** Client presets whose folders are added. */
	presets?: readonly PresetName[];
	/** Extra user roots. */
	userRoots?: readonly string[];
	adminRoots?: readonly string[];
	/** Lock the admin roots: their names cannot be shadowed. */
	adminLocked?: boolean;
	pluginRoots?: readonly string[];
	builtinRoots?: readonly string[];
	/** Precedence of the scopes, highest first. */
	scopeOrder?: readonly Scope[];
	/** Whether the workspace is trusted (default true: the library trusts; servers should ask). */
	trustWorkspace?: boolean;
}

interface RootDraft {
	path: string;
	scope: Scope;
	source: RootSource;
	preset?: PresetName;
}

/**
 * The roots to scan, highest precedence first: workspace roots (extra roots, then the conventions in the cwd and
 * each ancestor up to the repository root, nearest first), then user, admin, plugin and builtin roots, in the
 * scope order given. The same folder listed twice is kept once, at its first place.
 */
export async function resolveRoots(options: RootOptions & { home: string }): Promise<DiscoveryRoot[]> {
	const cwd = resolve(options.cwd ?? process.cwd());
	const drafts = draftRoots(cwd, options);
	const order = options.scopeOrder ?? DEFAULT_SCOPE_ORDER;
	const sorted = order.flatMap((scope) => drafts.filter((draft) => draft.scope === scope));
	const seen = new Set<string>();
	const roots: DiscoveryRoot[] = [];
	for (const draft of sorted) {
		if (seen.has(draft.path)) continue;
		seen.add(draft.path);
		roots.push({
			...draft,
			rank: roots.length,
			trusted: draft.scope !== "workspace" || options.trustWorkspace !== false,
			locked: draft.scope === "admin" && options.adminLocked === true,
		});
	}
	return roots;
}

function draftRoots(cwd: string, options: RootOptions & { home: string }): RootDraft[] {
	const useDefaults = options.defaultRoots !== false;
	const conventions = useDefaults ? (options.conventions ?? DEFAULT_CONVENTIONS) : [];
	const presets = (options.presets ?? []).map((name) => ({ name, preset: PRESETS[name] }));
	const explicit = (paths: readonly string[] | undefined, scope: Scope): RootDraft[] =>
		(paths ?? []).map((path) => ({ path: resolve(cwd, path), scope, source: "option" }));
	const relative = (base: string, scope: Scope, pick: (preset: Preset) => readonly string[]): RootDraft[] => [
		...conventions.map((folder): RootDraft => ({ path: join(base, folder), scope, source: "convention" })),
		...presets.flatMap(({ name, preset }) =>
			pick(preset).map((folder): RootDraft => ({ path: join(base, folder), scope, source: "preset", preset: name })),
		),
	];
	const workspaceDirs = ancestorsToRepositoryRoot(cwd);
	return [
		...explicit(options.roots, "workspace"),
		...workspaceDirs.flatMap((dir) => relative(dir, "workspace", (preset) => preset.workspace)),
		...explicit(options.userRoots, "user"),
		...(useDefaults || presets.length > 0 ? relative(options.home, "user", (preset) => preset.user) : []),
		...explicit(options.adminRoots, "admin"),
		...presets.flatMap(({ name, preset }) =>
			preset.admin.map((path): RootDraft => ({ path, scope: "admin", source: "preset", preset: name })),
		),
		...explicit(options.pluginRoots, "plugin"),
		...explicit(options.builtinRoots, "builtin"),
	];
}

/**
 * The cwd and each ancestor up to the repository root (the nearest folder holding `.git`), nearest first. Outside
 * a repository only the cwd is used, so a scan never wanders up into unrelated folders.
 */
function ancestorsToRepositoryRoot(cwd: string): string[] {
	const chain: string[] = [];
	for (let dir = cwd; ; dir = dirname(dir)) {
		chain.push(dir);
		if (exists(join(dir, ".git"))) return chain;
		if (dirname(dir) === dir) return [cwd];
	}
}

/**
 * Whether anything is at `path`. Asked synchronously: one stat per ancestor folder, where the promise API would cost
 * every scan its module and a thread pool started for these few stats.
 */
function exists(path: string): boolean {
	try {
		return statSync(path, { throwIfNoEntry: false }) !== undefined;
	} catch {
		return false;
	}
}
