import { readdirSync, statSync } from "node:fs";
import { basename, isAbsolute, join, relative, sep } from "node:path";
import { DEFAULT_CONVENTIONS, PRESETS } from "../discovery/index.ts";
import { isInside } from "../runtime/index.ts";
import type { Transfer } from "../shell/index.ts";

/**
 * Files and folders that something runs or reads later, outside any sandbox, or that choose what loads next time:
 * git's hooks and config (and the `.git` pointer itself), hook managers, CI, editor, agent and MCP settings,
 * environment and package-manager start-up files, shell profiles, skillset's config and lock, agent instruction
 * files, and every conventional skill folder. Matched at any depth, without regard to case.
 */
const RUNS_LATER: readonly string[] = [
	".git/hooks",
	".git/config",
	".git/config.worktree",
	".git/info",
	".git/modules",
	".git/worktrees",
	".git/commondir",
	...".husky .github .vscode .cursor .claude .codex .gemini .agents .skills .idea .zed .devcontainer .windsurf .continue .roo .kiro .amazonq .goose .aider.conf.yml .mcp.json".split(
		" ",
	),
	...".envrc .npmrc .yarnrc .yarnrc.yml .pnpmfile.cjs .pre-commit-config.yaml lefthook.yml .lefthook.yml lefthook.yaml .lefthook.yaml".split(
		" ",
	),
	...".bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zprofile .zshenv .zlogin".split(" "),
	..."skillset.config.json skills.lock.json AGENTS.md AGENTS.override.md CLAUDE.md GEMINI.md .cursorrules .windsurfrules .clinerules opencode.json".split(
		" ",
	),
	...DEFAULT_CONVENTIONS,
	...Object.values(PRESETS).flatMap((preset) => preset.workspace),
];

const PATTERNS: readonly string[][] = [...new Set(RUNS_LATER)].map((path) => path.toLowerCase().split("/"));
/** VS Code workspace files carry settings and tasks of their own. */
const WORKSPACE_FILE = /\.code-workspace$/i;
/** Entries looked at in a folder that is copied or moved; past it, the folder counts as running later. */
const MAX_WALKED_ENTRIES = 5_000;
const MAX_WALK_DEPTH = 16;

/**
 * The part of `path` (relative to the workspace, `/`-separated) that runs later when the path is written, or
 * undefined. Writing inside such a path counts, and so does writing a folder on its way (`.git` holds `.git/hooks`,
 * so creating or replacing `.git` counts).
 */
export function runsLaterPart(path: string): string | undefined {
	const parts = path.split("/").filter((part) => part !== "" && part !== ".");
	const lower = parts.map(comparable);
	for (let i = 0; i < lower.length; i++) {
		if (WORKSPACE_FILE.test(lower[i] as string)) return parts.slice(0, i + 1).join("/");
		for (const pattern of PATTERNS) {
			const overlap = Math.min(pattern.length, lower.length - i);
			if (pattern.slice(0, overlap).every((name, j) => lower[i + j] === name))
				return parts.slice(0, i + overlap).join("/");
		}
	}
	return undefined;
}

/**
 * A name as the file systems that are most lenient would see it: without case, and without the trailing dots and
 * spaces or the `:stream` suffix that Windows drops (`.GIT.`, `.git::$INDEX_ALLOCATION` are `.git` there).
 */
function comparable(name: string): string {
	return name
		.toLowerCase()
		.replace(/:.*$/s, "")
		.replace(/[. ]+$/, (tail) => (tail.length === name.length ? tail : ""));
}

/**
 * What a copy, move or link creates that runs later, or undefined: the target itself, the target plus each
 * source's name when the target is a folder, and every file inside a source folder at either place (so copying a
 * folder that holds `.husky/` counts). A source folder too large to look through counts as running later.
 * Paths are absolute and resolved; the answer is relative to the workspace.
 */
export function transferRunsLater(workspace: string, transfer: ResolvedTransfer): string | undefined {
	const rel = (path: string) => relative(workspace, path).split(sep).join("/");
	const into = transfer.targetIsFolder;
	for (const [i, source] of transfer.sources.entries()) {
		const written = transfer.written[i] ?? "";
		const names = into ? [rel(join(transfer.target, basename(source)))] : [];
		// `cp --parents a/.git/hooks/x dest` creates dest/a/.git/hooks/x.
		if (transfer.keepsPaths && !isAbsolute(written)) names.push(rel(join(transfer.target, written)));
		for (const name of names) {
			const hit = runsLaterPart(name);
			if (hit) return hit;
		}
		const entries = folderEntries(source);
		if (entries === undefined) return `${rel(transfer.target)} (the folder ${rel(source)} is too large to inspect)`;
		for (const entry of entries) {
			for (const base of [transfer.target, ...(into ? [join(transfer.target, basename(source))] : [])]) {
				if (!isInside(workspace, base)) continue;
				const hit = runsLaterPart(rel(join(base, entry)));
				if (hit) return hit;
			}
		}
	}
	return undefined;
}

/** A transfer with its paths resolved against the workspace. */
export interface ResolvedTransfer {
	sources: string[];
	/** The sources as written. */
	written: string[];
	keepsPaths: boolean;
	target: string;
	/** The target is an existing folder, or was written with a trailing `/`: sources land inside it. */
	targetIsFolder: boolean;
}

/** Resolves a transfer's operands the way the policy resolves every path. */
export function resolveTransfer(transfer: Transfer, resolve: (path: string) => string): ResolvedTransfer {
	const target = resolve(transfer.target);
	return {
		sources: transfer.sources.map(resolve),
		written: transfer.sources,
		keepsPaths: transfer.keepsPaths === true,
		target,
		targetIsFolder: transfer.target.endsWith("/") || isFolder(target),
	};
}

function isFolder(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

// The relative paths inside `folder` (following links, as a copy may), or [] for anything that is not a folder;
// undefined when it holds more than the bound.
function folderEntries(folder: string): string[] | undefined {
	if (!isFolder(folder)) return [];
	const found: string[] = [];
	const queue: [string, number][] = [["", 0]];
	for (let next = queue.shift(); next; next = queue.shift()) {
		const [dir, depth] = next;
		let names: string[];
		try {
			names = readdirSync(join(folder, dir));
		} catch {
			continue; // Unreadable: the copy cannot read it either.
		}
		for (const name of names) {
			const path = dir === "" ? name : `${dir}/${name}`;
			found.push(path);
			if (found.length > MAX_WALKED_ENTRIES) return undefined;
			if (isFolder(join(folder, path))) {
				if (depth + 1 > MAX_WALK_DEPTH) return undefined;
				queue.push([path, depth + 1]);
			}
		}
	}
	return found;
}
