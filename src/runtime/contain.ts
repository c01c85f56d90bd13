import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from "node:fs";
import { isAbsolute, join, posix, relative, sep, win32 } from "node:path";

/** Why a contained read was refused. */
export type ContainCode =
	| "resource.invalid-path"
	| "resource.outside"
	| "resource.symlink"
	| "resource.hardlink"
	| "resource.not-found"
	| "resource.not-file"
	| "resource.too-large"
	| "resource.changed";

/** A refusal: the code, and a message a model can act on. */
export interface ContainError {
	ok: false;
	code: ContainCode;
	message: string;
}

/** The bytes of a file inside the root, read once from the descriptor that was verified. */
export interface ContainedFile {
	ok: true;
	/** The relative POSIX path, as normalised. */
	path: string;
	/** The absolute real path. */
	absolute: string;
	bytes: Uint8Array;
	size: number;
}

/** The file-system calls a contained read makes; tests wrap them to race the checks. */
export interface ContainOperations {
	lstat(path: string): Stats;
	realpath(path: string): string;
	open(path: string, flags: number): number;
	fstat(fd: number): Stats;
	read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
	close(fd: number): void;
}

/** The Node implementation of {@link ContainOperations}. */
export const NODE_CONTAIN_OPERATIONS: ContainOperations = {
	lstat: (path) => lstatSync(path),
	realpath: (path) => realpathSync.native(path),
	open: (path, flags) => openSync(path, flags),
	fstat: (fd) => fstatSync(fd),
	read: (fd, buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
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

// O_NOFOLLOW is undefined on Windows, where links need privileges to create; 0 leaves the flag out.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

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
 * Reads a file inside `root` (an absolute real path) without ever leaving it: lexical checks, an `lstat` of every
 * segment (no links), a realpath containment check, an `O_NOFOLLOW` open, an `fstat` identity check against the
 * `lstat`, no hard links, a size cap, and one read of the verified descriptor.
 */
export function readContained(
	root: string,
	relPath: unknown,
	options: ContainOptions = {},
): ContainedFile | ContainError {
	const ops = options.operations ?? NODE_CONTAIN_OPERATIONS;
	const segments = checkRelativePath(relPath);
	if (!Array.isArray(segments)) return segments;
	const path = segments.join("/");
	const target = join(root, ...segments);
	if (!isInside(root, target)) return refusal("resource.outside", `'${path}' is outside the skill folder`);
	const checked = lstatSegments(root, segments, ops);
	if ("ok" in checked) return checked;
	let real: string;
	try {
		real = ops.realpath(target);
	} catch {
		return refusal("resource.not-found", `'${path}' does not exist`);
	}
	if (!isInside(root, real)) return refusal("resource.outside", `'${path}' resolves outside the skill folder`);
	return readVerified(target, path, checked, options, ops);
}

/** `lstat` each segment from the root down: no links anywhere, and the last one must be a regular file. */
function lstatSegments(root: string, segments: string[], ops: ContainOperations): Stats | ContainError {
	let current = root;
	let info: Stats | undefined;
	for (const [index, segment] of segments.entries()) {
		current = join(current, segment);
		const shown = segments.slice(0, index + 1).join("/");
		try {
			info = ops.lstat(current);
		} catch {
			return refusal("resource.not-found", `'${shown}' does not exist`);
		}
		if (info.isSymbolicLink())
			return refusal("resource.symlink", `'${shown}' is a symbolic link; links are not followed`);
		const last = index === segments.length - 1;
		if (!last && !info.isDirectory()) return refusal("resource.not-found", `'${shown}' is not a folder`);
	}
	if (!info?.isFile()) return refusal("resource.not-file", `'${segments.join("/")}' is not a regular file`);
	return info;
}

function readVerified(
	target: string,
	path: string,
	checked: Stats,
	options: ContainOptions,
	ops: ContainOperations,
): ContainedFile | ContainError {
	let fd: number;
	try {
		fd = ops.open(target, constants.O_RDONLY | NOFOLLOW);
	} catch {
		return refusal("resource.changed", `'${path}' changed while it was being opened; try again`);
	}
	try {
		const opened = ops.fstat(fd);
		if (!opened.isFile() || opened.dev !== checked.dev || opened.ino !== checked.ino) {
			return refusal("resource.changed", `'${path}' was replaced while it was being opened`);
		}
		if (opened.nlink > 1 && !options.allowHardLinks) {
			return refusal("resource.hardlink", `'${path}' has ${opened.nlink} hard links; it may alias a file elsewhere`);
		}
		const max = options.maxBytes ?? DEFAULT_MAX_RESOURCE_BYTES;
		if (opened.size > max) return refusal("resource.too-large", `'${path}' is ${opened.size} bytes; the cap is ${max}`);
		const bytes = new Uint8Array(opened.size);
		let filled = 0;
		while (filled < bytes.length) {
			const count = ops.read(fd, bytes, filled, bytes.length - filled, filled);
			if (count === 0) break;
			filled += count;
		}
		return { ok: true, path, absolute: target, bytes: bytes.subarray(0, filled), size: filled };
	} finally {
		ops.close(fd);
	}
}

/** True when `target` is `root` itself or below it (not a sibling that merely shares a prefix). */
export function isInside(root: string, target: string): boolean {
	const rel = relative(root, target);
	return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

function refusal(code: ContainCode, message: string): ContainError {
	return { ok: false, code, message };
}
