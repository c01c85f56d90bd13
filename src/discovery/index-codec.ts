import type { FileSignature } from "../skill/index.ts";
import { RootCache } from "./cache.ts";
import { type DiscoveryDiagnostic, type DiscoveryOnlyCode, discoveryDiagnostic } from "./codes.ts";
import { compareNames, type DirEntry } from "./folder.ts";
import {
	checkedSignature,
	count,
	decodeDiagnostic,
	decodeProperties,
	decodeSignature,
	IndexFormatError,
	list,
	parsedRecord,
	pathBelow,
	realPath,
	relativeTo,
	savable,
	signatureRow,
	skillFileName,
	skillFolder,
	text,
	tuple,
} from "./index-values.ts";
import { SavedDirs } from "./saved-dirs.ts";
import { SNAPSHOT_CODES, type WalkSnapshot } from "./walk-snapshot.ts";

// The layout of an index file's payload: one root's listings, reads and last walk, paths relative to the root.
// Everything in it is checked as strictly as input before it stands in for a listing or a read
// (index-values.ts), and anything that would not come back exactly as it went in is not written at all.

export { IndexFormatError } from "./index-values.ts";

/** Bumped whenever the layout below changes. */
const FORMAT = 1;
const KINDS: Readonly<Record<string, DirEntry["kind"]>> = { f: "file", d: "dir", l: "link", o: "other" };
const KIND_LETTERS: Readonly<Record<DirEntry["kind"], string>> = { file: "f", dir: "d", link: "l", other: "o" };

type DirRow = [string, number, number, number, number, number, string];
type DiagnosticRow = [string, string, string, number | null, number | null, string | null, string];
type FileRow = [string, number, number, number, number, number, number | null, number | null, unknown, DiagnosticRow[]];

/**
 * The saved form of one root's cache: its non-racy listings and reads, paths relative to the root. Entries that
 * could not come back exactly as they are (values JSON cannot hold, fields this format does not know) are left
 * out, so they are read again next time.
 */
export function encodeRootCache(cache: RootCache, fileKey: string): string {
	const dirs: DirRow[] = [];
	for (const [path, dir] of cache.dirs) {
		const rel = relativeTo(cache.path, path);
		if (dir.racy || rel === undefined) continue;
		dirs.push([rel, ...signatureRow(dir.signature), encodeEntries(dir.entries)]);
	}
	const files: FileRow[] = [];
	for (const [path, file] of cache.files) {
		const rel = relativeTo(cache.path, path);
		if (file.racy || rel === undefined || rel === "" || !savable(path, file)) continue;
		const diagnostics = file.own.map(diagnosticRow);
		files.push([
			rel,
			...signatureRow(file.signature),
			file.bodyOffset ?? null,
			file.bodyLine ?? null,
			file.properties,
			diagnostics,
		]);
	}
	return JSON.stringify({ format: FORMAT, key: fileKey, dirs, files, walk: encodeSnapshot(cache) });
}

/**
 * Reads a saved root cache back for the root `path` (named by `key` in memory, `fileKey` in the file); throws
 * {@link IndexFormatError} when the text is not one.
 */
export function decodeRootCache(
	text: string,
	fileKey: string,
	key: string,
	path: string,
	writtenAt: number,
): RootCache {
	const root = parsedRecord(text, "the index");
	if (root.format !== FORMAT) throw new IndexFormatError(`it is not a format-${FORMAT} discovery index`);
	if (root.key !== fileKey) throw new IndexFormatError("it was written for another root or other settings");
	const cache = new RootCache(key, path);
	const listings = new Map<string, DirEntry[]>();
	const rows = list(root.dirs, "dirs");
	const dirs = new SavedDirs(rows.length);
	for (const row of rows) decodeDir(row, path, dirs, listings);
	for (const row of list(root.files, "files")) decodeFile(row, path, cache);
	if (root.walk !== null) {
		// A kept walk stands only while the folders it listed are unchanged: the root must be one of them.
		if (!dirs.paths.includes(path)) throw new IndexFormatError("a kept walk lists no root folder");
		cache.walk = decodeSnapshot(root.walk, path);
	}
	cache.adoptSaved(dirs, writtenAt);
	return cache;
}

function encodeEntries(entries: readonly DirEntry[]): string {
	return entries.map((entry) => KIND_LETTERS[entry.kind] + entry.name).join("/");
}

function diagnosticRow(d: DiscoveryDiagnostic): DiagnosticRow {
	return [d.code, d.severity, d.message, d.line ?? null, d.column ?? null, d.field ?? null, d.hint ?? ""];
}

// --- the last walk ---

type SnapshotRow = [string, number, number, boolean, boolean, boolean, string[][], string[][], unknown[][]];

/** The last walk's snapshot with paths below the root, or null when there is none or a path is not below it. */
function encodeSnapshot(cache: RootCache): SnapshotRow | null {
	const snapshot = cache.walk;
	if (!snapshot?.real.startsWith("/")) return null;
	const diagnostics: string[][] = [];
	for (const d of snapshot.diagnostics) {
		const rel = relativeTo(cache.path, d.file);
		if (rel === undefined) return null;
		diagnostics.push([d.code, d.message, rel]);
	}
	const probes: unknown[][] = [];
	for (const [path, signature] of snapshot.probes) {
		const rel = relativeTo(cache.path, path);
		if (rel === undefined || rel === "") return null;
		probes.push([rel, ...signatureRow(signature)]);
	}
	const { counts, bounds } = snapshot;
	const skills = snapshot.skills.map((skill) => [skill.rel, skill.fileName]);
	return [
		snapshot.real,
		counts.dirs,
		counts.entries,
		bounds.depth,
		bounds.dirs,
		bounds.entries,
		diagnostics,
		skills,
		probes,
	];
}

function decodeSnapshot(value: unknown, root: string): WalkSnapshot {
	const cells = tuple(value, 9, "the last walk");
	const real = realPath(cells[0]);
	const counts = { dirs: count(cells[1], "a folder count"), entries: count(cells[2], "an entry count") };
	const [depth, dirs, entries] = [cells[3], cells[4], cells[5]];
	if (typeof depth !== "boolean" || typeof dirs !== "boolean" || typeof entries !== "boolean")
		throw new IndexFormatError("a walk bound is not true or false");
	const diagnostics = list(cells[6], "walk diagnostics").map((row) => {
		const [code, message, file] = tuple(row, 3, "a walk diagnostic");
		if (typeof code !== "string" || !SNAPSHOT_CODES.has(code))
			throw new IndexFormatError("a walk diagnostic has a code a kept walk cannot have");
		return discoveryDiagnostic(code as DiscoveryOnlyCode, text(message, "a message"), pathBelow(root, file));
	});
	const skills = list(cells[7], "walk skills").map((row) => {
		const [rel, fileName] = tuple(row, 2, "a walk skill");
		const name = skillFileName(fileName);
		return { rel: skillFolder(rel), fileName: name };
	});
	const probes = new Map<string, FileSignature>();
	for (const row of list(cells[8], "walk probes")) {
		const probe = tuple(row, 6, "a probe");
		const path = pathBelow(root, probe[0]);
		if (path === root) throw new IndexFormatError("a probe is the root");
		probes.set(path, decodeSignature(probe));
	}
	return { real, counts, bounds: { depth, dirs, entries }, diagnostics, skills, probes };
}

// --- reading back ---

/**
 * Reads one folder entry into `cache`. Listings are shared between folders that hold the same entries (ten thousand
 * skill folders list the same three names): the walk only reads them.
 */
function decodeDir(row: unknown, root: string, dirs: SavedDirs, listings: Map<string, DirEntry[]>): void {
	const cells = tuple(row, 7, "a folder entry");
	const path = pathBelow(root, cells[0]);
	const names = text(cells[6], "a folder listing");
	let entries = listings.get(names);
	if (!entries) {
		entries = decodeListing(names, path);
		listings.set(names, entries);
	}
	const [dev, ino, size, mtimeMs, ctimeMs] = checkedSignature(cells);
	dirs.add(path, entries, dev, ino, size, mtimeMs, ctimeMs);
}

function decodeListing(names: string, path: string): DirEntry[] {
	const entries: DirEntry[] = [];
	if (names === "") return entries;
	for (const part of names.split("/")) {
		const kind = KINDS[part.charAt(0)];
		const name = part.slice(1);
		if (!kind || name === "" || name === "." || name === ".." || name.includes("\0"))
			throw new IndexFormatError(`a folder listing of ${path} names an impossible entry`);
		const previous = entries[entries.length - 1];
		if (previous && compareNames(previous.name, name) >= 0)
			throw new IndexFormatError(`the folder listing of ${path} is not in name order`);
		entries.push(Object.freeze({ name, kind }));
	}
	return Object.freeze(entries) as DirEntry[];
}

function decodeFile(row: unknown, root: string, cache: RootCache): void {
	const cells = tuple(row, 10, "a file entry");
	const path = pathBelow(root, cells[0]);
	const slash = path.lastIndexOf("/");
	if (path === root || path.length - slash !== 9 || path.slice(slash + 1).toLowerCase() !== "skill.md")
		throw new IndexFormatError(`a file entry is not a SKILL.md: ${path}`);
	const signature = decodeSignature(cells);
	const bodyOffset = cells[6] === null ? undefined : count(cells[6], "a body offset");
	const bodyLine = cells[7] === null ? undefined : count(cells[7], "a body line");
	if ((bodyOffset === undefined) !== (bodyLine === undefined) || (bodyOffset ?? 0) > signature.size || bodyLine === 0)
		throw new IndexFormatError(`the body of ${path} is placed where it cannot be`);
	const properties = cells[8] === null ? null : decodeProperties(cells[8]);
	const rows = list(cells[9], "diagnostics");
	const own = rows.length === 0 ? [] : rows.map((item) => decodeDiagnostic(item, path));
	const dir = slash === 0 ? "/" : path.slice(0, slash);
	cache.files.set(path, { signature, dir, properties, own, bodyOffset, bodyLine, size: signature.size, racy: false });
}
