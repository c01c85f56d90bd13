import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { derivedKey, readDerived, writeDerived } from "../discovery/derived-cache.ts";
import type { CatalogEntry } from "./render.ts";

// A fitted catalog is a pure function of its entries, its options and this code: kept in the cache folder under a
// key naming all three, a warm run with the same skills prints it without loading the tokenizer or fitting again.
// A custom tokenizer is code we cannot name in a key, so a catalog counted with one is never kept.

const HERE = dirname(fileURLToPath(import.meta.url));

/** What the cache needs from a caller's options: where it is, and whether a tokenizer of its own was given. */
interface CacheableOptions {
	cacheDir?: string;
	tokenizer?: unknown;
}

/**
 * `build()`, or the value it gave before for the same `kind`, `entries` and options (all but `cacheDir`) when
 * `options.cacheDir` is set and no tokenizer was given. A saved value that is not of the right shape is ignored.
 */
export async function memoized<T>(
	kind: string,
	entries: readonly CatalogEntry[],
	options: CacheableOptions,
	valid: (value: unknown) => value is T,
	build: () => Promise<T>,
): Promise<T> {
	const { cacheDir, tokenizer, ...rest } = options;
	if (cacheDir === undefined || tokenizer !== undefined) return build();
	const key = derivedKey(HERE, [kind, rest, entries]);
	if (key === undefined) return build();
	const saved = readDerived(cacheDir, kind, key)?.value;
	if (valid(saved)) return saved;
	const built = await build();
	writeDerived(cacheDir, kind, key, built);
	return built;
}

/** True when `value` is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
