import { lstatSync, readdirSync, type Stats } from "node:fs";
import { sep } from "node:path";
import type { McpCode } from "./codes.ts";
import { SKIPPED_DIRS, settled } from "./folder-rules.ts";
import type { Listing, ListingCache, VerdictRow } from "./listings.ts";

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
	/**
	 * True when a walk that keeps verdicts found every folder and file settled (none changed within the racy margin),
	 * so what it saw stands for what is there; undefined when it met one, or kept no verdicts (it did not look).
	 */
	settled?: boolean;
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

const SKILL_FILE = "SKILL.md";

/** How a walk may spare `lstat`s (a warm start-up's plan); every other walk looks at every entry itself. */
export interface WalkOptions {
	/** SKILL.md as the caller already checked it (see {@link VouchedSkillFile}). */
	vouched?: VouchedSkillFile | undefined;
	/**
	 * Take a folder's kept verdict instead of an `lstat` per file, and keep one for each folder walked in full (see
	 * {@link walkSkill}). Only the plan asks, when a read cache will save them: every other walk (a use) neither reads
	 * the clock nor makes a verdict.
	 */
	verdicts?: boolean;
	/** When the walk began (ms): a verdict it keeps is taken at this time. Default: now. */
	now?: number;
}

/**
 * What a walk counted: its files and bytes so far, and of the folder being walked in full (only when verdicts are
 * kept) its subfolders, whether every file was settled and how many `lstat`s a verdict would spare. One per walk.
 */
interface Tally {
	files: number;
	bytes: number;
	/** The folder's subfolders (skipped folders left out); undefined when no verdict is kept. */
	names: string[] | undefined;
	/** False when a file changed within the racy margin before the walk: no verdict is kept then. */
	settled: boolean;
	/** The plain files a verdict would spare an `lstat` (all but the root's SKILL.md, which the plan looks at). */
	spared: number;
}

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
 *
 * With `verdicts` (a warm start-up's plan, never a use), a folder whose kept listing carries the verdict of its last
 * full walk under the same rules, and which was settled when that verdict was taken, costs no `lstat` of its files:
 * its subfolders are still looked at (each one's own `lstat` is its listing's key). What a folder cannot show, a file
 * grown in place past the cap or a hard link made from elsewhere, is caught at first use: every use (skills/list,
 * skills/get, directory reads, reads) walks the folder itself or reads through the contained reader and its own
 * fstat, so a kept verdict can change which skills start-up names, never what bytes a client receives. A server
 * already has that window for changes made after it started; this widens it to "since the last run that walked the
 * folder".
 */
export function walkSkill(
	dir: string,
	rules: FileRules,
	listings?: ListingCache,
	options: WalkOptions = {},
): SkillTree | TreeProblem {
	const tree: SkillTree = { files: [], dirs: [""] };
	// Entry names come from readdir (or a kept listing checked the same way): no separator, never `.` or `..`, so
	// joining them is concatenation (no path normalized again for every file of every skill).
	const base = dir.endsWith(sep) ? dir : dir + sep;
	const keep = options.verdicts === true && listings !== undefined;
	// Only a walk that keeps verdicts needs the time (they are taken at it, and files are checked settled by it).
	const now = keep ? (options.now ?? Date.now()) : undefined;
	const tally: Tally = { files: 0, bytes: 0, names: keep ? [] : undefined, settled: true, spared: 0 };
	// The `lstat` of each subfolder from its parent's listing: its own listing's signature.
	const dirStats: (Stats | undefined)[] = [undefined];
	// Whether a folder walked in full met an entry changed within the racy margin (a taken verdict was settled).
	let racy = false;
	for (let i = 0; i < tree.dirs.length; i++) {
		const rel = tree.dirs[i] ?? "";
		let listing: Listing | undefined;
		let entries: string[];
		try {
			const path = rel ? base + rel : dir;
			if (listings) {
				listing = listings.listing(path, dirStats[i]);
				entries = listing.names;
			} else entries = readdirSync(path).sort();
		} catch (error) {
			return { code: "mcp.unreadable", message: `${rel || "."}: ${(error as NodeJS.ErrnoException).code}` };
		}
		const vouched = i === 0 && listing?.skillFile && options.vouched;
		const skipSkillFile = vouched ? settled(listing as Listing, vouched.since) : false;
		const verdict = keep && listing ? verdictFor(listing, rules) : undefined;
		const files = tally.files;
		const bytes = tally.bytes;
		if (tally.names) {
			tally.names.length = 0;
			tally.settled = true;
			tally.spared = 0;
		}
		const problem = verdict
			? takeVerdict(
					verdict,
					rel,
					i === 0 && !skipSkillFile && listing?.skillFile === true,
					base,
					tree,
					dirStats,
					rules,
					tally,
				)
			: walkEntries(entries, rel, base, tree, dirStats, rules, skipSkillFile ? options.vouched : undefined, now, tally);
		if (problem) {
			if (listing && !verdict) listings?.dropVerdict(listing);
			return problem;
		}
		if (skipSkillFile) tree.skillFileVouched = true;
		if (keep && !verdict && listing && listings && tally.names && now !== undefined) {
			// A verdict that would spare no `lstat` (a folder of SKILL.md and subfolders only) is not kept: reading it
			// back would cost more than it saves. Nor is one of a folder changed within the racy margin: an entry added
			// within the same tick may not have changed its times (so a kept verdict always stands for its listing).
			const still = tally.settled && settled(listing, now);
			if (!still) racy = true;
			if (still && tally.spared > 0)
				listings.keepVerdict(listing, tally.names, tally.files - files, tally.bytes - bytes, rules, now);
			else listings.dropVerdict(listing);
		}
	}
	if (keep && !racy) tree.settled = true;
	return tree;
}

/**
 * The listing's verdict when it was taken under these rules. (A kept verdict was taken with the folder settled and
 * names no skipped folder: listings.ts keeps and restores no other.)
 */
function verdictFor(listing: Listing, rules: FileRules): VerdictRow | undefined {
	// [folders, files, bytes, maxBytes, allowHardLinks, taken at] (listings.ts VerdictRow).
	const { verdict } = listing;
	return verdict && verdict[3] === rules.maxBytes && verdict[4] === rules.allowHardLinks ? verdict : undefined;
}

/**
 * A kept verdict taken for a folder: its subfolders are walked, its files counted as the verdict counted them. The
 * root's SKILL.md, when the caller did not vouch for it, is still looked at (the plan keys its frontmatter by it).
 */
function takeVerdict(
	verdict: VerdictRow,
	rel: string,
	statSkillFile: boolean,
	base: string,
	tree: SkillTree,
	dirStats: (Stats | undefined)[],
	rules: FileRules,
	tally: Tally,
): TreeProblem | undefined {
	for (const name of verdict[0]) {
		tree.dirs.push(rel ? `${rel}/${name}` : name);
		dirStats.push(undefined);
	}
	if (statSkillFile) {
		let stats: Stats;
		try {
			stats = lstatSync(base + SKILL_FILE);
		} catch (error) {
			return { code: "mcp.unreadable", message: `${SKILL_FILE}: ${(error as NodeJS.ErrnoException).code}` };
		}
		const problem = fileProblem(SKILL_FILE, stats, rules);
		if (problem) return problem;
		tree.files.push({ rel: SKILL_FILE, stats });
	}
	tally.files += verdict[1];
	tally.bytes += verdict[2];
	return overLimit(tally, tree);
}

/**
 * One full pass over a folder's entries: each one's `lstat` (SKILL.md's, when vouched for, excepted). With `now`
 * (verdicts kept), what a verdict of the folder needs is counted as well.
 */
function walkEntries(
	entries: readonly string[],
	rel: string,
	base: string,
	tree: SkillTree,
	dirStats: (Stats | undefined)[],
	rules: FileRules,
	vouched: VouchedSkillFile | undefined,
	now: number | undefined,
	tally: Tally,
): TreeProblem | undefined {
	// The limits are checked as entries come, so a folder of a million entries costs no million `lstat`s.
	for (const name of entries) {
		const path = rel ? `${rel}/${name}` : name;
		if (vouched && path === SKILL_FILE) {
			tally.files++;
			tally.bytes += vouched.size;
			const problem = overLimit(tally, tree);
			if (problem) return problem;
			continue;
		}
		let stats: Stats;
		try {
			stats = lstatSync(base + path);
		} catch (error) {
			return { code: "mcp.unreadable", message: `${path}: ${(error as NodeJS.ErrnoException).code}` };
		}
		if (stats.isDirectory()) {
			if (SKIPPED_DIRS.has(name)) continue;
			tree.dirs.push(path);
			dirStats.push(stats);
			tally.names?.push(name);
			const problem = overLimit(tally, tree);
			if (problem) return problem;
			continue;
		}
		// A `.git` file (a submodule's gitfile) is refused on read like the folder, so it is never listed.
		if (SKIPPED_DIRS.has(name) && stats.isFile()) continue;
		const problem = fileProblem(path, stats, rules);
		if (problem) return problem;
		if (now !== undefined) {
			if (!settled(stats, now)) tally.settled = false;
			if (path !== SKILL_FILE) tally.spared++;
		}
		tally.files++;
		tally.bytes += stats.size;
		tree.files.push({ rel: path, stats });
		const over = overLimit(tally, tree);
		if (over) return over;
	}
	return undefined;
}

/** The first of SEP-2640's per-skill limits the walk so far is over, if any. */
function overLimit(tally: Tally, tree: SkillTree): TreeProblem | undefined {
	if (tally.files > SKILL_FILE_LIMIT)
		return { code: "mcp.too-many-files", message: `more than ${SKILL_FILE_LIMIT} files` };
	if (tree.dirs.length > SKILL_FILE_LIMIT)
		return { code: "mcp.too-many-files", message: `more than ${SKILL_FILE_LIMIT} folders` };
	if (tally.bytes > SKILL_BYTE_LIMIT) return { code: "mcp.too-large", message: "more than 16 MiB of files" };
	return undefined;
}

function fileProblem(path: string, stats: Stats, rules: FileRules): TreeProblem | undefined {
	if (stats.isSymbolicLink()) return { code: "mcp.link", message: `${path} is a symbolic link` };
	if (!stats.isFile()) return { code: "mcp.link", message: `${path} is not a regular file` };
	if (stats.nlink > 1 && !rules.allowHardLinks) return { code: "mcp.link", message: `${path} has several hard links` };
	if (stats.size > rules.maxBytes)
		return { code: "mcp.too-large", message: `${path} is over the ${rules.maxBytes}-byte read cap` };
	return undefined;
}
