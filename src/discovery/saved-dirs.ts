import type { DirEntry } from "./folder.ts";
import { changedSince, sameSignatureAt, statOrUndefined } from "./signature.ts";
import type { ListedDir } from "./walk-snapshot.ts";

/** A folder listing as the scan cache keeps it (the shape of `CachedDir`). */
export type KeptDir = ListedDir & { entries: DirEntry[] };

/**
 * The folder listings of an index file, read back and checked but kept compact: paths, listing texts and the
 * signatures in one flat array, with no object per folder. A warm run whose kept walk still stands only needs to
 * know that every folder is unchanged, which it checks straight from these arrays; the listings become map entries
 * only when a walk has to list again (or the cache is saved or rescanned).
 */
export class SavedDirs {
	readonly paths: string[] = [];
	/** Each folder's listing, shared between folders that hold the same names. */
	readonly entries: DirEntry[][] = [];
	/** dev, ino, size, mtimeMs, ctimeMs of each folder, in the order of `paths`. */
	#signatures: Float64Array;
	/** When the index file was written: a folder that changed no earlier is racy (read again, never trusted). */
	writtenAt: number = Number.POSITIVE_INFINITY;

	constructor(count: number) {
		this.#signatures = new Float64Array(count * 5);
	}

	/** Adds a checked folder row. */
	add(
		path: string,
		entries: DirEntry[],
		dev: number,
		ino: number,
		size: number,
		mtimeMs: number,
		ctimeMs: number,
	): void {
		const at = this.paths.length * 5;
		const signatures = this.#signatures;
		signatures[at] = dev;
		signatures[at + 1] = ino;
		signatures[at + 2] = size;
		signatures[at + 3] = mtimeMs;
		signatures[at + 4] = ctimeMs;
		this.paths.push(path);
		this.entries.push(entries);
	}

	get size(): number {
		return this.paths.length;
	}

	/** True when no folder is racy and each still has its signature: one stat per folder, no object kept. */
	unchanged(): boolean {
		const signatures = this.#signatures;
		for (let i = 0; i < this.paths.length; i++) {
			const at = i * 5;
			if (changedSince(signatures[at + 4] as number, this.writtenAt)) return false;
			const info = statOrUndefined(this.paths[i] as string);
			if (info === undefined || !sameSignatureAt(info, signatures, at)) return false;
		}
		return true;
	}

	/** The folders as map entries (racy when they changed no earlier than the index was written). */
	materialize(into: Map<string, KeptDir>): void {
		const signatures = this.#signatures;
		for (const [i, path] of this.paths.entries()) {
			const at = i * 5;
			const signature = {
				dev: signatures[at] as number,
				ino: signatures[at + 1] as number,
				size: signatures[at + 2] as number,
				mtimeMs: signatures[at + 3] as number,
				ctimeMs: signatures[at + 4] as number,
			};
			const racy = changedSince(signature.ctimeMs, this.writtenAt);
			into.set(path, { signature, entries: this.entries[i] as DirEntry[], racy });
		}
	}
}
