import { lstatSync, readdirSync, type Stats } from "node:fs";
import { RACY_MARGIN_MS, SKIPPED_DIRS } from "./folder-rules.ts";

/**
 * A saved listing: the folder, its device, inode, mtime and ctime (ms), its sorted entry names, whether its
 * SKILL.md was a regular file (not a link) when it was listed, and its verdict as a {@link VerdictRow} (or null).
 */
export type ListingRow = [string, number, number, number, number, string[], boolean, VerdictRow | null];

/**
 * What the last full walk of a folder found, saved as [subfolder names (skipped folders left out), file count, bytes,
 * maxBytes, allowHardLinks, taken at (ms)]: every entry `lstat`ed, every plain file servable under the rules it names
 * (regular, no link, no hard link unless allowed, within the cap) and settled when the walk began, as was the folder.
 * While the folder's own `lstat` still matches the listing it was taken with, a warm start-up's plan takes it instead
 * of an `lstat` per file (see walk.ts).
 */
export type VerdictRow = [string[], number, number, number, boolean, number];

const SKILL_FILE = "SKILL.md";

/** A folder's listing as kept. */
export interface Listing {
	dev: number;
	ino: number;
	mtimeMs: number;
	ctimeMs: number;
	names: string[];
	/** Whether the folder held a SKILL.md that was a regular file when it was listed. */
	skillFile: boolean;
	/**
	 * What the last full walk of the folder found, when every file was servable (see {@link VerdictRow}), kept as its
	 * saved row: ten thousands of folders read back make no object per verdict.
	 */
	verdict: VerdictRow | undefined;
	/** The plan that last used it (see {@link ListingCache.pruneUnused}). */
	used: number;
}

/**
 * Folder listings reused while the folder's (device, inode, mtime, ctime) stay the same: adding, removing or
 * renaming an entry changes the folder's mtime, so an unchanged folder costs one `lstat` instead of a `readdir`.
 * An entry cannot change its kind without that either, so whether SKILL.md was a regular file stands as well.
 */
export class ListingCache {
	readonly #entries = new Map<string, Listing>();
	/** Counts plans: a listing no walk asked for since the last prune is not kept. */
	#plan = 0;
	/** True when a listing was read or forgotten since the last {@link ListingCache.rows}. */
	changed = false;

	/** Forgets the folders for which `keep` says no. */
	prune(keep: (path: string) => boolean): void {
		for (const path of this.#entries.keys()) {
			if (keep(path)) continue;
			this.#entries.delete(path);
			this.changed = true;
		}
	}

	/** Forgets the listings no walk asked for since the last call (they belong to no skill planned since). */
	pruneUnused(): void {
		for (const [path, entry] of this.#entries) {
			if (entry.used === this.#plan) continue;
			this.#entries.delete(path);
			this.changed = true;
		}
		this.#plan++;
	}

	/**
	 * The listing of `path` (sorted entry names, and whether SKILL.md was a regular file), read again only when the
	 * folder changed. `known` is the folder's `lstat` when the caller just took it (a subfolder met in its parent's
	 * listing), so it is not taken twice.
	 */
	listing(path: string, known?: Stats): Listing {
		const stats = known ?? lstatSync(path);
		if (!stats.isDirectory()) throw Object.assign(new Error(`${path} is not a folder`), { code: "ENOTDIR" });
		const cached = this.#entries.get(path);
		// Compared as numbers: a key string would format two fractional times per folder.
		if (
			cached !== undefined &&
			cached.ino === stats.ino &&
			cached.mtimeMs === stats.mtimeMs &&
			cached.ctimeMs === stats.ctimeMs &&
			cached.dev === stats.dev
		) {
			cached.used = this.#plan;
			return cached;
		}
		// Kinds come with the names (no stat per entry); they are only trusted while the folder stays the same.
		const dirents = readdirSync(path, { withFileTypes: true });
		const names = dirents.map((entry) => entry.name).sort();
		const skillFile = dirents.some((entry) => entry.name === SKILL_FILE && entry.isFile());
		const { dev, ino, mtimeMs, ctimeMs } = stats;
		const listing: Listing = { dev, ino, mtimeMs, ctimeMs, names, skillFile, used: this.#plan, verdict: undefined };
		this.#entries.set(path, listing);
		this.changed = true;
		return listing;
	}

	/** The listings of folders that last changed before `before` (ms): the ones a later run may trust. */
	rows(before: number): ListingRow[] {
		const rows: ListingRow[] = [];
		for (const [path, entry] of this.#entries) {
			if (Math.max(entry.mtimeMs, entry.ctimeMs) >= before) continue;
			const verdict = entry.verdict ?? null;
			rows.push([path, entry.dev, entry.ino, entry.mtimeMs, entry.ctimeMs, entry.names, entry.skillFile, verdict]);
		}
		this.changed = false;
		return rows;
	}

	/**
	 * Keeps the verdict of a full walk (begun at `at`) of the listing's folder, which found every file servable under
	 * `rules` and the folder settled. The same verdict taken again is no change: nothing is made and nothing rewritten.
	 */
	keepVerdict(
		listing: Listing,
		dirs: readonly string[],
		files: number,
		bytes: number,
		rules: { maxBytes: number; allowHardLinks: boolean },
		at: number,
	): void {
		const kept = listing.verdict;
		if (
			kept !== undefined &&
			kept[1] === files &&
			kept[2] === bytes &&
			kept[3] === rules.maxBytes &&
			kept[4] === rules.allowHardLinks &&
			sameNames(kept[0], dirs)
		)
			return;
		listing.verdict = [dirs.slice(), files, bytes, rules.maxBytes, rules.allowHardLinks, at];
		this.changed = true;
	}

	/** Forgets the listing's verdict (a walk of its folder found a problem, or a file too recently changed). */
	dropVerdict(listing: Listing): void {
		if (listing.verdict === undefined) return;
		listing.verdict = undefined;
		this.changed = true;
	}

	/**
	 * Takes back a saved listing when it is well-formed and was saved (`savedAt`) after its folder last changed.
	 * Names are single entries (no separator, `.` or `..`), so a listing can only name what is in its folder; a
	 * regular SKILL.md must be one of them. A verdict that does not add up is dropped with its listing.
	 */
	restore(row: unknown, savedAt: number): void {
		if (!Array.isArray(row) || row.length !== 8) return;
		// Cells by index, not by destructuring: that goes through the array iterator, per row of tens of thousands.
		const cells = row as unknown[];
		const path = cells[0];
		const dev = cells[1];
		const ino = cells[2];
		const mtimeMs = cells[3];
		const ctimeMs = cells[4];
		const names = cells[5];
		const skillFile = cells[6];
		const saved = cells[7];
		if (typeof path !== "string" || !path.startsWith("/")) return;
		if (!isCount(dev) || !isCount(ino) || !isTime(mtimeMs) || !isTime(ctimeMs)) return;
		if (!(Math.max(mtimeMs, ctimeMs) < savedAt) || !Array.isArray(names) || typeof skillFile !== "boolean") return;
		if (!names.every(isEntryName) || (skillFile && !names.includes(SKILL_FILE))) return;
		// Every listing has one shape (the verdict always set, if undefined): the warm walk's lookups stay monomorphic.
		const verdict = saved === null ? undefined : verdictOf(saved, names, Math.max(mtimeMs, ctimeMs), savedAt);
		if (saved !== null && !verdict) return;
		this.#entries.set(path, { dev, ino, mtimeMs, ctimeMs, names, skillFile, used: -1, verdict });
	}
}

// The kernel stamps a file from a coarse clock (one tick, up to 10 ms, behind `Date.now()`): a cache saved within a
// tick of the plan's start can bear a time before the verdicts it holds were taken.
const FILE_CLOCK_SLACK_MS = 50;

/**
 * A saved verdict read back as strictly as input: its folders are entries of the listing in strictly ascending
 * order (so each once, as a walk lists them) and none a skipped one, it counts no more files than the other entries,
 * no more bytes than they may hold under its cap, and it was taken before the cache was saved, with the folder (last
 * changed at `changed`) settled by then: checked once here, so a walk taking it checks only the rules.
 */
function verdictOf(row: unknown, names: readonly string[], changed: number, savedAt: number): VerdictRow | undefined {
	if (!Array.isArray(row) || row.length !== 6) return undefined;
	const cells = row as unknown[];
	const dirs = cells[0];
	const files = cells[1];
	const bytes = cells[2];
	const maxBytes = cells[3];
	const allowHardLinks = cells[4];
	const at = cells[5];
	if (!Array.isArray(dirs) || !isCount(files) || !isCount(bytes) || !isCount(maxBytes)) return undefined;
	if (typeof allowHardLinks !== "boolean" || !isTime(at) || !(at <= savedAt + FILE_CLOCK_SLACK_MS)) return undefined;
	if (!(changed < at - RACY_MARGIN_MS)) return undefined;
	if (dirs.length + files > names.length || bytes > files * maxBytes) return undefined;
	for (let i = 0; i < dirs.length; i++) {
		const name: unknown = dirs[i];
		if (typeof name !== "string" || (i > 0 && !((dirs[i - 1] as string) < name)) || !names.includes(name))
			return undefined;
		if (SKIPPED_DIRS.has(name)) return undefined;
	}
	return row as VerdictRow;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

function isCount(value: unknown): value is number {
	return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isTime(value: unknown): value is number {
	return typeof value === "number" && Number.isFinite(value);
}

function isEntryName(name: unknown): name is string {
	return (
		typeof name === "string" &&
		name !== "" &&
		name !== "." &&
		name !== ".." &&
		!name.includes("/") &&
		!name.includes("\0")
	);
}
