import { isAscii } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import {
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	readSync,
	renameSync,
	type Stats,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { statOrUndefined } from "./signature.ts";

// The files of the persistent index: one per root and settings, in `<cache>/discovery/`. Every open refuses links
// (O_NOFOLLOW) and checks, on the descriptor, that the file is a regular file of ours that no one else may write;
// writes go to a new file beside the index and are renamed over it, so readers and concurrent writers only ever
// see whole files.

/** An index file larger than this is not read (10,000 skills take about 8 MiB). */
export const MAX_INDEX_BYTES: number = 128 * 1024 * 1024;
/** Index files kept in the folder; the least recently written go first. */
export const MAX_INDEX_FILES = 256;
/** A temporary file left by a writer that died is removed after this long. */
const STALE_TEMP_MS = 10 * 60 * 1000;
const INDEX_NAME = /^[0-9a-f]{32}\.json$/;
const TEMP_NAME = /^\.[0-9a-f]{32}\.json\.\d+\.[0-9a-f]{8}\.tmp$/;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The first line of every index file: what it is, and the digest of the rest (a changed byte is a corrupt file). */
interface Header {
	skillset: "discovery-index";
	sha256: string;
}
const HEADER_NAME = "discovery-index";

/** Why the index (a folder or a file of it) is not used, and whether that is worth telling the user. */
export interface IndexProblem {
	reason: string;
	/** False for what is not a fault (no cache folder can be made: a read-only home, no permission). */
	report: boolean;
}

/** The user id files must belong to; undefined where there are no user ids (the index is then not used). */
function currentUser(): number | undefined {
	return process.geteuid?.();
}

/**
 * Checks the index folder `<cacheDir>/discovery`, making it (mode 0700) when missing: it must be a real folder
 * (not a link), ours, writable by no one else, in a parent that others cannot rename it out of.
 */
export function checkIndexFolder(folder: string): IndexProblem | undefined {
	const user = currentUser();
	if (user === undefined) return { reason: "this platform has no file owners to check", report: false };
	let info = lstatOrUndefined(folder);
	if (info instanceof Error) return { reason: `cannot look at the folder: ${codeOf(info)}`, report: false };
	if (!info) {
		try {
			mkdirSync(folder, { recursive: true, mode: 0o700 });
		} catch (error) {
			return { reason: `cannot make the folder: ${codeOf(error)}`, report: false };
		}
		info = lstatOrUndefined(folder);
		if (!info || info instanceof Error) return { reason: "the folder vanished", report: false };
	}
	const unsafe = unsafeOwner(info, user, "folder");
	if (unsafe) return { reason: unsafe, report: true };
	if (!info.isDirectory()) return { reason: "it is not a folder", report: true };
	// Anyone could rename the folder out of a parent that everyone may write, unless the sticky bit forbids it.
	const parent = statOrUndefined(dirname(folder));
	if (parent && (parent.mode & 0o002) !== 0 && (parent.mode & 0o1000) === 0)
		return { reason: "its parent folder can be written by everyone", report: true };
	return undefined;
}

/** What an index file holds: its payload, when it was written, and the payload's SHA-256 (checked against it). */
export interface IndexText {
	text: string;
	mtimeMs: number;
	sha256: string;
}

/** What reading an index file gave: its text, nothing (no file), or a problem. */
export type IndexRead = IndexText | { missing: true } | { problem: string };

/** Reads one index file: not through a link, a regular file of ours, writable by no one else, within the cap. */
export function readIndexFile(file: string): IndexRead {
	const user = currentUser();
	let fd: number;
	try {
		fd = openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
	} catch (error) {
		const code = codeOf(error);
		if (code === "ENOENT") return { missing: true };
		return { problem: code === "ELOOP" ? "it is a symbolic link" : `it cannot be opened: ${code}` };
	}
	try {
		const info = fstatSync(fd);
		const unsafe = user === undefined ? "file owners cannot be checked" : unsafeOwner(info, user, "file");
		if (unsafe) return { problem: unsafe };
		if (!info.isFile()) return { problem: "it is not a regular file" };
		if (info.size > MAX_INDEX_BYTES) return { problem: `it is ${info.size} bytes; the cap is ${MAX_INDEX_BYTES}` };
		const bytes = Buffer.allocUnsafe(info.size);
		let filled = 0;
		while (filled < bytes.length) {
			const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
			if (read === 0) break;
			filled += read;
		}
		const payload = filled === bytes.length ? checkedPayload(bytes) : undefined;
		if (payload === undefined) return { problem: "its content does not match its digest (cut short or changed)" };
		return { ...payload, mtimeMs: info.mtimeMs };
	} catch (error) {
		return { problem: `it cannot be read: ${codeOf(error)}` };
	} finally {
		closeSync(fd);
	}
}

/** The payload after the header line and its digest, when the header is ours and the digest matches. */
function checkedPayload(bytes: Buffer): { text: string; sha256: string } | undefined {
	const end = bytes.indexOf(0x0a);
	if (end === -1 || end > 200) return undefined;
	let header: Partial<Header>;
	try {
		header = JSON.parse(bytes.toString("utf8", 0, end)) as Partial<Header>;
	} catch {
		return undefined;
	}
	const payload = bytes.subarray(end + 1);
	if (header?.skillset !== HEADER_NAME || typeof header.sha256 !== "string") return undefined;
	if (createHash("sha256").update(payload).digest("hex") !== header.sha256) return undefined;
	// JSON text is nearly always ASCII, which reads the same as Latin-1: a large one then becomes a string kept
	// outside the JS heap (no UTF-8 decoding, no copy that counts towards the next full collection).
	return { text: payload.toString(isAscii(payload) ? "latin1" : "utf8"), sha256: header.sha256 };
}

/**
 * Writes `text` as the index file `name` in `folder` (already checked): into a new file (O_EXCL, O_NOFOLLOW,
 * mode 0600) renamed over the old one; returns the SHA-256 of `text` as saved (what a read gives back as `sha256`).
 * Throws what the file system threw; the new file is removed then.
 */
function writeIndexFile(folder: string, name: string, text: string): string {
	const temporary = join(folder, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
	const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
	try {
		let sha256: string;
		try {
			const payload = Buffer.from(text, "utf8");
			sha256 = createHash("sha256").update(payload).digest("hex");
			const header: Header = { skillset: HEADER_NAME, sha256 };
			const bytes = Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), payload]);
			let written = 0;
			while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
		} finally {
			closeSync(fd);
		}
		renameSync(temporary, join(folder, name));
		return sha256;
	} catch (error) {
		unlinkQuietly(temporary);
		throw error;
	}
}

/** Keeps the folder to {@link MAX_INDEX_FILES} index files (dropping the oldest) and removes dead writers' files. */
function pruneIndexFolder(folder: string, now: number): void {
	const names = readdirSync(folder);
	const indexes: { name: string; mtimeMs: number }[] = [];
	for (const name of names) {
		const info = lstatOrUndefined(join(folder, name));
		if (!info || info instanceof Error || !info.isFile()) continue;
		if (TEMP_NAME.test(name) && now - info.mtimeMs > STALE_TEMP_MS) unlinkQuietly(join(folder, name));
		else if (INDEX_NAME.test(name)) indexes.push({ name, mtimeMs: info.mtimeMs });
	}
	if (indexes.length <= MAX_INDEX_FILES) return;
	indexes.sort((a, b) => b.mtimeMs - a.mtimeMs);
	for (const { name } of indexes.slice(MAX_INDEX_FILES)) unlinkQuietly(join(folder, name));
}

/** `folder` when {@link checkIndexFolder} finds nothing wrong with it, else undefined (a failed check included). */
export function usableFolder(folder: string): string | undefined {
	try {
		return checkIndexFolder(folder) ? undefined : folder;
	} catch {
		return undefined;
	}
}

/**
 * The text kept under `key` in a checked `folder` and when it was written (its mtime, for the racy-git rule), or
 * undefined when there is none or it cannot be trusted (see {@link readIndexFile}).
 */
export function readKept(folder: string, key: string): IndexText | undefined {
	const read = readIndexFile(join(folder, indexFileName(key)));
	return "text" in read ? read : undefined;
}

/**
 * Keeps what `encode` gives (nothing when it gives undefined) under `key` in a checked `folder`, then prunes the
 * folder as of `now`. Returns the saved text's SHA-256, or undefined when nothing was written: a failed write only
 * costs a later run its speed.
 */
export function writeKept(
	folder: string,
	key: string,
	encode: () => string | undefined,
	now: number,
): string | undefined {
	let sha256: string;
	try {
		const text = encode();
		if (text === undefined) return undefined;
		sha256 = writeIndexFile(folder, indexFileName(key), text);
	} catch {
		// A full disk, a folder made read-only since the check, a value that cannot be written: nothing is kept.
		return undefined;
	}
	try {
		pruneIndexFolder(folder, now);
	} catch {
		// A folder that cannot be listed now: it is pruned by a later write.
	}
	return sha256;
}

/** The index file name for a root key: a hash, so no part of a path becomes a file name. */
export function indexFileName(key: string): string {
	return `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`;
}

// Per process: a running process cannot load new code, so what its code folders hold is read once per folder
// (the bundle folder is both stages' and every deriving stage's; one set of folders does not list it again for
// the next). A changed file still changes the stamp of the next process, which is the one that could read it.
const stamps = new Map<string, string>();
const folderStamps = new Map<string, string>();

/**
 * What the saved results depend on besides the files: this skillset's version and the files of its skill and
 * discovery stages (name, size, time), and of `extraFolders` (the stage that derives a value from discovery's
 * results, e.g. the catalog), so results saved by other code are never taken for this code's.
 */
export function codeStamp(extraFolders: readonly string[] = []): string {
	const id = extraFolders.join("\0");
	const known = stamps.get(id);
	if (known !== undefined) return known;
	const hash = createHash("sha256");
	const here = dirname(fileURLToPath(import.meta.url));
	try {
		hash.update(JSON.parse(readFileSync(join(here, "..", "..", "package.json"), "utf8")).version ?? "");
	} catch {
		hash.update("?");
	}
	for (const folder of [join(here, "..", "skill"), here, ...extraFolders]) hash.update(folderStamp(folder));
	const stamp = hash.digest("hex").slice(0, 16);
	stamps.set(id, stamp);
	return stamp;
}

function folderStamp(folder: string): string {
	const known = folderStamps.get(folder);
	if (known !== undefined) return known;
	let text = "";
	for (const name of readdirSync(folder).sort()) {
		// The code itself: compiled or source modules, not declaration files.
		if (name.endsWith(".d.ts") || !/\.[cm]?[jt]s$/.test(name)) continue;
		const info = statSync(join(folder, name));
		text += `\0${name}\0${info.size}\0${info.mtimeMs}`;
	}
	folderStamps.set(folder, text);
	return text;
}

function unsafeOwner(info: Stats, user: number, what: string): string | undefined {
	if (info.isSymbolicLink()) return `the ${what} is a symbolic link`;
	if (info.uid !== user) return `the ${what} belongs to user ${info.uid}, not to the current user ${user}`;
	if ((info.mode & 0o022) !== 0) return `the ${what} can be written by its group or by everyone`;
	return undefined;
}

function lstatOrUndefined(path: string): Stats | Error | undefined {
	try {
		return lstatSync(path);
	} catch (error) {
		return codeOf(error) === "ENOENT" ? undefined : (error as Error);
	}
}

function unlinkQuietly(path: string): void {
	try {
		unlinkSync(path);
	} catch {
		// Already gone (another writer renamed or removed it): nothing to undo.
	}
}

function codeOf(error: unknown): string {
	return (error as NodeJS.ErrnoException).code ?? String(error);
}
