import type { Stats } from "node:fs";
import { dirname, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { derivedKey, readDerived, writeDerived } from "../discovery/derived-cache.ts";
import { type ListingCache, RACY_MARGIN_MS } from "./walk.ts";

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
/** [dev, ino, size, mtimeMs, ctimeMs, nlink] of an `lstat`. */
type Signature = [number, number, number, number, number, number];

interface Entry {
	signature: Signature;
	frontmatter: Frontmatter | FrontmatterProblem;
}

/** The parsed frontmatter of checked SKILL.md files, by real path, for one read cap and hard-link rule. */
export class FrontmatterCache {
	readonly #cacheDir: string;
	readonly #key: string;
	readonly #entries = new Map<string, Entry>();
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
		const entry = this.#entries.get(file);
		return entry && same(entry.signature, signatureOf(stats)) ? entry.frontmatter : undefined;
	}

	/** Remembers what `file` parsed to; `stats` is its `lstat` taken before it was read, `now` when that was. */
	set(file: string, stats: Stats, frontmatter: Frontmatter | FrontmatterProblem, now: number): void {
		if (Math.max(stats.mtimeMs, stats.ctimeMs) >= now - RACY_MARGIN_MS) {
			if (this.#entries.delete(file)) this.#changed = true;
			return;
		}
		this.#entries.set(file, { signature: signatureOf(stats), frontmatter });
		this.#changed = true;
	}

	/**
	 * Keeps only the files in `checked` (served or left out for what they say) and the listings of their folders,
	 * and saves the cache when it changed; `now` is when the plan began.
	 */
	save(checked: ReadonlySet<string>, now: number): void {
		for (const file of this.#entries.keys()) {
			if (checked.has(file)) continue;
			this.#entries.delete(file);
			this.#changed = true;
		}
		if (this.#listings) {
			const folders = new Set<string>();
			for (const file of checked) folders.add(parentOf(file));
			this.#listings.prune((path) => insideAny(path, folders));
		}
		if (!this.#changed && !this.#listings?.changed) return;
		const files = [...this.#entries].map(([file, entry]) => [file, ...entry.signature, entry.frontmatter]);
		const dirs = this.#listings?.rows(now - RACY_MARGIN_MS) ?? [];
		writeDerived(this.#cacheDir, KIND, this.#key, { files, dirs });
		this.#changed = false;
	}

	/** Takes back one saved row when it has the right shape and was saved well after the file's last change. */
	#restore(row: unknown, savedAt: number): void {
		if (!Array.isArray(row) || row.length !== 8 || typeof row[0] !== "string") return;
		const signature = row.slice(1, 7);
		const frontmatter: unknown = row[7];
		if (!signature.every((n) => typeof n === "number" && Number.isFinite(n))) return;
		const problem = PROBLEMS.has(frontmatter);
		if (!problem && (typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter))) return;
		const [, , , mtimeMs, ctimeMs] = signature as Signature;
		if (Math.max(mtimeMs, ctimeMs) >= savedAt) return;
		this.#entries.set(row[0], {
			signature: signature as Signature,
			frontmatter: frontmatter as Frontmatter | FrontmatterProblem,
		});
	}
}

/**
 * True when `path` is one of `dirs` or below one. Paths here are absolute and normalized (real paths, and folders
 * met below them), so the parents are found by cutting at each `/` (a warm start-up asks this of every listing).
 */
function insideAny(path: string, dirs: ReadonlySet<string>): boolean {
	for (let at = path; ; ) {
		if (dirs.has(at)) return true;
		const parent = parentOf(at);
		if (parent === at) return false;
		at = parent;
	}
}

/** The parent of an absolute POSIX path (`/` is its own), as `dirname` gives it for a normalized one. */
function parentOf(path: string): string {
	const cut = path.lastIndexOf("/");
	if (sep !== "/" || !path.startsWith("/") || path.endsWith("/")) return dirname(path);
	return cut === 0 ? "/" : path.slice(0, cut);
}

function signatureOf(stats: Signed): Signature {
	return [stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs, stats.nlink];
}

function same(a: Signature, b: Signature): boolean {
	return a.every((value, i) => value === b[i]);
}
