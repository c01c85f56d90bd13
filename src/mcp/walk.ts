import { lstatSync, readdirSync, type Stats } from "node:fs";
import { sep } from "node:path";
import type { McpCode } from "./codes.ts";
import type { ListingCache } from "./listings.ts";

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
	/** True when SKILL.md was taken as vouched for (it is then not in `files`). */
	skillFileVouched?: boolean;
}

/**
 * SKILL.md as the caller already checked it from a stat taken no earlier than `since` (its kind, links and size
 * passed the walk's rules): the walk takes that for the file instead of an `lstat` when the folder proves that its
 * SKILL.md is still the file that stat was of (see {@link walkSkill}).
 */
export interface VouchedSkillFile {
	size: number;
	since: number;
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

/**
 * How long after its last change an entry's `lstat` stands for what was read of it. Two writes within one tick of
 * the kernel's clock can leave size, mtime and ctime alike (the racy-git rule, as discovery's index has it), so what
 * was read of an entry changed more recently than this is not kept: it is read again next time.
 */
export const RACY_MARGIN_MS = 2000;

/** Whether an entry with these times shows no change in the {@link RACY_MARGIN_MS} before `now`. */
export function settled(times: { mtimeMs: number; ctimeMs: number }, now: number): boolean {
	return Math.max(times.mtimeMs, times.ctimeMs) < now - RACY_MARGIN_MS;
}

const SKILL_FILE = "SKILL.md";

/**
 * Lists every file of a skill folder breadth-first without following links. The folder is served whole or not at
 * all: a link, a special file, a hard-linked file (unless allowed), a file over the cap, more than 512 files or
 * 16 MiB in all make it a problem, so a listing is always complete.
 *
 * With `vouched`, SKILL.md costs no `lstat` when the folder's own `lstat` (taken now) shows it unchanged since well
 * before `since` and its kept listing (whose key that `lstat` matched) saw SKILL.md as a regular file: no entry was
 * added, removed, renamed or replaced since, so the name still holds the regular file it held then, which is the
 * one the caller's stat was of. (A stat that followed a link or met another file says other than what the caller
 * checked it against, so the caller never vouches for it.) What changes only the file itself afterwards, an edit in
 * place or a hard link made elsewhere, shows at every read, which takes its own descriptor's stat.
 */
export function walkSkill(
	dir: string,
	rules: FileRules,
	listings?: ListingCache,
	vouched?: VouchedSkillFile,
): SkillTree | TreeProblem {
	const tree: SkillTree = { files: [], dirs: [""] };
	// Entry names come from readdir (or a kept listing checked the same way): no separator, never `.` or `..`, so
	// joining them is concatenation (no path normalized again for every file of every skill).
	const base = dir.endsWith(sep) ? dir : dir + sep;
	let bytes = 0;
	let count = 0;
	// The `lstat` of each subfolder from its parent's listing: its own listing's signature.
	const dirStats: (Stats | undefined)[] = [undefined];
	let skipSkillFile = false;
	for (let i = 0; i < tree.dirs.length; i++) {
		const rel = tree.dirs[i] ?? "";
		let entries: string[];
		try {
			const path = rel ? base + rel : dir;
			if (listings) {
				const listing = listings.listing(path, dirStats[i]);
				entries = listing.names;
				if (i === 0 && vouched) skipSkillFile = listing.skillFile && settled(listing, vouched.since);
			} else entries = readdirSync(path).sort();
		} catch (error) {
			return { code: "mcp.unreadable", message: `${rel || "."}: ${(error as NodeJS.ErrnoException).code}` };
		}
		for (const name of entries) {
			const path = rel ? `${rel}/${name}` : name;
			let size: number;
			if (skipSkillFile && path === SKILL_FILE) {
				size = (vouched as VouchedSkillFile).size;
				tree.skillFileVouched = true;
			} else {
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
				// A `.git` file (a submodule's gitfile) is refused on read like the folder, so it is never listed.
				if (SKIPPED_DIRS.has(name) && stats.isFile()) continue;
				const problem = fileProblem(path, stats, rules);
				if (problem) return problem;
				size = stats.size;
				tree.files.push({ rel: path, stats });
			}
			bytes += size;
			if (++count > SKILL_FILE_LIMIT)
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
