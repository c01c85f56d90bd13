import { lstatSync, readdirSync, type Stats } from "node:fs";

/**
 * A saved listing: the folder, its device, inode, mtime and ctime (ms), its sorted entry names, whether its
 * SKILL.md was a regular file (not a link) when it was listed, and its verdict as a {@link VerdictRow} (or null).
 */
export type ListingRow = [string, number, number, number, number, string[], boolean, VerdictRow | null];

/** A saved verdict: [subfolder names, file count, bytes, maxBytes, allowHardLinks, taken at (ms)]. */
export type VerdictRow = [string[], number, number, number, boolean, number];

/**
 * What the last full walk of a folder found: every entry `lstat`ed, every plain file servable under the rules it
 * names (regular, no link, no hard link unless allowed, within the cap) and settled when it was looked at. While the
 * folder's own `lstat` still matches the listing it was taken with, a warm start-up's plan takes it instead of an
 * `lstat` per file (see walk.ts).
 */
export interface Verdict {
	/** The entries that were folders to walk (skipped folders left out). */
	dirs: string[];
	/** How many plain files it counted, and their bytes. */
	files: number;
	bytes: number;
	/** The rules the files were checked under: a verdict stands only for the same ones. */
	maxBytes: number;
	allowHardLinks: boolean;
	/** When the walk that took it began (ms). */
	at: number;
}

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
	 * What the last full walk of the folder found, when every file was servable (see {@link Verdict}), kept as its
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

	/** Keeps `verdict` for the listing (a full walk of its folder found every file servable). */
	keepVerdict(listing: Listing, verdict: Verdict): void {
		const kept = listing.verdict;
		listing.verdict = [
			verdict.dirs,
			verdict.files,
			verdict.bytes,
			verdict.maxBytes,
			verdict.allowHardLinks,
			verdict.at,
		];
		// A verdict taken again the same is no change: a warm run that walked a folder anyway rewrites nothing.
		if (
			kept === undefined ||
			kept[1] !== verdict.files ||
			kept[2] !== verdict.bytes ||
			kept[3] !== verdict.maxBytes ||
			kept[4] !== verdict.allowHardLinks ||
			kept[0].join("/") !== verdict.dirs.join("/")
		)
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
		const verdict = saved === null ? undefined : verdictOf(saved, names, savedAt);
		if (saved !== null && !verdict) return;
		this.#entries.set(path, { dev, ino, mtimeMs, ctimeMs, names, skillFile, used: -1, verdict });
	}
}

/**
 * A saved verdict read back as strictly as input: its folders are entries of the listing in strictly ascending
 * order (so each once, as a walk lists them), it counts no more files than the other entries, no more bytes than they
 * may hold under its cap, and it was taken before the cache was saved.
 */
function verdictOf(row: unknown, names: readonly string[], savedAt: number): VerdictRow | undefined {
	if (!Array.isArray(row) || row.length !== 6) return undefined;
	const cells = row as unknown[];
	const dirs = cells[0];
	const files = cells[1];
	const bytes = cells[2];
	const maxBytes = cells[3];
	const allowHardLinks = cells[4];
	const at = cells[5];
	if (!Array.isArray(dirs) || !isCount(files) || !isCount(bytes) || !isCount(maxBytes)) return undefined;
	if (typeof allowHardLinks !== "boolean" || !isTime(at) || !(at <= savedAt)) return undefined;
	if (dirs.length + files > names.length || bytes > files * maxBytes) return undefined;
	for (let i = 0; i < dirs.length; i++) {
		const name: unknown = dirs[i];
		if (typeof name !== "string" || (i > 0 && !((dirs[i - 1] as string) < name)) || !names.includes(name))
			return undefined;
	}
	return row as VerdictRow;
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
