// What walk.ts and listings.ts both check a folder by: a module of its own so that neither imports the other.

/** Folders that are never part of a served skill (and are refused on read). */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/**
 * How long after its last change an entry's `lstat` stands for what was read of it. Two writes within one tick of
 * the kernel's clock can leave size, mtime and ctime alike (the racy-git rule, as discovery's index has it), so what
 * was read of an entry changed more recently than this is not kept: it is read again next time.
 */
export const RACY_MARGIN_MS = 2000;

/** Whether an entry with these times shows no change in the {@link RACY_MARGIN_MS} before `now`. */
export function settled(times: { mtimeMs: number; ctimeMs: number }, now: number): boolean {
	return Math.max(times.mtimeMs, times.ctimeMs) < now - RACY_MARGIN_MS;
}
