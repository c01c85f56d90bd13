import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONVENTIONS } from "../discovery/index.ts";

/**
 * Whether a DIR the user named is a plain folder of skills (a collection checkout): a sub-folder of its own holds a
 * SKILL.md, and none of the conventional workspace folders exist in it. Such a folder is scanned as a root, as
 * `--root DIR` would; a workspace with `.agents/skills` (or the configured conventions) stays a workspace.
 */
export async function isPlainSkillsFolder(dir: string, conventions: readonly string[] | undefined): Promise<boolean> {
	for (const folder of new Set([...DEFAULT_CONVENTIONS, ...(conventions ?? [])])) {
		if (exists(join(dir, folder))) return false;
	}
	if (hasSkillFile(dir)) return false;
	for (const entry of listing(dir)) {
		if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
		if (hasSkillFile(join(dir, entry.name))) return true;
	}
	return false;
}

/** The names of the conventional folders, for the one line that says DIR is used as a root. */
export function conventionNames(conventions: readonly string[] | undefined): string {
	return [...new Set([...DEFAULT_CONVENTIONS, ...(conventions ?? [])])].join(", ");
}

// Asked synchronously: a few stats and listings of the one folder the user named (the promise API would cost every
// command that discovers its module and a thread pool).

function hasSkillFile(dir: string): boolean {
	return listing(dir).some((entry) => entry.name.toLowerCase() === "skill.md");
}

function listing(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}

function exists(path: string): boolean {
	try {
		return statSync(path, { throwIfNoEntry: false }) !== undefined;
	} catch {
		return false;
	}
}
