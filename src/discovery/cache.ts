import { type Stats, stat } from "node:fs";
import { promisify } from "node:util";
import type { FileSignature } from "../skill/index.ts";
import { type LoadedSkill, type LoadOptions, loadCandidate } from "./load.ts";
import type { Candidate } from "./walk.ts";
import { type DirEntry, listDir } from "./walk.ts";

const statAsync = promisify(stat);

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
	/** Counts of the last scan: how many listings and files were reused. */
	reused: { dirs: number; files: number } = { dirs: 0, files: 0 };

	/** Starts a scan: reuse counters reset, and entries not seen by {@link ScanCache.end} are pruned. */
	begin(): void {
		this.#seenDirs = new Set();
		this.#seenFiles = new Set();
		this.reused = { dirs: 0, files: 0 };
	}

	end(): void {
		for (const key of this.#dirs.keys()) if (!this.#seenDirs.has(key)) this.#dirs.delete(key);
		for (const key of this.#files.keys()) if (!this.#seenFiles.has(key)) this.#files.delete(key);
	}

	/** Lists `dir`, or returns the cached listing when the folder's signature is unchanged. */
	listDir = async (dir: string): Promise<DirEntry[]> => {
		this.#seenDirs.add(dir);
		// The signature is taken before listing: a change during the listing shows up on the next scan.
		const signature = signatureOf(await statAsync(dir));
		const cached = this.#dirs.get(dir);
		if (cached && sameSignature(cached.signature, signature)) {
			this.reused.dirs++;
			return cached.entries;
		}
		const entries = await listDir(dir);
		this.#dirs.set(dir, { signature, entries });
		return entries;
	};

	/** Loads a candidate, or reuses the last result when SKILL.md is unchanged. */
	async load(candidate: Candidate, options: LoadOptions): Promise<LoadedSkill> {
		this.#seenFiles.add(candidate.file);
		const cached = this.#files.get(candidate.file);
		if (cached && cached.dir === candidate.dir) {
			const current = await statAsync(candidate.file).then(signatureOf, () => undefined);
			if (current && sameSignature(current, cached.signature)) {
				this.reused.files++;
				const own = cached.loaded.diagnostics.slice(cached.loaded.candidate.diagnostics.length);
				return { ...cached.loaded, candidate, diagnostics: [...candidate.diagnostics, ...own] };
			}
		}
		const loaded = await loadCandidate(candidate, options);
		if (loaded.signature) this.#files.set(candidate.file, { signature: loaded.signature, dir: candidate.dir, loaded });
		else this.#files.delete(candidate.file);
		return loaded;
	}
}

function signatureOf(info: Stats): FileSignature {
	return { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

function sameSignature(a: FileSignature, b: FileSignature): boolean {
	return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
