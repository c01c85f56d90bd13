import type { ContainOperations } from "./contain.ts";
import type { ContainCode } from "./contain-errors.ts";
import { listContained } from "./contain-list.ts";

/** A skill's bundled files by kind, as relative POSIX paths (sorted). */
export interface SkillResources {
	scripts: string[];
	references: string[];
	assets: string[];
	other: string[];
	/** True when the listing stopped at the bound: more files exist. */
	truncated: boolean;
	/** Links found in the folder; never followed or served. */
	links: string[];
	/** Folders that could not be listed (gone, not a folder any more, unreadable, moved out), with the code. */
	unreadable?: { path: string; code: ContainCode }[];
}

/** Bounds of a resource listing. */
export interface ListResourcesOptions {
	/** Most files listed. Default 200. */
	maxFiles?: number;
	/** Deepest folder listed below the skill folder. Default 6. */
	maxDepth?: number;
	operations?: ContainOperations;
}

const KINDS = ["scripts", "references", "assets"] as const;

/**
 * Lists the files of a skill folder (not SKILL.md itself) breadth-first in name order, never following links,
 * skipping `.git` and `node_modules`, and bounded: a bound hit sets `truncated`. Each folder is listed through the
 * contained reader (proven inside the skill folder); one that cannot be is in `unreadable` with its code, and the
 * listing goes on.
 */
export function listResources(dir: string, options: ListResourcesOptions = {}): SkillResources {
	const maxFiles = options.maxFiles ?? 200;
	const maxDepth = options.maxDepth ?? 6;
	const result: SkillResources = { scripts: [], references: [], assets: [], other: [], truncated: false, links: [] };
	let count = 0;
	let level: { rel: string; depth: number }[] = [{ rel: "", depth: 0 }];
	while (level.length > 0 && !result.truncated) {
		const next: typeof level = [];
		for (const folder of level) {
			const listed = listContained(dir, folder.rel, options.operations);
			if (!listed.ok) {
				result.unreadable = [...(result.unreadable ?? []), { path: folder.rel || ".", code: listed.code }];
				continue;
			}
			for (const entry of listed.entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
				const rel = folder.rel ? `${folder.rel}/${entry.name}` : entry.name;
				if (entry.kind === "symlink") result.links.push(rel);
				else if (entry.kind === "directory") {
					if (entry.name === ".git" || entry.name === "node_modules") continue;
					if (folder.depth + 1 <= maxDepth) next.push({ rel, depth: folder.depth + 1 });
					else result.truncated = true;
				} else if (entry.kind === "file" && !(folder.depth === 0 && entry.name.toLowerCase() === "skill.md")) {
					if (count >= maxFiles) {
						result.truncated = true;
						break;
					}
					count++;
					kindOf(rel, result).push(rel);
				}
			}
			if (result.truncated) break;
		}
		level = next;
	}
	return result;
}

function kindOf(rel: string, result: SkillResources): string[] {
	const top = rel.split("/")[0];
	const kind = KINDS.find((k) => k === top);
	return kind ? result[kind] : result.other;
}

/** Every listed file, in kind order. */
export function allResources(resources: SkillResources): string[] {
	return [...resources.scripts, ...resources.references, ...resources.assets, ...resources.other];
}
