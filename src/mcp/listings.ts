import { lstatSync, readdirSync, type Stats } from "node:fs";

/**
 * A saved listing: the folder, its device, inode, mtime and ctime (ms), its sorted entry names, and whether its
 * SKILL.md was a regular file (not a link) when it was listed.
 */
export type ListingRow = [string, number, number, number, number, string[], boolean];

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
		const listing = { dev, ino, mtimeMs, ctimeMs, names, skillFile, used: this.#plan };
		this.#entries.set(path, listing);
		this.changed = true;
		return listing;
	}

	/** The listings of folders that last changed before `before` (ms): the ones a later run may trust. */
	rows(before: number): ListingRow[] {
		const rows: ListingRow[] = [];
		for (const [path, entry] of this.#entries) {
			if (Math.max(entry.mtimeMs, entry.ctimeMs) >= before) continue;
			rows.push([path, entry.dev, entry.ino, entry.mtimeMs, entry.ctimeMs, entry.names, entry.skillFile]);
		}
		this.changed = false;
		return rows;
	}

	/**
	 * Takes back a saved listing when it is well-formed and was saved (`savedAt`) after its folder last changed.
	 * Names are single entries (no separator, `.` or `..`), so a listing can only name what is in its folder; a
	 * regular SKILL.md must be one of them.
	 */
	restore(row: unknown, savedAt: number): void {
		if (!Array.isArray(row) || row.length !== 7) return;
		const [path, dev, ino, mtimeMs, ctimeMs, names, skillFile] = row as unknown[];
		if (typeof path !== "string" || !path.startsWith("/")) return;
		if (!isCount(dev) || !isCount(ino) || !isTime(mtimeMs) || !isTime(ctimeMs)) return;
		if (!(Math.max(mtimeMs, ctimeMs) < savedAt) || !Array.isArray(names) || typeof skillFile !== "boolean") return;
		if (!names.every(isEntryName) || (skillFile && !names.includes(SKILL_FILE))) return;
		this.#entries.set(path, { dev, ino, mtimeMs, ctimeMs, names, skillFile, used: -1 });
	}
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
