import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_CONVENTIONS } from "../discovery/index.ts";

/**
 * Whether a DIR the user named is a plain folder of skills (a collection checkout): a sub-folder of its own holds a
 * SKILL.md, and none of the conventional workspace folders exist in it. Such a folder is scanned as a root, as
 * `--root DIR` would; a workspace with `.agents/skills` (or the configured conventions) stays a workspace.
 */
export async function isPlainSkillsFolder(dir: string, conventions: readonly string[] | undefined): Promise<boolean> {
	for (const folder of new Set([...DEFAULT_CONVENTIONS, ...(conventions ?? [])])) {
		if (await exists(join(dir, folder))) return false;
	}
	if (await hasSkillFile(dir)) return false;
	const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
	for (const entry of entries) {
		if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
		if (await hasSkillFile(join(dir, entry.name))) return true;
	}
	return false;
}

/** The names of the conventional folders, for the one line that says DIR is used as a root. */
export function conventionNames(conventions: readonly string[] | undefined): string {
	return [...new Set([...DEFAULT_CONVENTIONS, ...(conventions ?? [])])].join(", ");
}

async function hasSkillFile(dir: string): Promise<boolean> {
	const names = await readdir(dir).catch(() => []);
	return names.some((name) => name.toLowerCase() === "skill.md");
}

async function exists(path: string): Promise<boolean> {
	return (await stat(path).catch(() => undefined)) !== undefined;
}
