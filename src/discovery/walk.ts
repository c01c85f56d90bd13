import { realpathSync, type Stats, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import type * as SkillStage from "../skill/index.ts";
import { type DiscoveryDiagnostic, discoveryDiagnostic } from "./codes.ts";
import {
	below,
	type Candidate,
	childRel,
	compareNames,
	type DirEntry,
	isSkillFileEntry,
	type ListDir,
	listDir,
	skillCandidate,
} from "./folder.ts";
import { forEachInBatches } from "./pool.ts";
import type { DiscoveryRoot } from "./roots.ts";
import { statOrUndefined } from "./signature.ts";

/** Bounds of one root's walk. Hitting one is a diagnostic, never a failure. */
export interface WalkLimits {
	/** Deepest folder scanned, counted from the root (its children are depth 1). Default 6. */
	maxDepth: number;
	/** Most folders listed per root. Default 2,000. */
	maxDirs: number;
	/** Most directory entries seen per root. Default 20,000. */
	maxEntries: number;
}

/** The bounds of DESIGN.md §3, for conventional and preset roots (Codex's folder bound). */
export const DEFAULT_WALK_LIMITS: Readonly<WalkLimits> = { maxDepth: 6, maxDirs: 2000, maxEntries: 20_000 };

/** The bounds for a root the user named (`roots`, `--root`): big collections are what such roots are for. */
export const DEFAULT_EXPLICIT_WALK_LIMITS: Readonly<WalkLimits> = {
	maxDepth: 6,
	maxDirs: 100_000,
	maxEntries: 1_000_000,
};

/** What the walk of one root found, and what it skipped. */
export interface RootWalk {
	root: DiscoveryRoot;
	exists: boolean;
	candidates: Candidate[];
	/** Skill folders rejected at the walk (a symlinked SKILL.md), with why. */
	rejected: Candidate[];
	diagnostics: DiscoveryDiagnostic[];
	counts: { dirs: number; entries: number };
	bounds: { depth: boolean; dirs: boolean; entries: boolean };
}

/** Options for {@link walkRoot}. */
export interface WalkOptions {
	limits: WalkLimits;
	/** Follow links to folders (default true), with a visited set against loops. */
	followSymlinks: boolean;
	/** Accept a SKILL.md that is a link (default false). */
	allowSymlinkedSkillFile: boolean;
	/** Scan hidden folders below the root too (`.git` and `node_modules` stay skipped). Default false. */
	includeHidden?: boolean;
	listDir?: ListDir;
	/** Filled in with what the walk depended on besides its listings (for reusing its result). */
	record?: WalkRecord;
}

/** What a walk depended on besides the listings of the folders it listed. */
export interface WalkRecord {
	/** The root's real path, as the walk resolved it. */
	real?: string;
	/** Folders looked into for a nested SKILL.md without being listed. */
	probes: string[];
	/** True when a link was met (followed, or a linked SKILL.md): no listing covers where it leads. */
	links: boolean;
}

const SKIPPED_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git"]);
const RESOURCE_DIRS: ReadonlySet<string> = new Set(["scripts", "references", "assets"]);

interface Pending {
	dir: string;
	real: string;
	/** `dir` relative to the root, with `/` separators ("" for the root). */
	rel: string;
	depth: number;
}

interface Link {
	path: string;
	parent: Pending;
}

/**
 * Walks one root breadth-first, level by level in name order (so bounds cut the same folders every time), listing
 * folders in batches between turns of the event loop. A folder holding a SKILL.md is a skill: the walk does not go into it. Hidden folders,
 * `.git` and `node_modules` below the root are skipped; folder links are followed once per real path.
 */
export async function walkRoot(root: DiscoveryRoot, options: WalkOptions): Promise<RootWalk> {
	const walk: RootWalk = {
		root,
		exists: false,
		candidates: [],
		rejected: [],
		diagnostics: [],
		counts: { dirs: 0, entries: 0 },
		bounds: { depth: false, dirs: false, entries: false },
	};
	const rootReal = openRoot(root, walk);
	if (rootReal === undefined) return walk;
	if (options.record) options.record.real = rootReal;
	// The skill stage loads once a root exists: a scan of a workspace without skills never pays for it.
	const skill = await import("../skill/index.ts");
	const state = new WalkState(root, walk, options, rootReal, skill);
	let level: Pending[] = [{ dir: root.path, real: rootReal, rel: "", depth: 0 }];
	while (level.length > 0) {
		const admitted = state.admit(level);
		const links: Link[] = [];
		// Subfolders to walk next are pushed here: a skill folder (nearly every folder) adds none and makes no list.
		const next: Pending[] = [];
		await forEachInBatches(admitted, (item) => {
			const entries = state.list(item);
			if (entries) state.visit(item, entries, next, links);
		});
		// Links are followed after every real folder of the level, so a real folder is never reached by its alias.
		for (const link of links) {
			const followed = state.follow(link);
			if (followed) next.push(followed);
		}
		level = next.sort((a, b) => compareNames(a.dir, b.dir));
	}
	state.finish();
	return walk;
}

function openRoot(root: DiscoveryRoot, walk: RootWalk): string | undefined {
	let info: Stats;
	try {
		info = statSync(root.path);
	} catch (error) {
		const code = errorCode(error);
		if (code !== "ENOENT" && code !== "ENOTDIR") {
			walk.diagnostics.push(discoveryDiagnostic("root.unreadable", `Cannot read root: ${code}`, root.path));
		} else if (root.source === "option") {
			walk.diagnostics.push(discoveryDiagnostic("root.missing", "The root does not exist", root.path));
		}
		return undefined;
	}
	walk.exists = true;
	if (!info.isDirectory()) {
		walk.diagnostics.push(discoveryDiagnostic("root.not-directory", "The root is not a directory", root.path));
		return undefined;
	}
	return realpathSync.native(root.path);
}

class WalkState {
	readonly #root: DiscoveryRoot;
	readonly #walk: RootWalk;
	readonly #options: WalkOptions;
	readonly #visited: Set<string>;
	readonly #listDir: ListDir;
	readonly #hidden: string[] = [];
	readonly #tooDeep: string[] = [];
	readonly #skill: typeof SkillStage;

	constructor(root: DiscoveryRoot, walk: RootWalk, options: WalkOptions, rootReal: string, skill: typeof SkillStage) {
		this.#skill = skill;
		this.#root = root;
		this.#walk = walk;
		this.#options = options;
		this.#visited = new Set([rootReal]);
		this.#listDir = options.listDir ?? listDir;
	}

	/** Applies the folder bound to the next level: folders past it are not listed. */
	admit(level: Pending[]): Pending[] {
		const room = this.#options.limits.maxDirs - this.#walk.counts.dirs;
		if (level.length > room && !this.#walk.bounds.dirs) {
			this.#walk.bounds.dirs = true;
			const message = `Stopped after ${this.#options.limits.maxDirs} folders; ${level.length - room} more not scanned`;
			this.#walk.diagnostics.push(discoveryDiagnostic("walk.dir-limit", message, this.#root.path));
		}
		const admitted = level.slice(0, Math.max(0, room));
		this.#walk.counts.dirs += admitted.length;
		return admitted;
	}

	list(item: Pending): DirEntry[] | undefined {
		try {
			return this.#listDir(item.dir);
		} catch (error) {
			const code = errorCode(error);
			const vanished = code === "ENOENT" || code === "ENOTDIR";
			const diagnostic = vanished
				? discoveryDiagnostic("walk.vanished", "The folder disappeared during the scan", item.dir)
				: discoveryDiagnostic("walk.unreadable", `Cannot list the folder: ${code}`, item.dir);
			this.#walk.diagnostics.push(diagnostic);
			return undefined;
		}
	}

	/** Records the skill in `item`, or adds its real subfolders to `next` and collects its folder links. */
	visit(item: Pending, entries: DirEntry[], next: Pending[], links: Link[]): void {
		if (this.#walk.bounds.entries) return;
		this.#walk.counts.entries += entries.length;
		if (this.#walk.counts.entries > this.#options.limits.maxEntries) {
			this.#walk.bounds.entries = true;
			const message = `Stopped after ${this.#options.limits.maxEntries} entries`;
			this.#walk.diagnostics.push(discoveryDiagnostic("walk.entry-limit", message, this.#root.path));
			return;
		}
		// Any non-folder counts, so a FIFO or device named SKILL.md is reported as unreadable rather than ignored.
		const skillFile = this.#skillFileName(entries);
		if (skillFile !== undefined) this.#addSkill(item, entries, skillFile);
		else this.#subfolders(item, entries, next, links);
	}

	/** The folder's skill file, as the skill stage picks it; `SKILL.md` itself is found without building lists. */
	#skillFileName(entries: DirEntry[]): string | undefined {
		let other = false;
		for (const entry of entries) {
			if (!isSkillFileEntry(entry)) continue;
			if (entry.name === this.#skill.SKILL_FILE_NAME) return entry.name;
			other = true;
		}
		if (!other) return undefined;
		return this.#skill.pickSkillFileName(entries.filter((e) => e.kind !== "dir").map((e) => e.name))?.name;
	}

	#addSkill(item: Pending, entries: DirEntry[], fileName: string): void {
		const candidate = skillCandidate(this.#root, item.dir, item.real, item.rel, fileName);
		const entry = entries.find((e) => e.name === fileName);
		if (entry?.kind === "link") {
			if (this.#options.record) this.#options.record.links = true;
			const linked = this.#resolveLinkedFile(candidate);
			if (!linked) return;
		}
		this.#walk.candidates.push(candidate);
		this.#reportNested(item, entries, candidate);
	}

	/** A SKILL.md that is a link: rejected unless allowed, and then identified by its target. */
	#resolveLinkedFile(candidate: Candidate): boolean {
		if (!this.#options.allowSymlinkedSkillFile) {
			const message = "SKILL.md is a symbolic link; it is not loaded";
			candidate.diagnostics.push(discoveryDiagnostic("entry.symlink", message, candidate.file));
			this.#walk.rejected.push(candidate);
			return false;
		}
		try {
			candidate.realFile = realpathSync.native(candidate.file);
			return true;
		} catch {
			const message = "SKILL.md is a link to nothing";
			candidate.diagnostics.push(discoveryDiagnostic("entry.dangling-link", message, candidate.file));
			this.#walk.rejected.push(candidate);
			return false;
		}
	}

	/** One cheap look for skills nested in a skill's own (non-resource) subfolders. */
	#reportNested(item: Pending, entries: DirEntry[], candidate: Candidate): void {
		for (const sub of entries) {
			if (sub.kind !== "dir" || RESOURCE_DIRS.has(sub.name) || isSkipped(sub.name)) continue;
			this.#options.record?.probes.push(below(item.dir, sub.name));
			const nested = join(item.dir, sub.name, this.#skill.SKILL_FILE_NAME);
			if (!isFile(nested)) continue;
			const message = `${sub.name}/${this.#skill.SKILL_FILE_NAME} is inside the skill '${candidate.relDir}' and is not loaded`;
			this.#walk.diagnostics.push(discoveryDiagnostic("entry.nested", message, nested));
		}
	}

	#subfolders(item: Pending, entries: DirEntry[], next: Pending[], links: Link[]): void {
		for (const entry of entries) {
			if (entry.kind !== "dir" && entry.kind !== "link") continue;
			if (isSkipped(entry.name) && !(this.#options.includeHidden && !SKIPPED_DIRS.has(entry.name))) {
				if (entry.name.startsWith(".") && entry.name !== ".git") this.#hidden.push(join(item.dir, entry.name));
				continue;
			}
			const path = below(item.dir, entry.name);
			if (item.depth + 1 > this.#options.limits.maxDepth) {
				this.#tooDeep.push(path);
				continue;
			}
			if (entry.kind === "link") {
				links.push({ path, parent: item });
				if (this.#options.record) this.#options.record.links = true;
				continue;
			}
			// Without links on the way the real path is the path: one string, not two equal ones.
			const real = item.real === item.dir ? path : below(item.real, entry.name);
			if (this.#visited.has(real)) continue;
			this.#visited.add(real);
			next.push({ dir: path, real, rel: childRel(item.rel, entry.name), depth: item.depth + 1 });
		}
	}

	/** Follows a link to a folder once per real path; loops, dangling links and duplicates are reported. */
	follow({ path, parent }: Link): Pending | undefined {
		if (!this.#options.followSymlinks) return undefined;
		let real: string;
		try {
			real = realpathSync.native(path);
		} catch {
			this.#walk.diagnostics.push(discoveryDiagnostic("entry.dangling-link", "The link points at nothing", path));
			return undefined;
		}
		if (!isDirectory(real)) return undefined;
		if (parent.real === real || parent.real.startsWith(`${real}${sep}`)) {
			const message = `The link points back at ${real}, which is already being scanned`;
			this.#walk.diagnostics.push(discoveryDiagnostic("walk.symlink-loop", message, path));
			return undefined;
		}
		if (this.#visited.has(real)) {
			const message = `The link leads to ${real}, which is already scanned through another path`;
			this.#walk.diagnostics.push(discoveryDiagnostic("entry.duplicate-path", message, path));
			return undefined;
		}
		this.#visited.add(real);
		return { dir: path, real, rel: childRel(parent.rel, basename(path)), depth: parent.depth + 1 };
	}

	finish(): void {
		if (this.#tooDeep.length > 0) {
			this.#walk.bounds.depth = true;
			const message = `${this.#tooDeep.length} folder(s) deeper than ${this.#options.limits.maxDepth} levels were not scanned, e.g. ${this.#tooDeep[0]}`;
			this.#walk.diagnostics.push(discoveryDiagnostic("walk.depth-limit", message, this.#root.path));
		}
		if (this.#hidden.length > 0) {
			const shown = this.#hidden.slice(0, 5).map((path) => relative(this.#root.path, path));
			const more = this.#hidden.length > 5 ? ` and ${this.#hidden.length - 5} more` : "";
			const message = `Hidden folders were not scanned: ${shown.join(", ")}${more}`;
			this.#walk.diagnostics.push(discoveryDiagnostic("walk.hidden-skipped", message, this.#root.path));
		}
	}
}

function isSkipped(name: string): boolean {
	return name.startsWith(".") || SKIPPED_DIRS.has(name);
}

// A parent that is no folder (ENOTDIR) or a link loop (ELOOP) throws even with `throwIfNoEntry: false`: neither
// is a file or a folder here, and neither may fail the whole walk.
function isFile(path: string): boolean {
	return statOrUndefined(path)?.isFile() === true;
}

function isDirectory(path: string): boolean {
	return statOrUndefined(path)?.isDirectory() === true;
}

function errorCode(error: unknown): string {
	return (error as NodeJS.ErrnoException).code ?? String(error);
}
