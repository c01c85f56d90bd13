// A skill folder opened once for reading many of its files (the audit reads whole packages). The per-file reader
// re-opens and re-proves the root for every file, about twelve system calls each; here the root is proven once and
// its descriptor kept, each folder is opened from its parent's descriptor and each file from its folder's, always
// one name at a time with O_NOFOLLOW (`/proc/self/fd/N/name` is openat(N, name) on Linux). A link is therefore
// never followed at any component, and every opened folder and file is still shown by the kernel to lie below the
// root before anything of it is used. A file costs open, fstat, readlink, read and close.

import type { Stats } from "node:fs";
import {
	type ContainedFile,
	type ContainOperations,
	DEFAULT_MAX_RESOURCE_BYTES,
	DIR_FLAGS,
	FILE_FLAGS,
	isInside,
	NODE_CONTAIN_OPERATIONS,
	type OpenedRoot,
	openRoot,
	procPath,
	readAll,
	readLink,
} from "./contain.ts";
import { type ContainError, describeError, errorCode, openCode, refusal, unverifiable } from "./contain-errors.ts";
import { type ContainedEntry, containedEntry } from "./contain-list.ts";

/** A refusal of the tree: the system's error name when a call failed, the size and mode of a file over the cap. */
export interface TreeError extends ContainError {
	errno?: string;
	size?: number;
	mode?: number;
}

/** A file read through a tree: its bytes, and the mode its descriptor showed. */
export interface TreeFile extends ContainedFile {
	mode: number;
}

/** Options of {@link ContainedTree.read}. */
export interface TreeReadOptions {
	/** Largest file read, in bytes (default 8 MiB); a larger one is refused with its size, before any read. */
	maxBytes?: number;
	/** Accept files with more than one hard link (default false). */
	allowHardLinks?: boolean;
}

/**
 * Opens `root` (an absolute real path) for contained reads of many files: the root is opened and proven once, as
 * {@link readContained} does per file. Returns its refusal when that fails (no `/proc`: `resource.unverifiable`).
 * Close the tree when done.
 */
export function openContainedTree(
	root: string,
	operations: ContainOperations = NODE_CONTAIN_OPERATIONS,
): ContainedTree | ContainError {
	const opened = openRoot(root, operations);
	if ("ok" in opened) return opened;
	return new ContainedTree(opened, operations);
}

/** An open skill folder; paths are relative, `/`-separated, taken name by name as the folder listing gave them. */
export class ContainedTree {
	/** The root's real path. */
	readonly root: string;
	readonly #ops: ContainOperations;
	/** Open folders from the root down to the last one used; a walk reads a folder's files in a row. */
	readonly #chain: { name: string; fd: number }[];

	constructor(opened: OpenedRoot, operations: ContainOperations) {
		this.root = opened.root;
		this.#ops = operations;
		this.#chain = [{ name: "", fd: opened.fd }];
	}

	/** Lists a folder (`""` for the root) through its descriptor; links are reported as links, never followed. */
	list(relPath: string): { ok: true; entries: ContainedEntry[] } | TreeError {
		const names = relPath === "" ? [] : treeNames(relPath);
		if (!Array.isArray(names)) return names;
		const fd = this.#folder(names);
		if (typeof fd !== "number") return fd;
		try {
			return { ok: true, entries: this.#ops.readdir(procPath(fd)).map(containedEntry) };
		} catch (error) {
			return failed(error, relPath || ".");
		}
	}

	/**
	 * Reads a regular file: opened from its folder's descriptor without following a link and without blocking, then
	 * checked on the descriptor (a regular file, hard links, below the root by the kernel's path, within the cap)
	 * before a byte is read. Reads at most the size `fstat` showed, so a growing file cannot run on.
	 */
	read(relPath: string, options: TreeReadOptions = {}): TreeFile | TreeError {
		const names = treeNames(relPath);
		if (!Array.isArray(names)) return names;
		const folder = this.#folder(names.slice(0, -1));
		if (typeof folder !== "number") return folder;
		const ops = this.#ops;
		let fd: number;
		try {
			fd = ops.open(`${procPath(folder)}/${names.at(-1)}`, FILE_FLAGS);
		} catch (error) {
			return failed(error, relPath);
		}
		try {
			const info = ops.fstat(fd);
			if (!info.isFile()) return refusal("resource.not-file", `'${relPath}' is not a regular file`);
			if (info.nlink > 1 && !options.allowHardLinks) {
				return refusal("resource.hardlink", `'${relPath}' has ${info.nlink} hard links; it may alias a file elsewhere`);
			}
			const absolute = this.#proveBelow(fd, relPath);
			if (typeof absolute !== "string") return absolute;
			const max = options.maxBytes ?? DEFAULT_MAX_RESOURCE_BYTES;
			if (info.size > max) {
				const message = `'${relPath}' is ${info.size} bytes; the cap is ${max}`;
				return { ...refusal("resource.too-large", message), size: info.size, mode: info.mode };
			}
			const bytes = readAll(fd, info.size, ops);
			return { ok: true, path: relPath, absolute, bytes, size: bytes.length, mode: info.mode };
		} finally {
			ops.close(fd);
		}
	}

	/** `lstat` of an entry, looked up in its folder's descriptor (for reporting what could not be opened). */
	lstat(relPath: string): { ok: true; stats: Stats } | TreeError {
		const names = treeNames(relPath);
		if (!Array.isArray(names)) return names;
		const folder = this.#folder(names.slice(0, -1));
		if (typeof folder !== "number") return folder;
		try {
			return { ok: true, stats: this.#ops.lstat(`${procPath(folder)}/${names.at(-1)}`) };
		} catch (error) {
			return failed(error, relPath);
		}
	}

	/** Closes every descriptor the tree holds; later calls are refused. */
	close(): void {
		for (const { fd } of this.#chain.splice(0)) this.#ops.close(fd);
	}

	/** The descriptor of the folder `names` below the root, reusing the open chain's common part. */
	#folder(names: readonly string[]): number | TreeError {
		const chain = this.#chain;
		if (chain.length === 0) return refusal("resource.changed", "the skill folder was closed");
		let keep = 1;
		while (keep < chain.length && keep <= names.length && chain[keep]?.name === names[keep - 1]) keep++;
		for (const dropped of chain.splice(keep)) this.#ops.close(dropped.fd);
		for (let index = keep - 1; index < names.length; index++) {
			const shown = names.slice(0, index + 1).join("/");
			const parent = chain[chain.length - 1] as { fd: number };
			let fd: number;
			const path = `${procPath(parent.fd)}/${names[index]}`;
			try {
				fd = this.#ops.open(path, DIR_FLAGS);
			} catch (error) {
				return this.#linkOr(path, shown, failed(error, shown));
			}
			const proven = this.#proveBelow(fd, shown);
			if (typeof proven !== "string") {
				this.#ops.close(fd);
				return proven;
			}
			chain.push({ name: names[index] as string, fd });
		}
		return (chain[chain.length - 1] as { fd: number }).fd;
	}

	/** A folder open refused as "not a folder" (ENOTDIR) is named a link when the name is one, as the lstat walk did. */
	#linkOr(path: string, shown: string, error: TreeError): TreeError {
		if (error.errno !== "ENOTDIR") return error;
		try {
			if (!this.#ops.lstat(path).isSymbolicLink()) return error;
		} catch {
			return error;
		}
		return {
			...refusal("resource.symlink", `'${shown}' is a symbolic link; links are not followed`),
			errno: error.errno,
		};
	}

	/** The kernel's path of an opened descriptor, proven strictly below the root; a refusal otherwise. */
	#proveBelow(fd: number, shown: string): string | TreeError {
		const real = readLink(procPath(fd), this.#ops);
		if (real === undefined) return unverifiable();
		if (real === this.root || !isInside(this.root, real)) {
			return refusal("resource.outside", `'${shown}' resolved outside the skill folder while it was being opened`);
		}
		return real;
	}
}

/**
 * The names of a relative path as a listing gives them (no Unicode normalisation, a backslash is part of a name):
 * non-empty, no NUL, not absolute, no `.` or `..` name.
 */
export function treeNames(relPath: unknown): string[] | TreeError {
	const refuse = (message: string) => refusal("resource.invalid-path", message);
	if (typeof relPath !== "string" || relPath === "") return refuse("The path must be a non-empty string");
	if (relPath.includes("\u0000")) return refuse("The path contains a NUL character");
	const names = relPath.split("/");
	if (names.some((name) => name === "" || name === "." || name === "..")) {
		return refuse(`'${relPath}' is not a plain relative path (an empty, '.' or '..' name, or a leading '/')`);
	}
	return names;
}

function failed(error: unknown, shown: string): TreeError {
	return { ...refusal(openCode(error), `'${shown}' ${describeError(error)}`), errno: errorCode(error) };
}
