import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { SkillEntry } from "./entries.ts";
import { settled } from "./folder-rules.ts";
import type { FileRules, SkillFile, SkillTree } from "./walk.ts";
import { walkSkill } from "./walk.ts";

/**
 * A skill entry kept with the identity of everything it was built from: every folder of the skill (a folder's
 * mtime and ctime change when an entry is added, removed or renamed in it) and every file (device, inode, size,
 * mtime, ctime and type). While all of them are unchanged the folder holds the same files with the same bytes, so
 * the entry stands, checked with one `lstat` per folder and file instead of a walk.
 */
export interface HeldEntry {
	entry: SkillEntry;
	/** Absolute paths: the folders, then the files. */
	paths: string[];
	stats: Float64Array;
	/** The same paths in UTF-8, one after another, and where each ends: a long check hands them to a helper thread. */
	bytes: Uint8Array;
	ends: Int32Array;
}

/** Numbers kept per path: device, inode, size, mtime, ctime and mode (held-check.ts spells the 6 in its helper). */
export const FIELDS = 6;

function fieldsOf(stats: Stats, into: Float64Array, at: number): void {
	into[at] = stats.dev;
	into[at + 1] = stats.ino;
	into[at + 2] = stats.size;
	into[at + 3] = stats.mtimeMs;
	into[at + 4] = stats.ctimeMs;
	into[at + 5] = stats.mode;
}

const NO_THROW = { throwIfNoEntry: false } as const;

/**
 * `lstat` of `path`, undefined when it is gone or cannot be looked at: a folder above it swapped for a file (ENOTDIR)
 * or a link loop (ELOOP) throws even with `throwIfNoEntry: false`, and must not fail a whole listing.
 */
function lstatOrUndefined(path: string): Stats | undefined {
	try {
		return lstatSync(path, NO_THROW);
	} catch {
		return undefined;
	}
}

/**
 * Whether every folder and file the entry was built from is still what it was. A warm listing is this check for
 * every skill (one `lstat` per path, which no faster check can replace), made for a stretch of skills at once by
 * held-check.ts, on this thread and a helper, with the same comparison.
 */
export function stillHeld(held: HeldEntry): boolean {
	const { paths, stats: kept } = held;
	for (let i = 0, at = 0; i < paths.length; i++, at += FIELDS) {
		const stats = lstatOrUndefined(paths[i] as string);
		if (
			stats === undefined ||
			stats.ino !== kept[at + 1] ||
			stats.mtimeMs !== kept[at + 3] ||
			stats.ctimeMs !== kept[at + 4] ||
			stats.size !== kept[at + 2] ||
			stats.dev !== kept[at] ||
			stats.mode !== kept[at + 5]
		)
			return false;
	}
	return true;
}

/**
 * Holds `entry`, built from `tree` (a walk of `dir`), when the folders can be pinned to it: their `lstat`s are taken
 * after that walk, then the folder is walked again, and only when the second walk finds the same files with the same
 * identity is the entry held (a change in between would otherwise be pinned as if the entry described it).
 */
export function holdEntry(entry: SkillEntry, dir: string, tree: SkillTree, rules: FileRules): HeldEntry | undefined {
	// A folder or file changed within the racy margin may change again unseen: such an entry is built afresh each time.
	const now = Date.now();
	if (!tree.files.every((file) => settled(file.stats, now))) return undefined;
	const count = tree.dirs.length + tree.files.length;
	const paths: string[] = [];
	const stats = new Float64Array(count * FIELDS);
	for (const rel of tree.dirs) {
		const path = rel === "" ? dir : join(dir, rel);
		const folder = lstatOrUndefined(path);
		if (!folder?.isDirectory() || !settled(folder, now)) return undefined;
		fieldsOf(folder, stats, paths.length * FIELDS);
		paths.push(path);
	}
	const again = walkSkill(dir, rules, rules.listings);
	if ("code" in again || !sameFiles(tree.files, again.files)) return undefined;
	for (const file of tree.files) {
		fieldsOf(file.stats, stats, paths.length * FIELDS);
		paths.push(join(dir, file.rel));
	}
	return { entry, paths, stats, ...pathBytes(paths) };
}

function pathBytes(paths: readonly string[]): { bytes: Uint8Array; ends: Int32Array } {
	const ends = new Int32Array(paths.length);
	let end = 0;
	paths.forEach((path, i) => {
		end += Buffer.byteLength(path);
		ends[i] = end;
	});
	return { bytes: Buffer.from(paths.join("")), ends };
}

function sameFiles(before: readonly SkillFile[], after: readonly SkillFile[]): boolean {
	if (before.length !== after.length) return false;
	const a = new Float64Array(FIELDS);
	const b = new Float64Array(FIELDS);
	for (let i = 0; i < before.length; i++) {
		const one = before[i] as SkillFile;
		const other = after[i] as SkillFile;
		if (one.rel !== other.rel) return false;
		fieldsOf(one.stats, a, 0);
		fieldsOf(other.stats, b, 0);
		for (let f = 0; f < FIELDS; f++) if (a[f] !== b[f]) return false;
	}
	return true;
}
