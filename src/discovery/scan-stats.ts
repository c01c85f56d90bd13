import type { Stats } from "node:fs";
import type { SkillIndex } from "./skill-index.ts";

// The stats a warm scan took of every SKILL.md it checked, kept beside the index it made (in this process only,
// never saved), so a later stage need not take the same stat again. Kept as numbers, not as the stat objects: ten
// thousand of those (each with four dates) held until the next stage cost more in garbage collection than the
// stats they save. A stat follows links and is as old as the scan: a consumer may use one only where it proves the
// path still names the same file (see mcp/plan.ts and mcp/walk.ts).

const SKILL_FILE_SUFFIX = "/SKILL.md";
const FIELDS = 7;

/** What the scan's stat said of one file. */
export interface ScannedFile {
	dev: number;
	ino: number;
	mode: number;
	nlink: number;
	size: number;
	mtimeMs: number;
	ctimeMs: number;
}

/** The stats one scan took of SKILL.md files, by the path it stat'ed, and when it began (wall-clock ms). */
export class ScanStats {
	readonly since: number;
	/** The paths in the order they were stat'ed: slot i's values are at `i * FIELDS`. */
	readonly #paths: string[] = [];
	/** Each path's slot, made at the first look-up: most runs (list, scan, catalog) never look one up. */
	#slots: Map<string, number> | undefined;
	#values = new Float64Array(FIELDS * 64);

	constructor(since: number) {
		this.since = since;
	}

	/** Keeps the stat of `path` when it is a SKILL.md (the only files a later stage asks about). */
	add(path: string, info: Stats): void {
		if (!path.endsWith(SKILL_FILE_SUFFIX)) return;
		const slot = this.#paths.length;
		let values = this.#values;
		if ((slot + 1) * FIELDS > values.length) {
			values = new Float64Array(values.length * 2);
			values.set(this.#values);
			this.#values = values;
		}
		const at = slot * FIELDS;
		values[at] = info.dev;
		values[at + 1] = info.ino;
		values[at + 2] = info.mode;
		values[at + 3] = info.nlink;
		values[at + 4] = info.size;
		values[at + 5] = info.mtimeMs;
		values[at + 6] = info.ctimeMs;
		this.#paths.push(path);
		this.#slots?.set(path, slot);
	}

	/** What the scan's stat of `path` said, if it took one. */
	get(path: string): ScannedFile | undefined {
		if (!this.#slots) {
			// A path met twice (nested roots) answers with its last stat, as it would have been kept.
			this.#slots = new Map();
			for (const [slot, known] of this.#paths.entries()) this.#slots.set(known, slot);
		}
		const slot = this.#slots.get(path);
		if (slot === undefined) return undefined;
		const values = this.#values;
		const at = slot * FIELDS;
		return {
			dev: values[at] as number,
			ino: values[at + 1] as number,
			mode: values[at + 2] as number,
			nlink: values[at + 3] as number,
			size: values[at + 4] as number,
			mtimeMs: values[at + 5] as number,
			ctimeMs: values[at + 6] as number,
		};
	}
}

const kept = new WeakMap<SkillIndex, ScanStats>();

/** Keeps `stats` for the index the scan made. */
export function keepScanStats(index: SkillIndex, stats: ScanStats): void {
	kept.set(index, stats);
}

/** The stats the scan that made `index` took, once: a later use of the same index takes its own. */
export function takeScanStats(index: SkillIndex): ScanStats | undefined {
	const stats = kept.get(index);
	kept.delete(index);
	return stats;
}
