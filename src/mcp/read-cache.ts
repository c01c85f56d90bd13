import type { Stats } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { derivedKey, readDerived, writeDerived } from "../discovery/derived-cache.ts";
import { RACY_MARGIN_MS, settled } from "./folder-rules.ts";
import type { ListingCache } from "./listings.ts";

// What each checked SKILL.md's frontmatter parsed to (or that it does not parse as written), and the listings of
// skill folders, kept between runs so a warm start-up checks each skill with `lstat`s instead of reading, parsing
// and listing again. An entry stands only for the same file (device, inode), size, mtime, ctime and link count (a
// folder: device, inode, mtime, ctime), recorded well after its last change (the racy-git rule); resources, prompts
// and tools still read the files.

const HERE = dirname(fileURLToPath(import.meta.url));
const KIND = "mcp-frontmatter";

/** Frontmatter as JSON carries it (plan.ts narrows it to its JSON type). */
type Frontmatter = Record<string, unknown>;
/**
 * Why a file's frontmatter cannot be served as written: a fact of its bytes alone, so it may be kept like a parse.
 * (A read that failed is not: permissions and caps change without the file changing.)
 */
export type FrontmatterProblem = "unparsed" | "repaired";
const PROBLEMS: ReadonlySet<unknown> = new Set<FrontmatterProblem>(["unparsed", "repaired"]);
/** What a signature is made of: an `lstat`'s fields. */
type Signed = Pick<Stats, "dev" | "ino" | "size" | "mtimeMs" | "ctimeMs" | "nlink">;
/** A kept read: [file, dev, ino, size, mtimeMs, ctimeMs, nlink, frontmatter], as saved (no object per field). */
type Row = [string, number, number, number, number, number, number, Frontmatter | FrontmatterProblem];

/** The parsed frontmatter of checked SKILL.md files, by real path, for one read cap and hard-link rule. */
export class FrontmatterCache {
	readonly #cacheDir: string;
	readonly #key: string;
	readonly #rows = new Map<string, Row>();
	readonly #listings: ListingCache | undefined;
	#changed = false;

	private constructor(cacheDir: string, key: string, listings: ListingCache | undefined) {
		this.#cacheDir = cacheDir;
		this.#key = key;
		this.#listings = listings;
	}

	/** The cache kept in `cacheDir` for these rules (empty when there is none, or it cannot be trusted). */
	static open(
		cacheDir: string,
		rules: { maxBytes: number; allowHardLinks: boolean; listings?: ListingCache },
	): FrontmatterCache | undefined {
		const key = derivedKey(HERE, [KIND, rules.maxBytes, rules.allowHardLinks]);
		if (key === undefined) return undefined;
		const cache = new FrontmatterCache(cacheDir, key, rules.listings);
		const saved = readDerived(cacheDir, KIND, key);
		const value = saved?.value as { files?: unknown; dirs?: unknown } | undefined;
		if (!saved || typeof value !== "object" || value === null) return cache;
		if (Array.isArray(value.files)) for (const row of value.files) cache.#restore(row, saved.mtimeMs);
		if (Array.isArray(value.dirs)) for (const row of value.dirs) rules.listings?.restore(row, saved.mtimeMs);
		return cache;
	}

	/** The frontmatter `file` parsed to (or why it did not) when its `lstat` was `stats`, if known. */
	get(file: string, stats: Signed): Frontmatter | FrontmatterProblem | undefined {
		const row = this.#rows.get(file);
		// The inode and the times differ first when anything changed.
		return row !== undefined &&
			row[2] === stats.ino &&
			row[4] === stats.mtimeMs &&
			row[5] === stats.ctimeMs &&
			row[3] === stats.size &&
			row[6] === stats.nlink &&
			row[1] === stats.dev
			? row[7]
			: undefined;
	}

	/** Remembers what `file` parsed to; `stats` is its `lstat` taken before it was read, `now` when that was. */
	set(file: string, stats: Signed, frontmatter: Frontmatter | FrontmatterProblem, now: number): void {
		if (!settled(stats, now)) {
			if (this.#rows.delete(file)) this.#changed = true;
			return;
		}
		const { dev, ino, size, mtimeMs, ctimeMs, nlink } = stats;
		this.#rows.set(file, [file, dev, ino, size, mtimeMs, ctimeMs, nlink, frontmatter]);
		this.#changed = true;
	}

	/**
	 * Keeps only the files in `checked` (served or left out for what they say) and the listings the plan's walks
	 * asked for, and saves the cache when it changed; `now` is when the plan began.
	 */
	save(checked: ReadonlySet<string>, now: number): void {
		for (const file of this.#rows.keys()) {
			if (checked.has(file)) continue;
			this.#rows.delete(file);
			this.#changed = true;
		}
		this.#listings?.pruneUnused();
		if (!this.#changed && !this.#listings?.changed) return;
		const dirs = this.#listings?.rows(now - RACY_MARGIN_MS) ?? [];
		writeDerived(this.#cacheDir, KIND, this.#key, { files: [...this.#rows.values()], dirs });
		this.#changed = false;
	}

	/**
	 * Takes back one saved row when it has the right shape and was saved well after the file's last change. The
	 * row itself is kept (it is only ever read), so a warm start-up makes nothing per row.
	 */
	#restore(row: unknown, savedAt: number): void {
		if (!Array.isArray(row) || row.length !== 8 || typeof row[0] !== "string") return;
		for (let i = 1; i < 7; i++) if (typeof row[i] !== "number" || !Number.isFinite(row[i])) return;
		const frontmatter: unknown = row[7];
		const problem = PROBLEMS.has(frontmatter);
		if (!problem && (typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter))) return;
		if (Math.max(row[4], row[5]) >= savedAt) return;
		this.#rows.set(row[0], row as Row);
	}
}
