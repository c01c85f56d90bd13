// Which indexes are a saved result read back whole (warm-read.ts), and the digest of that result's file. The saved
// result is checked against everything it depends on, and its file's key names the roots and settings, so two
// indexes with one digest hold the same skills: a stage that derives a value from an index (the catalog) can name
// it by this digest instead of serializing and hashing every skill again on each warm run.

const digests = new WeakMap<object, string>();

/** Records that `index` is the saved result whose file's payload has the SHA-256 `digest`. */
export function rememberResultDigest(index: object, digest: string): void {
	digests.set(index, digest);
}

/** The digest of the saved result `index` was read back from, or undefined for an index a scan built. */
export function resultDigestOf(index: object): string | undefined {
	return digests.get(index);
}
