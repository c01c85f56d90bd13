// How the audit's walk lists folders and reads files: through one contained tree per skill (the root proven once,
// every name opened from its folder's descriptor without following links), or, where the tree cannot be opened (a
// root named through a link, no /proc), the per-file contained reader with the same refusals as before.

import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
	type ContainedEntry,
	type ContainedTree,
	containedEntry,
	openContainedTree,
	readContained,
} from "../runtime/index.ts";
import type { UnpackBudget } from "./archives.ts";

/** The byte bounds a read keeps (the audit's limits). */
export interface ReadBounds {
	maxFileBytes: number;
	maxTotalBytes: number;
}

/** A file's bytes, or why it was not read; `executable` is unknown when even its mode could not be read. */
export type PackageRead =
	| { ok: true; bytes: Uint8Array; executable: boolean }
	| { ok: false; why: string; executable?: boolean };

/** Lists and reads one skill's package; close it when the walk ends. */
export interface PackageReader {
	/** A folder's entries, or the system's error name when it cannot be listed. */
	list(rel: string): ContainedEntry[] | string;
	/** A file's bytes within the file cap and the skill's budget, or why not. */
	read(rel: string, limits: ReadBounds, budget: UnpackBudget): PackageRead;
	close(): void;
}

/**
 * The reader for the skill folder `dir`: the contained tree when it opens. Where the system cannot prove containment
 * (no /proc) the per-file reader, which refuses each file as unverifiable. A root that is a link, not at its real
 * path, missing or unreadable is one unreadable folder: nothing below it is listed, so a link cannot show its
 * target's names.
 */
export function packageReader(dir: string): PackageReader {
	const tree = openContainedTree(dir);
	if (!("ok" in tree)) return treeReader(tree);
	if (tree.code === "resource.unverifiable") return perFileReader(dir);
	let why: string = tree.code;
	try {
		lstatSync(dir);
	} catch (error) {
		why = String((error as NodeJS.ErrnoException).code);
	}
	return { list: () => why, read: () => ({ ok: false, why: `unreadable (${why})` }), close: () => undefined };
}

const executableMode = (mode: number) => (mode & 0o111) !== 0;

/** Why a file of `size` bytes is not read, or undefined when it fits the cap and the budget. */
function overBounds(size: number, limits: ReadBounds, budget: UnpackBudget): string | undefined {
	if (size > limits.maxFileBytes) return `${size} bytes, over the ${limits.maxFileBytes}-byte cap`;
	if (size > budget.left) return `over the skill's ${limits.maxTotalBytes}-byte audit budget`;
	return undefined;
}

function treeReader(tree: ContainedTree): PackageReader {
	return {
		list(rel) {
			const listed = tree.list(rel);
			return listed.ok ? listed.entries : (listed.errno ?? listed.code);
		},
		read(rel, limits, budget) {
			const maxBytes = Math.min(limits.maxFileBytes, budget.left);
			const read = tree.read(rel, { maxBytes, allowHardLinks: true });
			if (read.ok) return { ok: true, bytes: read.bytes, executable: executableMode(read.mode) };
			if (read.code === "resource.too-large" && read.size !== undefined) {
				const why = overBounds(read.size, limits, budget) ?? `unreadable (${read.code})`;
				return { ok: false, why, executable: executableMode(read.mode ?? 0) };
			}
			// Not opened: report it as the per-file reader did, by what its entry shows (size first, then the refusal).
			const entry = tree.lstat(rel);
			if (!entry.ok) return { ok: false, why: `unreadable (${entry.errno ?? entry.code})` };
			const why = overBounds(entry.stats.size, limits, budget) ?? `unreadable (${read.code})`;
			return { ok: false, why, executable: executableMode(entry.stats.mode) };
		},
		close: () => tree.close(),
	};
}

function perFileReader(dir: string): PackageReader {
	return {
		list(rel) {
			try {
				return readdirSync(join(dir, rel), { withFileTypes: true }).map(containedEntry);
			} catch (error) {
				return String((error as NodeJS.ErrnoException).code);
			}
		},
		read(rel, limits, budget) {
			let executable = false;
			let size = 0;
			try {
				const info = lstatSync(join(dir, rel));
				executable = executableMode(info.mode);
				size = info.size;
			} catch (error) {
				return { ok: false, why: `unreadable (${(error as NodeJS.ErrnoException).code})` };
			}
			const over = overBounds(size, limits, budget);
			if (over) return { ok: false, why: over, executable };
			const read = readContained(dir, rel, { maxBytes: limits.maxFileBytes, allowHardLinks: true });
			if (!read.ok) return { ok: false, why: `unreadable (${read.code})`, executable };
			return { ok: true, bytes: read.bytes, executable };
		},
		close: () => undefined,
	};
}
