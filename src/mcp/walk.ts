import { lstatSync, readdirSync, type Stats } from "node:fs";
import { sep } from "node:path";
import type { McpCode } from "./codes.ts";

/** What a served file may be: the read cap and whether hard-linked files are allowed. */
export interface FileRules {
	maxBytes: number;
	allowHardLinks: boolean;
	/** Folder listings reused between walks (per server). */
	listings?: ListingCache;
}

/** One regular file of a skill: its relative POSIX path and its `lstat`. */
export interface SkillFile {
	rel: string;
	stats: Stats;
}

/** A skill folder's files and sub-folders (relative POSIX paths, `""` is the root). */
export interface SkillTree {
	files: SkillFile[];
	dirs: string[];
}

/** Why a folder cannot be served whole. */
export interface TreeProblem {
	code: McpCode;
	message: string;
}

/** SEP-2640's per-skill interoperability limits: hosts must accept up to these, servers should not exceed them. */
export const SKILL_FILE_LIMIT = 512;
export const SKILL_BYTE_LIMIT: number = 16 * 1024 * 1024;

/** Folders that are never part of a served skill (and are refused on read). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** A saved listing: the folder, its signature key, when it last changed (ms), and its sorted entry names. */
export type ListingRow = [string, string, number, string[]];

/**
 * Folder listings reused while the folder's (device, inode, mtime, ctime) stay the same: adding, removing or
 * renaming an entry changes the folder's mtime, so an unchanged folder costs one `lstat` instead of a `readdir`.
 */
export class ListingCache {
	readonly #entries = new Map<string, { key: string; names: string[]; changedMs: number }>();
	/** True when a listing was read or forgotten since the last {@link ListingCache.rows}. */
	changed = false;

	/** Forgets the folders for which `keep` says no. */
	prune(keep: (path: string) => boolean): void {
		for (const path of this.#entries.keys()) {
			if (keep(path)) continue;
			this.#entries.delete(path);
			this.changed = true;
		}
	}

	/**
	 * The sorted entry names of `path`, read again only when the folder changed. `known` is the folder's `lstat`
	 * when the caller just took it (a subfolder met in its parent's listing), so it is not taken twice.
	 */
	list(path: string, known?: Stats): string[] {
		const stats = known ?? lstatSync(path);
		if (!stats.isDirectory()) throw Object.assign(new Error(`${path} is not a folder`), { code: "ENOTDIR" });
		const key = `${stats.dev}:${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}`;
		const cached = this.#entries.get(path);
		if (cached?.key === key) return cached.names;
		const names = readdirSync(path).sort();
		this.#entries.set(path, { key, names, changedMs: Math.max(stats.mtimeMs, stats.ctimeMs) });
		this.changed = true;
		return names;
	}

	/** The listings of folders that last changed before `before` (ms): the ones a later run may trust. */
	rows(before: number): ListingRow[] {
		const rows: ListingRow[] = [];
		for (const [path, entry] of this.#entries)
			if (entry.changedMs < before) rows.push([path, entry.key, entry.changedMs, entry.names]);
		this.changed = false;
		return rows;
	}

	/**
	 * Takes back a saved listing when it is well-formed and was saved (`savedAt`) after its folder last changed.
	 * Names are single entries (no separator, `.` or `..`), so a listing can only name what is in its folder.
	 */
	restore(row: unknown, savedAt: number): void {
		if (!Array.isArray(row) || row.length !== 4) return;
		const [path, key, changedMs, names] = row as unknown[];
		if (typeof path !== "string" || !path.startsWith("/") || typeof key !== "string") return;
		if (typeof changedMs !== "number" || !(changedMs < savedAt) || !Array.isArray(names)) return;
		if (!names.every(isEntryName)) return;
		this.#entries.set(path, { key, names: names as string[], changedMs });
	}
}

function isEntryName(name: unknown): boolean {
	return (
		typeof name === "string" &&
		name !== "" &&
		name !== "." &&
		name !== ".." &&
		!name.includes("/") &&
		!name.includes("\0")
	);
}

/**
 * Lists every file of a skill folder breadth-first without following links. The folder is served whole or not at
 * all: a link, a special file, a hard-linked file (unless allowed), a file over the cap, more than 512 files or
 * 16 MiB in all make it a problem, so a listing is always complete.
 */
export function walkSkill(dir: string, rules: FileRules, listings?: ListingCache): SkillTree | TreeProblem {
	const tree: SkillTree = { files: [], dirs: [""] };
	// Entry names come from readdir (or a kept listing checked the same way): no separator, never `.` or `..`, so
	// joining them is concatenation (no path normalized again for every file of every skill).
	const base = dir.endsWith(sep) ? dir : dir + sep;
	let bytes = 0;
	// The `lstat` of each subfolder from its parent's listing: its own listing's signature.
	const dirStats: (Stats | undefined)[] = [undefined];
	for (let i = 0; i < tree.dirs.length; i++) {
		const rel = tree.dirs[i] ?? "";
		let entries: string[];
		try {
			const path = rel ? base + rel : dir;
			entries = listings ? listings.list(path, dirStats[i]) : readdirSync(path).sort();
		} catch (error) {
			return { code: "mcp.unreadable", message: `${rel || "."}: ${(error as NodeJS.ErrnoException).code}` };
		}
		for (const name of entries) {
			const path = rel ? `${rel}/${name}` : name;
			let stats: Stats;
			try {
				stats = lstatSync(base + path);
			} catch (error) {
				return { code: "mcp.unreadable", message: `${path}: ${(error as NodeJS.ErrnoException).code}` };
			}
			if (stats.isDirectory()) {
				if (!SKIPPED_DIRS.has(name)) {
					tree.dirs.push(path);
					dirStats.push(stats);
				}
				if (tree.dirs.length > SKILL_FILE_LIMIT)
					return { code: "mcp.too-many-files", message: `more than ${SKILL_FILE_LIMIT} folders` };
				continue;
			}
			// A `.git` file (a submodule's gitfile) is refused on read like the folder, so it is never listed either.
			if (SKIPPED_DIRS.has(name) && stats.isFile()) continue;
			const problem = fileProblem(path, stats, rules);
			if (problem) return problem;
			bytes += stats.size;
			tree.files.push({ rel: path, stats });
			if (tree.files.length > SKILL_FILE_LIMIT)
				return { code: "mcp.too-many-files", message: `more than ${SKILL_FILE_LIMIT} files` };
			if (bytes > SKILL_BYTE_LIMIT) return { code: "mcp.too-large", message: "more than 16 MiB of files" };
		}
	}
	return tree;
}

function fileProblem(path: string, stats: Stats, rules: FileRules): TreeProblem | undefined {
	if (stats.isSymbolicLink()) return { code: "mcp.link", message: `${path} is a symbolic link` };
	if (!stats.isFile()) return { code: "mcp.link", message: `${path} is not a regular file` };
	if (stats.nlink > 1 && !rules.allowHardLinks) return { code: "mcp.link", message: `${path} has several hard links` };
	if (stats.size > rules.maxBytes)
		return { code: "mcp.too-large", message: `${path} is over the ${rules.maxBytes}-byte read cap` };
	return undefined;
}
