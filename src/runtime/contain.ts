import {
	closeSync,
	constants,
	type Dirent,
	fstatSync,
	lstatSync,
	openSync,
	readdirSync,
	read as readFd,
	readlinkSync,
	readSync,
	type Stats,
} from "node:fs";
import { isAbsolute, posix, relative, resolve, sep, win32 } from "node:path";
import { type ContainError, describeError, errorCode, openCode, refusal, unverifiable } from "./contain-errors.ts";

/** The bytes of a file inside the root, read once from the descriptor that was verified. */
export interface ContainedFile {
	ok: true;
	/** The relative POSIX path, as normalised. */
	path: string;
	/** The absolute real path of the file that was opened, as the kernel reported it after the open. */
	absolute: string;
	bytes: Uint8Array;
	size: number;
}

/** The file-system calls a contained read makes; tests wrap them to race the checks. */
export interface ContainOperations {
	/** `lstat` of a path (links are not followed). */
	lstat(path: string): Stats;
	/** Opens a file with `flags` (the reader passes `O_NOFOLLOW`); returns the descriptor. */
	open(path: string, flags: number): number;
	/** `fstat` of an open descriptor: what was really opened. */
	fstat(fd: number): Stats;
	/** Reads a link; used on `/proc/self/fd/N` to learn where an open descriptor really is. */
	readlink(path: string): string;
	/** A folder's entries with their types. */
	readdir(path: string): Dirent[];
	/** Reads up to `length` bytes at `position` into `buffer`; returns how many were read. */
	read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
	/** Reads without blocking the event loop (the thread pool); without it, async reads use `read` per chunk. */
	readAsync?(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
	/** Closes a descriptor the reader opened. */
	close(fd: number): void;
}

/** The Node implementation of {@link ContainOperations}. */
export const NODE_CONTAIN_OPERATIONS: ContainOperations = {
	lstat: (path) => lstatSync(path),
	open: (path, flags) => openSync(path, flags),
	fstat: (fd) => fstatSync(fd),
	readlink: (path) => readlinkSync(path),
	readdir: (path) => readdirSync(path, { withFileTypes: true }),
	read: (fd, buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
	readAsync: (fd, buffer, offset, length, position) =>
		new Promise((resolve, reject) => {
			readFd(fd, buffer, offset, length, position, (error, count) => (error ? reject(error) : resolve(count)));
		}),
	close: (fd) => closeSync(fd),
};

/** Options for {@link readContained}. */
export interface ContainOptions {
	/** Largest file served, in bytes. Default 8 MiB. */
	maxBytes?: number;
	/** Accept files with more than one hard link (default false: a hard link can alias a file outside). */
	allowHardLinks?: boolean;
	operations?: ContainOperations;
}

/** Default cap for one resource read. */
export const DEFAULT_MAX_RESOURCE_BYTES: number = 8 * 1024 * 1024;

// Flags that are undefined on a platform are 0 there. O_NONBLOCK: a FIFO swapped in for a file must not block the
// open; O_NOCTTY: a terminal device reached through a swapped folder must not become our controlling terminal.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Flags for opening a file of a skill: no link followed, never blocking, never a controlling terminal. */
export const FILE_FLAGS: number =
	constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
/** Flags for opening a folder of a skill: no link followed, never blocking. */
export const DIR_FLAGS: number = FILE_FLAGS | (constants.O_DIRECTORY ?? 0);

/**
 * Checks a relative path lexically: a non-empty string without NUL, not absolute on any platform, no drive letter,
 * no backslash, no `..` segment. Returns its normalised segments (NFC, without `.` and empty ones), or a refusal.
 */
export function checkRelativePath(relPath: unknown): string[] | ContainError {
	const refuse = (message: string): ContainError => ({ ok: false, code: "resource.invalid-path", message });
	if (typeof relPath !== "string" || relPath.trim() === "") return refuse("The path must be a non-empty string");
	if (relPath.includes("\u0000")) return refuse("The path contains a NUL character");
	if (posix.isAbsolute(relPath) || win32.isAbsolute(relPath) || /^[A-Za-z]:/.test(relPath)) {
		return refuse(`'${relPath}' is absolute; give a path relative to the skill folder, e.g. references/guide.md`);
	}
	if (relPath.includes("\\")) return refuse(`'${relPath}' contains a backslash; use / between folders`);
	const segments = relPath
		.normalize("NFC")
		.split("/")
		.filter((segment) => segment !== "" && segment !== ".");
	if (segments.includes("..")) return refuse(`'${relPath}' leaves the skill folder with '..'`);
	if (segments.length === 0) return refuse(`'${relPath}' names the skill folder itself, not a file`);
	return segments;
}

/**
 * Reads a file inside `root` (an absolute real path) without ever leaving it, whatever happens to the paths
 * meanwhile. The root is opened once as a folder and every later lookup starts from that descriptor
 * (`/proc/self/fd/N/…`); the file is opened with `O_NOFOLLOW | O_NONBLOCK`, must be a regular file with one link
 * and the identity the `lstat` walk saw, and is then proven inside: the kernel's path of the opened descriptor
 * lies below the root, and the root descriptor is still the folder at `root`. Where that proof is unavailable
 * (no `/proc`), the read is refused with `resource.unverifiable`.
 */
export function readContained(
	root: string,
	relPath: unknown,
	options: ContainOptions = {},
): ContainedFile | ContainError {
	const ops = options.operations ?? NODE_CONTAIN_OPERATIONS;
	const segments = checkRelativePath(relPath);
	if (!Array.isArray(segments)) return segments;
	const opened = openRoot(root, ops);
	if ("ok" in opened) return opened;
	try {
		const checked = lstatSegments(opened.base, segments, ops);
		if ("ok" in checked) return checked;
		return readVerified(opened, segments.join("/"), checked, options, ops);
	} finally {
		ops.close(opened.fd);
	}
}

/** A skill folder opened as a descriptor. */
export interface OpenedRoot {
	root: string;
	fd: number;
	/** The root as a path through its descriptor: lookups below it start from the opened folder. */
	base: string;
	/** The descriptor's device and inode, taken once: an open descriptor's identity never changes. */
	dev: number;
	ino: number;
}

/**
 * Opens the root folder and checks that the descriptor is the folder at its real path. A caller that proves the
 * root in place after opening its file anyway (`openVerified` does) may pass `proveNow` false: the kernel's path of
 * the descriptor is then read once, by that proof, instead of twice (lookups below the descriptor stay inside the
 * folder opened whatever its path, and a folder that is not at `root` is refused by the proof).
 */
export function openRoot(rootPath: string, ops: ContainOperations, proveNow = true): OpenedRoot | ContainError {
	const root = resolve(rootPath);
	// Windows has no descriptor paths to prove containment with (and cannot open a folder as a file).
	if (process.platform === "win32") return unverifiable();
	let fd: number;
	try {
		fd = ops.open(root, DIR_FLAGS);
	} catch (error) {
		return refusal(openCode(error), `the skill folder ${root} cannot be opened (${errorCode(error)})`);
	}
	const proof = procPath(fd);
	const here = proveNow ? readLink(proof, ops) : root;
	const info = here === undefined ? undefined : ops.fstat(fd);
	if (here === undefined || !info?.isDirectory()) {
		ops.close(fd);
		return unverifiable();
	}
	if (here !== root) {
		ops.close(fd);
		return refusal("resource.changed", `the skill folder is not at ${root} any more (or that is not its real path)`);
	}
	return { root, fd, base: proof, dev: info.dev, ino: info.ino };
}

/** `lstat` each segment below the root descriptor: no links anywhere, and the last one must be a regular file. */
export function lstatSegments(base: string, segments: string[], ops: ContainOperations): Stats | ContainError {
	let info: Stats | undefined;
	// Checked segments (no separator, `.`, `..` or empty one) below a descriptor path: joining is concatenation.
	let at = base;
	for (const [index, segment] of segments.entries()) {
		at = `${at}/${segment}`;
		// The path as the caller wrote it, up to this segment: made only for a refusal (every read passes here).
		const shown = () => segments.slice(0, index + 1).join("/");
		try {
			info = ops.lstat(at);
		} catch (error) {
			return refusal(openCode(error), `'${shown()}' ${describeError(error)}`);
		}
		if (info.isSymbolicLink())
			return refusal("resource.symlink", `'${shown()}' is a symbolic link; links are not followed`);
		const last = index === segments.length - 1;
		if (!last && !info.isDirectory()) return refusal("resource.not-found", `'${shown()}' is not a folder`);
	}
	if (!info?.isFile()) return refusal("resource.not-file", `'${segments.join("/")}' is not a regular file`);
	return info;
}

function readVerified(
	opened: OpenedRoot,
	path: string,
	checked: Stats,
	options: ContainOptions,
	ops: ContainOperations,
): ContainedFile | ContainError {
	const file = openVerified(opened, path, checked, options, ops);
	if ("ok" in file) return file;
	try {
		const bytes = readAll(file.fd, file.size, ops);
		return { ok: true, path, absolute: file.absolute, bytes, size: bytes.length };
	} finally {
		ops.close(file.fd);
	}
}

/** A file opened below the root and proven to be the one checked, inside the root and within the cap. */
export interface VerifiedFile {
	fd: number;
	size: number;
	absolute: string;
}

/**
 * Opens `path` below the root and checks the descriptor: a regular file, the identity the `lstat` walk saw, one
 * link (unless allowed), inside the root by the kernel's path, and within the size cap. On a refusal the
 * descriptor is closed; otherwise the caller reads it and closes it.
 */
export function openVerified(
	opened: OpenedRoot,
	path: string,
	checked: Stats,
	options: ContainOptions,
	ops: ContainOperations,
): VerifiedFile | ContainError {
	const fd = openAt(opened, path, FILE_FLAGS, ops);
	if (typeof fd !== "number") return fd;
	let verified: VerifiedFile | undefined;
	try {
		const info = ops.fstat(fd);
		if (!info.isFile()) return refusal("resource.not-file", `'${path}' is not a regular file`);
		if (info.dev !== checked.dev || info.ino !== checked.ino) {
			return refusal("resource.changed", `'${path}' was replaced while it was being opened`);
		}
		if (info.nlink > 1 && !options.allowHardLinks) {
			return refusal("resource.hardlink", `'${path}' has ${info.nlink} hard links; it may alias a file elsewhere`);
		}
		const absolute = proveInside(opened, fd, path, ops);
		if (typeof absolute !== "string") return absolute;
		const max = options.maxBytes ?? DEFAULT_MAX_RESOURCE_BYTES;
		if (info.size > max) return refusal("resource.too-large", `'${path}' is ${info.size} bytes; the cap is ${max}`);
		verified = { fd, size: info.size, absolute };
		return verified;
	} finally {
		if (!verified) ops.close(fd);
	}
}

/** Opens `path` below the root descriptor, mapping failures to codes. */
export function openAt(opened: OpenedRoot, path: string, flags: number, ops: ContainOperations): number | ContainError {
	try {
		return ops.open(`${opened.base}/${path}`, flags);
	} catch (error) {
		return refusal(openCode(error), `'${path}' ${describeError(error)}`);
	}
}

/**
 * The proof, taken after the open: the kernel's path of the opened descriptor lies strictly below the root, and
 * the root descriptor is still the folder at the root's path (by the kernel's path for it, and by dev and ino).
 * Returns the opened file's real path.
 */
function proveInside(opened: OpenedRoot, fd: number, path: string, ops: ContainOperations): string | ContainError {
	const real = readLink(procPath(fd), ops);
	if (real === undefined) return unverifiable();
	if (!strictlyBelow(opened.root, real)) {
		return refusal("resource.outside", `'${path}' resolved outside the skill folder while it was being opened`);
	}
	const inPlace = rootInPlace(opened, ops);
	if (inPlace === undefined) return unverifiable();
	if (!inPlace) return refusal("resource.changed", `the skill folder moved while '${path}' was read`);
	return real;
}

/**
 * Whether the root descriptor is still the folder at the root's path, by the kernel's path for it and by dev and
 * ino; undefined when the system cannot tell.
 */
export function rootInPlace(opened: OpenedRoot, ops: ContainOperations): boolean | undefined {
	const now = readLink(opened.base, ops);
	if (now === undefined) return undefined;
	if (now !== opened.root) return false;
	try {
		const atPath = ops.lstat(opened.root);
		return atPath.dev === opened.dev && atPath.ino === opened.ino;
	} catch {
		return false;
	}
}

/** Reads up to `size` bytes of a descriptor from its start; a file that shrank meanwhile ends early. */
export function readAll(fd: number, size: number, ops: ContainOperations): Uint8Array {
	const bytes = new Uint8Array(size);
	let filled = 0;
	while (filled < bytes.length) {
		const count = ops.read(fd, bytes, filled, bytes.length - filled, filled);
		if (count === 0) break;
		filled += count;
	}
	return bytes.subarray(0, filled);
}

/** The `/proc` path that names an open descriptor. */
export function procPath(fd: number): string {
	return `/proc/self/fd/${fd}`;
}

/** Reads a link, or undefined when it cannot be read. */
export function readLink(path: string, ops: ContainOperations): string | undefined {
	try {
		return ops.readlink(path);
	} catch {
		return undefined;
	}
}

/**
 * True when `target` lies strictly below `root`, both absolute and normalised (a resolved root, a kernel path): a
 * prefix test up to a separator, the same answer as {@link isInside} without resolving either path on every read.
 */
function strictlyBelow(root: string, target: string): boolean {
	return target.length > root.length && target.startsWith(root) && (root.endsWith(sep) || target[root.length] === sep);
}

/** True when `target` is `root` itself or below it (not a sibling that merely shares a prefix). */
export function isInside(root: string, target: string): boolean {
	const rel = relative(root, target);
	return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
