import type { Dirent } from "node:fs";
import { readdirSync } from "node:fs";
import { sep } from "node:path";
import type { DiscoveryDiagnostic } from "./codes.ts";
import type { FilePin } from "./origin-provider.ts";
import type { DiscoveryRoot } from "./roots.ts";

// Folder listings and the paths and candidates built from them: shared by the walk and by a walk reused from the
// persistent index, so both give the same strings.

/** A SKILL.md found by the walk, not yet read. */
export interface Candidate {
	root: DiscoveryRoot;
	/** The skill folder as reached from the root (may pass through links). */
	dir: string;
	/** The SKILL.md path as reached. */
	file: string;
	/** The SKILL.md path with every link resolved: the skill's identity on disk. */
	realFile: string;
	/** The skill folder relative to the root, with `/` separators. */
	relDir: string;
	diagnostics: DiscoveryDiagnostic[];
	/** For a remote skill: its files' recorded digests (see `OriginSkill.pins`). */
	pins?: Readonly<Record<string, FilePin>>;
}

/** A folder listing as the walk needs it. */
export interface DirEntry {
	name: string;
	kind: "file" | "dir" | "link" | "other";
}

/** Lists folders; the incremental scanner passes one that reuses listings of unchanged folders. */
export type ListDir = (dir: string) => DirEntry[];

/** Lists a folder with entry kinds from `readdir`, without a stat per entry, in name order. */
export function listDir(dir: string): DirEntry[] {
	const dirents = readdirSync(dir, { withFileTypes: true });
	const entries: DirEntry[] = new Array(dirents.length);
	for (let i = 0; i < dirents.length; i++) {
		const entry = dirents[i] as Dirent;
		entries[i] = { name: entry.name, kind: direntKind(entry) };
	}
	return sortByName(entries);
}

// Most folders of a skill tree hold a handful of entries: an insertion sort of those allocates nothing, where
// `Array#sort` copies the array first (a third of the walk's garbage, measured on 10k skills).
const INSERTION_SORT_MAX = 16;

/** Sorts entries by {@link compareNames} in place (names in one folder are unique, so any sort gives this order). */
function sortByName(entries: DirEntry[]): DirEntry[] {
	if (entries.length > INSERTION_SORT_MAX) return entries.sort((a, b) => compareNames(a.name, b.name));
	for (let i = 1; i < entries.length; i++) {
		const entry = entries[i] as DirEntry;
		let j = i - 1;
		for (; j >= 0 && (entries[j] as DirEntry).name > entry.name; j--) entries[j + 1] = entries[j] as DirEntry;
		entries[j + 1] = entry;
	}
	return entries;
}

function direntKind(entry: Dirent): DirEntry["kind"] {
	if (entry.isDirectory()) return "dir";
	if (entry.isSymbolicLink()) return "link";
	if (entry.isFile()) return "file";
	return "other";
}

/** The one spelling every client finds (the skill stage's `SKILL_FILE_NAME`; it loads only once a root exists). */
const SKILL_MD = "SKILL.md";

/**
 * The candidate for the skill file `fileName` in the folder `dir` (real path `real`, `rel` below the root): a walk
 * makes it, and so does a walk reused from the cache, with the same warning for a file not named `SKILL.md`.
 */
export function skillCandidate(
	root: DiscoveryRoot,
	dir: string,
	real: string,
	rel: string,
	fileName: string,
): Candidate {
	const file = below(dir, fileName);
	// Without links on the way the real path is the path: one string, not two equal ones.
	const realFile = real === dir ? file : below(real, fileName);
	const candidate: Candidate = { root, dir, file, realFile, relDir: rel, diagnostics: [] };
	if (fileName !== SKILL_MD) {
		const message = `The skill file is named '${fileName}', not '${SKILL_MD}'`;
		const info = { code: "entry.case", severity: "warning", message, file } as const;
		candidate.diagnostics.push({ ...info, hint: "Rename the file to `SKILL.md`." });
	}
	return candidate;
}

/**
 * `join(dir, name)` for a normalized folder path and a plain entry name (no separator, not `.` or `..`): the same
 * string, without normalizing it again on every entry of every folder.
 */
export function below(dir: string, name: string): string {
	return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

export function childRel(rel: string, name: string): string {
	return rel === "" ? name : `${rel}/${name}`;
}

export function isSkillFileEntry(entry: DirEntry): boolean {
	return entry.kind !== "dir" && entry.name.length === 8 && entry.name.toLowerCase() === "skill.md";
}

/** Code-unit order: the same on every platform and locale. */
export function compareNames(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
