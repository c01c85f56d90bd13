import { join } from "node:path";
import type { RootCache } from "./cache.ts";
import { type DiscoveryDiagnostic, discoveryDiagnostic } from "./codes.ts";
import { decodeRootCache, encodeRootCache, IndexFormatError } from "./index-codec.ts";
import {
	checkIndexFolder,
	codeStamp,
	indexFileName,
	readIndexFile,
	readKept,
	usableFolder,
	writeKept,
} from "./index-file.ts";
import type { ScanStats } from "./scan-stats.ts";
import { type ReadResult, readResult } from "./warm-read.ts";
import { encodeResult, type FinishedScan, type ResultInputs, resultKey, type SavedRoot } from "./warm-result.ts";

/**
 * The persistent index of tier-1 metadata in `<cacheDir>/discovery/`: one file per root and settings holding the
 * folder listings and frontmatter results of its last scan, keyed by (dev, ino, size, mtime, ctime). It only ever
 * stands in for a listing or a read of something whose signature is unchanged and was not racy when recorded;
 * activation and every resource read still read the files themselves.
 */
export class PersistentIndex {
	readonly folder: string;
	/** Where whole results are kept (warm-result.ts), beside the per-root files. */
	readonly #results: string;
	/** What the saved results depend on besides the files (part of every root's key). */
	readonly stamp: string;

	private constructor(folder: string, results: string) {
		this.folder = folder;
		this.#results = results;
		this.stamp = codeStamp();
	}

	/** Opens the index folder of `cacheDir`; a reportable problem becomes a diagnostic in `diagnostics`. */
	static open(cacheDir: string, diagnostics: DiscoveryDiagnostic[]): PersistentIndex | undefined {
		const folder = join(cacheDir, "discovery");
		const problem = checkIndexFolder(folder);
		if (!problem) return new PersistentIndex(folder, join(cacheDir, "discovery-result"));
		if (problem.report) {
			const message = `The persistent discovery index is off: ${problem.reason}`;
			diagnostics.push(discoveryDiagnostic("index.unavailable", message, folder));
		}
		return undefined;
	}

	/**
	 * The saved cache of the root at `path` named by `key`, or undefined when there is none or it cannot be used
	 * (then a diagnostic says why). Entries that changed no earlier than the file was written are marked racy, so
	 * they are read again (the racy-git rule, on top of the margin applied when they were recorded).
	 */
	load(key: string, path: string, diagnostics: DiscoveryDiagnostic[]): RootCache | undefined {
		const file = this.#indexFile(key);
		const read = readIndexFile(file);
		if ("missing" in read) return undefined;
		let cache: RootCache | undefined;
		let reason = "problem" in read ? read.problem : undefined;
		if ("text" in read) {
			try {
				cache = decodeRootCache(read.text, this.#fileKey(key), key, path, read.mtimeMs);
			} catch (error) {
				// Whatever went wrong reading it back, the files themselves are still there to read: fail closed.
				const why = error instanceof IndexFormatError ? error.message : String(error);
				reason = `its content is not valid: ${why}`;
			}
		}
		if (!cache || !("text" in read)) {
			const message = `The index of ${path} was not used: ${reason ?? "it cannot be read"}`;
			diagnostics.push(discoveryDiagnostic("index.ignored", message, file));
			return undefined;
		}
		return cache;
	}

	/** Saves a root's cache when what it would save changed; a failed write only costs the next run its speed. */
	save(cache: RootCache, now: number): void {
		if (!cache.changed) return;
		const fileKey = this.#fileKey(cache.key);
		// Not written (a full disk, a folder made read-only since the check): the scan's results stand; the next run
		// reads the files again and tries to save once more.
		if (writeKept(this.folder, fileKey, () => encodeRootCache(cache, fileKey), now)) cache.changed = false;
	}

	/**
	 * The whole result saved for `inputs`, when nothing it depends on changed; else undefined. A result that
	 * cannot be used (missing, foreign, writable by others, corrupt, forged, stale) is passed over without a word:
	 * the scan then runs on the per-root files, which say what is wrong with them, and saves a new result.
	 */
	readResult(inputs: ResultInputs, stats?: ScanStats): ReadResult | undefined {
		const folder = usableFolder(this.#results);
		if (!folder) return undefined;
		const fileKey = resultKey(this.stamp, inputs);
		const read = readKept(folder, fileKey);
		if (!read) return undefined;
		try {
			const indexFiles = inputs.rootKeys.map((key) => this.#indexFile(key));
			const result = readResult(read.text, read.mtimeMs, fileKey, inputs, indexFiles, stats);
			if (result) result.digest = read.sha256;
			return result;
		} catch {
			// A value that is not what it must be: the files themselves are still there to read. Fail closed.
			return undefined;
		}
	}

	/**
	 * Saves a finished scan's result, when it can vouch for itself, and returns its digest (what a later read of it
	 * gives as `digest`); a failed write only costs the next run.
	 */
	saveResult(
		inputs: ResultInputs,
		scan: Omit<FinishedScan, "roots"> & { roots: Omit<SavedRoot, "indexFile">[] },
	): string | undefined {
		const folder = usableFolder(this.#results);
		if (!folder) return undefined;
		const fileKey = resultKey(this.stamp, inputs);
		const encode = () => {
			const roots = scan.roots.map((root, i) => ({ ...root, indexFile: this.#indexFile(inputs.rootKeys[i] ?? "") }));
			return encodeResult(fileKey, { ...scan, roots });
		};
		// As for a root's file: not written, and the scan's results stand; the next run scans and tries again.
		return writeKept(folder, fileKey, encode, scan.scanStart);
	}

	#indexFile(key: string): string {
		return join(this.folder, indexFileName(this.#fileKey(key)));
	}

	/** A root's key in a file: with the code stamp, so results saved by other code are never used. */
	#fileKey(key: string): string {
		return `${this.stamp}\n${key}`;
	}
}
