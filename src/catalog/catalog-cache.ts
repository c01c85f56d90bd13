import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { derivedKey, readDerived, resultNameOf, writeDerived } from "../discovery/derived-cache.ts";
import type { SkillIndex } from "../discovery/index.ts";
import type { CatalogEntry } from "./render.ts";

// A fitted catalog is a pure function of its entries, its options and this code: kept in the cache folder under a
// key naming all three, a warm run with the same skills prints it without loading the tokenizer or fitting again.
// A custom tokenizer is code we cannot name in a key, so a catalog counted with one is never kept.

const HERE = dirname(fileURLToPath(import.meta.url));
/** Half a surrogate pair (in a `u` pattern a pair is one code point, which is not in `Cs`). */
const LONE_SURROGATE = /\p{Cs}/u;

/** What the cache needs from a caller's options: where it is, and whether a tokenizer of its own was given. */
interface CacheableOptions {
	cacheDir?: string;
	tokenizer?: unknown;
}

/**
 * How a value keeps its fitted entries on disk: most are the very entries it was built from, which the key
 * already names, so each such entry is saved as its number among them (a catalog of 10,000 skills then saves and
 * reads half the bytes). `pack` gives the value with `refs` applied to its entry lists, without its catalog's text,
 * which `text` gives to be kept after it as it is (read back as a part of the file's text, not parsed into a copy);
 * `unpack` undoes both with `deref` and that text on whatever was read (not yet checked).
 */
export interface EntryCodec<T> {
	pack(value: T, refs: (fitted: readonly CatalogEntry[]) => (CatalogEntry | number)[]): unknown;
	text(value: T): string;
	unpack(saved: unknown, deref: (list: unknown) => unknown, text: string | undefined): unknown;
}

/** The entries a value is built from, and where they came from when that names them all. */
export interface EntrySource {
	entries: readonly CatalogEntry[];
	/** The index they were taken from, when they are all of its catalog skills (`catalogEntries(index)`). */
	index?: SkillIndex;
}

/**
 * `build()`, or the value it gave before for the same `kind`, entries and options (all but `cacheDir`) when
 * `options.cacheDir` is set and no tokenizer was given. A saved value that is not of the right shape is ignored.
 */
export async function memoized<T>(
	kind: string,
	source: EntrySource,
	options: CacheableOptions,
	valid: (value: unknown) => value is T,
	codec: EntryCodec<T>,
	build: () => Promise<T>,
): Promise<T> {
	const { cacheDir, tokenizer, ...rest } = options;
	if (cacheDir === undefined || tokenizer !== undefined) return build();
	const { entries } = source;
	const key = entriesKey(kind, rest, source);
	if (key === undefined) return build();
	const read = readDerived(cacheDir, kind, key, { tail: true });
	const saved = read && codec.unpack(read.value, (list) => derefEntries(list, entries), read.tail);
	if (valid(saved)) return saved;
	const built = await build();
	const numbers = new Map(entries.map((entry, i) => [entry, i]));
	const refs = (fitted: readonly CatalogEntry[]) => fitted.map((entry) => numbers.get(entry) ?? entry);
	const text = codec.text(built);
	// A file holds UTF-8, which has no form for half a surrogate pair: such a text would come back changed.
	if (LONE_SURROGATE.test(text)) return built;
	writeDerived(cacheDir, kind, key, codec.pack(built, refs), text);
	return built;
}

/**
 * The key for `source`'s entries: an index that is a saved result read back (or holds some of its catalog skills) is
 * named by that result's digest and what it leaves out (its entries follow from those and this code), so a warm run
 * does not serialize and hash every skill again; other entries are named by their JSON, checked value by value
 * unless each has the plain shape.
 */
function entriesKey(kind: string, rest: object, { entries, index }: EntrySource): string | undefined {
	const name = index && resultNameOf(index);
	if (name !== undefined) return derivedKey(HERE, [kind, rest, { savedResult: name.digest, omitted: name.omitted }]);
	return entries.every(plainEntry) ? derivedKey(HERE, [kind, rest], entries) : derivedKey(HERE, [kind, rest, entries]);
}

/** A saved entry list with each number replaced by that input entry; anything else is left for the check. */
function derefEntries(list: unknown, entries: readonly CatalogEntry[]): unknown {
	if (!Array.isArray(list)) return list;
	// A number that names no entry stays a number, which no entry check passes: the value is then built again.
	return list.map((item: unknown) =>
		typeof item === "number" && Number.isInteger(item) ? (entries[item] ?? item) : item,
	);
}

const ENTRY_KEYS: ReadonlySet<string> = new Set(["name", "description", "location", "rank", "triggers"]);

/** True for an entry JSON carries unchanged: text fields, a finite rank, no other key. */
function plainEntry(entry: CatalogEntry): boolean {
	if (typeof entry !== "object" || entry === null || Object.getPrototypeOf(entry) !== Object.prototype) return false;
	const { name, description, location, rank, triggers } = entry;
	if (typeof name !== "string" || typeof description !== "string" || typeof location !== "string") return false;
	if (rank !== undefined && !(typeof rank === "number" && Number.isFinite(rank))) return false;
	if (triggers !== undefined && typeof triggers !== "string") return false;
	for (const key in entry) if (!ENTRY_KEYS.has(key)) return false;
	return true;
}

/** True when `value` is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
