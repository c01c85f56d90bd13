import { statSync } from "node:fs";
import type { FileSignature } from "../skill/index.ts";
import type { DiscoveryDiagnostic } from "./codes.ts";
import { type Candidate, type DirEntry, listDir } from "./folder.ts";
import type { LoadedSkill, LoadOptions } from "./load.ts";
import type { DiscoveryRoot } from "./roots.ts";
import type { SavedDirs } from "./saved-dirs.ts";
import { changedSince, sameSignature, signatureOf, statOrUndefined, statState } from "./signature.ts";
import { CheckList, checkList } from "./stat-check.ts";
import type { RootWalk, WalkRecord } from "./walk.ts";
import {
	type ListedDir,
	pinProbes,
	reuseSnapshot,
	snapshotOf,
	unlistedPaths,
	type WalkSnapshot,
	walkFromSnapshot,
} from "./walk-snapshot.ts";

/**
 * How long before a scan started a file or folder must have last changed for its signature to stand for its
 * content later (the racy-git rule, widened): a change in the same clock tick as our read, or within a
 * whole-second timestamp, leaves the signature as it was. Two seconds covers file systems that keep time in
 * seconds (or two, as FAT does) and the lag of the kernel's coarse clock.
 */
export const RACY_MARGIN_MS = 2000;

/** A folder listing and the folder's signature when it was listed. */
export interface CachedDir extends ListedDir {
	entries: DirEntry[];
}

/** What reading a SKILL.md gave, apart from the candidate: everything that depends only on the file. */
export interface CachedFile {
	signature: FileSignature;
	dir: string;
	properties: LoadedSkill["properties"];
	/** The file's own diagnostics (the walk's come from the candidate each time). */
	own: DiscoveryDiagnostic[];
	bodyOffset: number | undefined;
	bodyLine: number | undefined;
	size: number;
	/** Changed too close to the scan that read it: read again next time, never saved. */
	racy: boolean;
}

/** True when a signature's ctime is too close to `scanStart` (wall-clock ms) to vouch for the content. */
export function isRacy(signature: FileSignature, scanStart: number): boolean {
	return changedSince(signature.ctimeMs, scanStart - RACY_MARGIN_MS);
}

/**
 * The listings and files of one root's walk, keyed by path and (dev, ino, size, mtime, ctime). `key` names the
 * root and every option its walk and reads depend on, so one root's entries never serve another. `changed` says
 * whether what could be saved (the entries that are not racy) differs from what the cache started with.
 */
export class RootCache {
	readonly key: string;
	readonly path: string;
	readonly #dirs: Map<string, CachedDir> = new Map();
	/** Listings read back from the index and not yet needed as map entries. */
	#saved: SavedDirs | undefined;
	/** The saved listings' folders all counted as seen (their walk was reused): nothing to prune. */
	#savedSeen = false;
	readonly files: Map<string, CachedFile> = new Map();
	/** The last walk's result, when it can stand for a walk while its folders are unchanged. */
	walk: WalkSnapshot | undefined;
	/**
	 * The subfolders of skills the last walk looked into for nested skills, with their signatures: a rescan checks
	 * them, as no listing covers them. Undefined when one could not be pinned (gone, or changed too recently).
	 */
	probes: ReadonlyMap<string, FileSignature> | undefined = new Map();
	changed = false;
	reused: { dirs: number; files: number } = { dirs: 0, files: 0 };
	#seenDirs = new Set<string>();
	#seenFiles = new Set<string>();
	#scanStart = 0;

	constructor(key: string, path: string) {
		this.key = key;
		this.path = path;
	}

	/** The folder listings by path (those read back from the index become entries here on first use). */
	get dirs(): Map<string, CachedDir> {
		if (this.#saved) {
			this.#saved.materialize(this.#dirs);
			if (this.#savedSeen) for (const path of this.#saved.paths) this.#seenDirs.add(path);
			this.#saved = undefined;
		}
		return this.#dirs;
	}

	/**
	 * Takes the listings and reads of an index file written at `writtenAt` (wall-clock ms): entries that changed no
	 * earlier are racy, so they are listed or read again (the racy-git rule, on top of the margin applied when they
	 * were recorded).
	 */
	adoptSaved(dirs: SavedDirs, writtenAt: number): void {
		dirs.writtenAt = writtenAt;
		this.#saved = dirs.size > 0 ? dirs : undefined;
		for (const entry of this.files.values()) {
			if (changedSince(entry.signature.ctimeMs, writtenAt)) entry.racy = true;
		}
	}

	/** Starts a scan that began at `scanStart` (wall-clock ms, taken before any stat). */
	begin(scanStart: number): void {
		this.#scanStart = scanStart;
		this.#savedSeen = false;
		this.#seenDirs = new Set();
		this.#seenFiles = new Set();
		this.reused = { dirs: 0, files: 0 };
	}

	/** Ends a scan: entries it did not see are dropped (unless the walk was reused, then only files). */
	end(reusedWalk: boolean): void {
		// Saved listings all seen (their walk was reused) stay compact: none is pruned.
		if (!reusedWalk && !(this.#saved && this.#savedSeen)) prune(this.dirs, this.#seenDirs, this);
		prune(this.files, this.#seenFiles, this);
	}

	/**
	 * The last walk again, for `root`, when no folder it listed or looked into changed: one stat per folder and no
	 * listing. Its folders then count as seen and reused.
	 */
	reuseWalk(root: DiscoveryRoot): RootWalk | undefined {
		const saved = this.#saved;
		if (saved && this.walk) {
			// Straight from the saved arrays: no map entry is made for a folder that did not change.
			const walk = saved.unchanged() ? walkFromSnapshot(this.walk, root) : undefined;
			if (!walk) return undefined;
			this.probes = this.walk.probes;
			this.#savedSeen = true;
			this.reused.dirs += saved.size;
			return walk;
		}
		const walk = this.walk && reuseSnapshot(this.walk, root, this.dirs);
		if (!walk) return undefined;
		this.probes = this.walk?.probes;
		for (const dir of this.dirs.keys()) this.#seenDirs.add(dir);
		this.reused.dirs += this.dirs.size;
		return walk;
	}

	/** Keeps what a fresh walk found for reuse, when it can vouch for itself. Call after {@link RootCache.end}. */
	remember(walk: RootWalk, record: WalkRecord, followSymlinks: boolean): void {
		// One stat per probe, shared by the snapshot and by a rescan's check when there is no snapshot. What the walk met
		// but did not list is pinned the same way: no listing would show that it changed.
		const unlisted = unlistedPaths(walk, this.dirs, followSymlinks);
		const paths = [...record.probes, ...unlisted.paths];
		const probes = pinProbes(paths, (signature) => isRacy(signature, this.#scanStart), unlisted.failed);
		const snapshot = snapshotOf(walk, record, this.dirs, probes);
		if (snapshot || this.walk) this.changed = true;
		this.walk = snapshot;
		this.probes = probes;
	}

	/** True when every file the scan saw could be read and remembered (the no-change check needs that). */
	get complete(): boolean {
		return this.files.size === this.#seenFiles.size;
	}

	/** Lists `dir`, or returns the cached listing when the folder's signature is unchanged and was not racy. */
	listDir = (dir: string): DirEntry[] => {
		this.#seenDirs.add(dir);
		// The signature is taken before listing: a change during the listing shows up on the next scan.
		const info = statSync(dir);
		const cached = this.dirs.get(dir);
		if (cached && !cached.racy && sameSignature(info, cached.signature)) {
			this.reused.dirs++;
			return cached.entries;
		}
		const signature = signatureOf(info);
		const entries = listDir(dir);
		this.#record(this.dirs, dir, { signature, entries, racy: isRacy(signature, this.#scanStart) });
		return entries;
	};

	/**
	 * Loads a candidate, or reuses what the last read gave when SKILL.md is unchanged (`known` when a stat just
	 * showed that, so it need not be taken again). `read` is `loadCandidate`, passed in so the skill stage loads
	 * lazily.
	 */
	load(
		candidate: Candidate,
		options: LoadOptions,
		known: boolean,
		read: (candidate: Candidate, options: LoadOptions) => LoadedSkill,
	): LoadedSkill {
		this.#seenFiles.add(candidate.file);
		const cached = this.files.get(candidate.file);
		if (cached && !cached.racy && cached.dir === candidate.dir) {
			const info = known ? undefined : statOrUndefined(candidate.file);
			if (known || (info && sameSignature(info, cached.signature))) {
				this.reused.files++;
				return fromCache(candidate, cached);
			}
		}
		const loaded = read(candidate, options);
		if (loaded.signature) this.#record(this.files, candidate.file, toCached(loaded, this.#scanStart));
		else if (this.files.delete(candidate.file) && cached && !cached.racy) this.changed = true;
		return loaded;
	}

	/** Records an entry; `changed` when the saved form (non-racy entries only) differs from before. */
	#record<T extends { signature: FileSignature; racy: boolean }>(map: Map<string, T>, path: string, entry: T): void {
		const before = map.get(path);
		const saved = (item: T | undefined) => (item && !item.racy ? item.signature : undefined);
		const was = saved(before);
		const now = saved(entry);
		if (was !== now && !(was && now && sameSignature(was, now))) this.changed = true;
		map.set(path, entry);
	}
}

function prune<T extends { racy: boolean }>(map: Map<string, T>, seen: Set<string>, cache: RootCache): void {
	for (const [key, entry] of map) {
		if (seen.has(key)) continue;
		map.delete(key);
		if (!entry.racy) cache.changed = true;
	}
}

function toCached(loaded: LoadedSkill, scanStart: number): CachedFile {
	const signature = loaded.signature as FileSignature;
	return {
		signature,
		dir: loaded.candidate.dir,
		properties: loaded.properties,
		own: loaded.diagnostics.slice(loaded.candidate.diagnostics.length),
		bodyOffset: loaded.bodyOffset,
		bodyLine: loaded.bodyLine,
		size: loaded.size,
		racy: isRacy(signature, scanStart),
	};
}

/** The loaded skill a cached read stands for, with this walk's candidate (and its diagnostics) in front. */
function fromCache(candidate: Candidate, cached: CachedFile): LoadedSkill {
	return {
		candidate,
		properties: cached.properties,
		diagnostics: [...candidate.diagnostics, ...cached.own],
		bodyOffset: cached.bodyOffset,
		bodyLine: cached.bodyLine,
		size: cached.size,
		signature: cached.signature,
	};
}

/**
 * Remembers folder listings and parsed frontmatter per root between scans, so a rescan of an unchanged tree costs
 * one stat per folder and per SKILL.md. Roots not walked in a scan are dropped after it.
 */
export class ScanCache {
	readonly #roots = new Map<string, RootCache>();
	#keys: string[] = [];
	#absentRoots: string[] = [];
	#complete = false;
	#scanStart = 0;
	/** What a no-change check stats, made at the first check after a scan. */
	#checks: CheckList | undefined;
	/** Whether that list holds a folder listed too close to a change to vouch for itself. */
	#racyDirs = false;
	/** The walks of the last full scan, reused when only SKILL.md contents changed since. */
	walks: RootWalk[] | undefined;
	/** The remote origins' walks of that scan, reused with {@link ScanCache.walks}. */
	originWalks: RootWalk[] | undefined;

	/** Counts of the last scan: how many listings and files were reused, over every root. */
	get reused(): { dirs: number; files: number } {
		const total = { dirs: 0, files: 0 };
		for (const root of this.#roots.values()) {
			total.dirs += root.reused.dirs;
			total.files += root.reused.files;
		}
		return total;
	}

	/** How many folder listings and files the cache holds. */
	get size(): { dirs: number; files: number } {
		const total = { dirs: 0, files: 0 };
		for (const root of this.#roots.values()) {
			total.dirs += root.dirs.size;
			total.files += root.files.size;
		}
		return total;
	}

	/** Starts a scan at `scanStart` (wall-clock ms, before any stat). */
	begin(scanStart: number): void {
		this.#scanStart = scanStart;
		this.#checks = undefined;
		for (const root of this.#roots.values()) root.begin(scanStart);
	}

	/** The cache of the root named by `key`, if there is one. */
	peek(key: string): RootCache | undefined {
		return this.#roots.get(key);
	}

	/** The cache of the root named by `key` (made empty, or `seed` as loaded from disk, when there is none). */
	root(key: string, path: string, seed?: RootCache): RootCache {
		let cache = this.#roots.get(key);
		if (!cache) {
			cache = seed ?? Object.assign(new RootCache(key, path), { changed: true });
			cache.begin(this.#scanStart);
			this.#roots.set(key, cache);
		}
		return cache;
	}

	/**
	 * Ends a scan whose local roots had `keys` (those that did not exist listed in `absent`): roots not used are
	 * dropped, and entries not seen are pruned. The no-change check is possible only when every file seen could be
	 * read and remembered.
	 */
	end(keys: readonly string[], used: ReadonlySet<string>, absent: readonly string[], reusedWalks: boolean): void {
		for (const [key, root] of this.#roots) {
			if (used.has(key)) root.end(reusedWalks);
			else this.#roots.delete(key);
		}
		this.#keys = [...keys];
		this.#absentRoots = [...absent];
		this.#complete = [...this.#roots.values()].every((root) => root.complete);
	}

	/**
	 * What changed since the last scan of the same roots, by one stat per folder and SKILL.md (no listing):
	 * `structure` when a folder listing changed or an absent root appeared (a full rescan is needed), else the
	 * SKILL.md files whose signature changed or that were read too close to a change (racy: the racy-git rule holds
	 * here too, so a rescan within {@link RACY_MARGIN_MS} of an edit reads the edited file again; once read past that
	 * window an entry stops being racy). Undefined when the last scan cannot be trusted for this.
	 */
	changes(keys: readonly string[]): { structure: boolean; files: Set<string>; racyOnly?: boolean } | undefined {
		if (!this.#complete || !this.walks || keys.length !== this.#keys.length) return undefined;
		if (keys.some((key, i) => key !== this.#keys[i])) return undefined;
		const files = new Set<string>();
		const structure = { structure: true, files };
		// A root that is still absent (or whose parent is now a file: a walk counts it absent too) changed nothing; one
		// that now exists, or became a link loop or unreadable (a walk reports that), did.
		if (this.#absentRoots.some((root) => statState(root) !== "absent")) return structure;
		this.#checks ??= this.#checkList();
		if (!this.#checks) return structure;
		const found = checkList(this.#checks);
		if (found.structure) return structure;
		const paths = this.#checks.paths;
		for (let i = this.#checks.structure; i < paths.length; i++)
			if (found.changed[i] === 1) files.add(paths[i] as string);
		// A racy folder is listed again, by a walk of the roots; nothing showed a change, so origins need no new load.
		return this.#racyDirs ? { structure: true, files, racyOnly: true } : { structure: false, files };
	}

	/**
	 * What {@link ScanCache.changes} stats, kept until the next scan: every folder listing and probe first, then every
	 * SKILL.md read. A racy listing or read cannot vouch for itself: a racy SKILL.md counts as changed (read again: it
	 * may have changed in the clock tick it was read), and a racy folder is noted in {@link ScanCache.#racyDirs} (the
	 * roots are walked again, but a changed signature alone is what loads origins again). Undefined when a root has a
	 * probe that could not be pinned.
	 */
	#checkList(): CheckList | undefined {
		this.#racyDirs = false;
		let capacity = 0;
		for (const root of this.#roots.values()) {
			if (!root.probes) return undefined;
			capacity += root.dirs.size + root.probes.size + root.files.size;
		}
		const list = new CheckList(capacity);
		for (const root of this.#roots.values()) {
			for (const [dir, cached] of root.dirs) {
				list.add(dir, cached.signature, true);
				if (cached.racy) this.#racyDirs = true;
			}
			for (const [path, signature] of root.probes ?? []) list.add(path, signature, true);
		}
		list.structure = list.paths.length;
		for (const root of this.#roots.values()) {
			for (const [file, cached] of root.files) list.add(file, cached.signature, !cached.racy);
		}
		return list;
	}

	/** The root caches of the last scan. */
	roots(): RootCache[] {
		return [...this.#roots.values()];
	}
}
