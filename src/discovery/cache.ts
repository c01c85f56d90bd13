import { type Stats, statSync } from "node:fs";
import type { FileSignature } from "../skill/index.ts";
import type { LoadedSkill, LoadOptions } from "./load.ts";
import type { Candidate, RootWalk } from "./walk.ts";
import { type DirEntry, listDir } from "./walk.ts";

interface CachedDir {
	signature: FileSignature;
	entries: DirEntry[];
}

interface CachedFile {
	signature: FileSignature;
	dir: string;
	loaded: LoadedSkill;
}

/**
 * Remembers folder listings and parsed frontmatter by path and (dev, ino, size, mtime, ctime), so a rescan of an
 * unchanged tree costs one stat per folder and per SKILL.md. Entries not seen in a scan are dropped after it.
 */
export class ScanCache {
	readonly #dirs = new Map<string, CachedDir>();
	readonly #files = new Map<string, CachedFile>();
	#seenDirs = new Set<string>();
	#seenFiles = new Set<string>();
	#roots: string[] = [];
	#absentRoots: string[] = [];
	#complete = false;
	/** The walks of the last full scan, reused when only SKILL.md contents changed since. */
	walks: RootWalk[] | undefined;
	/** Counts of the last scan: how many listings and files were reused. */
	reused: { dirs: number; files: number } = { dirs: 0, files: 0 };

	/** How many folder listings and files the cache holds. */
	get size(): { dirs: number; files: number } {
		return { dirs: this.#dirs.size, files: this.#files.size };
	}

	/** Starts a scan: reuse counters reset, and entries not seen by {@link ScanCache.end} are pruned. */
	begin(): void {
		this.#seenDirs = new Set();
		this.#seenFiles = new Set();
		this.reused = { dirs: 0, files: 0 };
	}

	/**
	 * Ends a scan of `roots` (those that did not exist listed in `absent`): entries not seen are pruned. The fast
	 * no-change check is possible only when every file seen could be read and remembered.
	 */
	end(roots: readonly string[], walks: readonly RootWalk[], reusedWalks = false): void {
		if (!reusedWalks) for (const key of this.#dirs.keys()) if (!this.#seenDirs.has(key)) this.#dirs.delete(key);
		for (const key of this.#files.keys()) if (!this.#seenFiles.has(key)) this.#files.delete(key);
		this.#roots = [...roots];
		this.#absentRoots = walks.filter((walk) => !walk.exists).map((walk) => walk.root.path);
		this.#complete = this.#files.size === this.#seenFiles.size;
		this.walks = [...walks];
	}

	/**
	 * What changed since the last scan of the same `roots`, by one stat per folder and SKILL.md (no listing):
	 * `structure` when a folder listing changed or an absent root appeared (a full rescan is needed), else the
	 * SKILL.md files whose signature changed. Undefined when the last scan cannot be trusted for this.
	 */
	changes(roots: readonly string[]): { structure: boolean; files: Set<string> } | undefined {
		if (!this.#complete || !this.walks || roots.length !== this.#roots.length) return undefined;
		if (roots.some((root, i) => root !== this.#roots[i])) return undefined;
		const files = new Set<string>();
		if (this.#absentRoots.some((root) => statSync(root, { throwIfNoEntry: false }) !== undefined))
			return { structure: true, files };
		for (const [dir, cached] of this.#dirs) if (!sameAsNow(dir, cached.signature)) return { structure: true, files };
		for (const [file, cached] of this.#files) if (!sameAsNow(file, cached.signature)) files.add(file);
		return { structure: false, files };
	}

	/** Lists `dir`, or returns the cached listing when the folder's signature is unchanged. */
	listDir = (dir: string): DirEntry[] => {
		this.#seenDirs.add(dir);
		// The signature is taken before listing: a change during the listing shows up on the next scan.
		const signature = signatureOf(statSync(dir));
		const cached = this.#dirs.get(dir);
		if (cached && sameSignature(cached.signature, signature)) {
			this.reused.dirs++;
			return cached.entries;
		}
		const entries = listDir(dir);
		this.#dirs.set(dir, { signature, entries });
		return entries;
	};

	/**
	 * Loads a candidate, or reuses the last result when SKILL.md is unchanged (`known` when a stat just showed that,
	 * so it need not be taken again). `read` is `loadCandidate`, passed in so that the skill stage loads lazily.
	 */
	load(
		candidate: Candidate,
		options: LoadOptions,
		known: boolean,
		read: (candidate: Candidate, options: LoadOptions) => LoadedSkill,
	): LoadedSkill {
		this.#seenFiles.add(candidate.file);
		const cached = this.#files.get(candidate.file);
		if (cached && cached.dir === candidate.dir) {
			const info = known ? undefined : statSync(candidate.file, { throwIfNoEntry: false });
			const current = info ? signatureOf(info) : undefined;
			if (known || (current && sameSignature(current, cached.signature))) {
				this.reused.files++;
				const own = cached.loaded.diagnostics.slice(cached.loaded.candidate.diagnostics.length);
				return { ...cached.loaded, candidate, diagnostics: [...candidate.diagnostics, ...own] };
			}
		}
		const loaded = read(candidate, options);
		if (loaded.signature) this.#files.set(candidate.file, { signature: loaded.signature, dir: candidate.dir, loaded });
		else this.#files.delete(candidate.file);
		return loaded;
	}
}

function sameAsNow(path: string, signature: FileSignature): boolean {
	const info = statSync(path, { throwIfNoEntry: false });
	return info !== undefined && sameSignature(signatureOf(info), signature);
}

function signatureOf(info: Stats): FileSignature {
	return { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

function sameSignature(a: FileSignature, b: FileSignature): boolean {
	return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
