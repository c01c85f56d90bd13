import type { Dirent } from "node:fs";
import {
	type ContainOperations,
	checkRelativePath,
	DIR_FLAGS,
	isInside,
	NODE_CONTAIN_OPERATIONS,
	type OpenedRoot,
	openAt,
	openRoot,
	procPath,
	readLink,
	rootInPlace,
} from "./contain.ts";
import type { ContainError } from "./contain-errors.ts";
import { describeError, openCode, refusal, unverifiable } from "./contain-errors.ts";

/** An entry of a contained folder listing. */
export interface ContainedEntry {
	name: string;
	kind: "file" | "directory" | "symlink" | "other";
}

/** A listed entry as a contained listing reports it: a link is a link, whatever it points to. */
export function containedEntry(entry: Dirent): ContainedEntry {
	if (entry.isSymbolicLink()) return { name: entry.name, kind: "symlink" };
	if (entry.isDirectory()) return { name: entry.name, kind: "directory" };
	return { name: entry.name, kind: entry.isFile() ? "file" : "other" };
}

/**
 * Lists one folder inside `root` (`""` for the root itself) with the same proof as {@link readContained}: the
 * folder is opened without following a link, shown by the kernel to lie inside the root, and listed through its
 * descriptor. Links are reported as links, never followed.
 */
export function listContained(
	root: string,
	relPath: string,
	operations: ContainOperations = NODE_CONTAIN_OPERATIONS,
): { ok: true; entries: ContainedEntry[] } | ContainError {
	const segments = relPath === "" ? [] : checkRelativePath(relPath);
	if (!Array.isArray(segments)) return segments;
	const opened = openRoot(root, operations);
	if ("ok" in opened) return opened;
	try {
		if (segments.length === 0) return listOpened(opened, opened.fd, "", operations);
		const path = segments.join("/");
		const fd = openAt(opened, path, DIR_FLAGS, operations);
		if (typeof fd !== "number") return fd;
		try {
			return listOpened(opened, fd, path, operations);
		} finally {
			operations.close(fd);
		}
	} finally {
		operations.close(opened.fd);
	}
}

function listOpened(
	opened: OpenedRoot,
	fd: number,
	path: string,
	ops: ContainOperations,
): { ok: true; entries: ContainedEntry[] } | ContainError {
	if (fd !== opened.fd) {
		const real = readLink(procPath(fd), ops);
		if (real === undefined) return unverifiable();
		if (real === opened.root || !isInside(opened.root, real)) {
			return refusal("resource.outside", `'${path}' resolved outside the skill folder while it was being opened`);
		}
	}
	let dirents: Dirent[];
	try {
		dirents = ops.readdir(procPath(fd));
	} catch (error) {
		return refusal(openCode(error), `'${path || "."}' ${describeError(error)}`);
	}
	const inPlace = rootInPlace(opened, ops);
	if (inPlace === undefined) return unverifiable();
	if (!inPlace) return refusal("resource.changed", `the skill folder moved while '${path || "."}' was listed`);
	return { ok: true, entries: dirents.map(containedEntry) };
}
