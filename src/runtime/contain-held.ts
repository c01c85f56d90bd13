import { type ContainOperations, type OpenedRoot, openRoot, rootInPlace } from "./contain.ts";
import type { ContainError } from "./contain-errors.ts";

/** Folders a {@link HeldRoots} keeps open when no bound is given. */
export const DEFAULT_HELD_ROOTS = 64;

interface Held {
	/** The root as the caller named it (the map's key; `opened.root` is it resolved). */
	key: string;
	opened: OpenedRoot;
	ops: ContainOperations;
}

/**
 * Skill folders kept open between contained reads, so a read of a folder read recently skips opening the folder,
 * resolving its descriptor and closing it again (four of a small read's thirteen system calls). At most `max` are
 * held; taking one more closes the least recently used. Nothing about a held folder is trusted beyond its
 * descriptor's identity: every read through it still proves, after opening its file, that the file's kernel path
 * lies below the folder's path and that the descriptor is still the folder at that path. A read refused through a
 * held folder that is no longer at its path is answered by a fresh open instead (see `readContainedAsync`).
 *
 * Every use of a held descriptor happens within one synchronous stretch of a read, so closing one (eviction, `drop`,
 * `close`) never pulls it from under a read. The owner closes the set when it stops (a server on close and on a
 * new snapshot).
 */
export class HeldRoots {
	readonly #held = new Map<string, Held>();
	#closed = false;
	/** The most folders held open at once. */
	readonly max: number;

	constructor(max: number = DEFAULT_HELD_ROOTS) {
		if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`max must be a positive integer (got ${max})`);
		this.max = max;
	}

	/** Folders held open now. */
	get size(): number {
		return this.#held.size;
	}

	/**
	 * The held folder at `root`, or the folder opened now (and proven to be the one at that real path) and held; the
	 * refusal of that open otherwise. The caller must not close it.
	 */
	take(root: string, ops: ContainOperations): OpenedRoot | ContainError {
		// Keyed by the name as given (a server names each folder one way): no resolving on every read.
		const key = root;
		const held = this.#held.get(key);
		if (held) {
			// Most recently used last: the map's order is the eviction order.
			this.#held.delete(key);
			this.#held.set(key, held);
			return held.opened;
		}
		// Not proven here: every read through it proves it in place after opening its file (see `keep` for refusals).
		const opened = openRoot(key, ops, false);
		if ("ok" in opened) return opened;
		this.#held.set(key, { key, opened, ops });
		for (const [oldest, entry] of this.#held) {
			if (this.#held.size <= this.max) break;
			this.#held.delete(oldest);
			entry.ops.close(entry.opened.fd);
		}
		return opened;
	}

	/**
	 * Whether `opened` (taken from this set) is still the folder at its path (undefined: the system cannot tell); when
	 * it is not true, the folder is closed and forgotten, so the next take opens the folder at the path afresh.
	 */
	keep(opened: OpenedRoot, ops: ContainOperations): boolean | undefined {
		const inPlace = rootInPlace(opened, ops);
		if (inPlace !== true) this.drop(opened);
		return inPlace;
	}

	/** Closes and forgets `opened`, if this set still holds it. */
	drop(opened: OpenedRoot): void {
		// Only on a refusal: a walk of at most `max` entries.
		for (const held of this.#held.values()) {
			if (held.opened !== opened) continue;
			this.#held.delete(held.key);
			held.ops.close(opened.fd);
			return;
		}
	}

	/** Closes every held folder. The set can be used again afterwards (it opens folders anew). */
	clear(): void {
		const all = [...this.#held.values()];
		this.#held.clear();
		for (const { opened, ops } of all) ops.close(opened.fd);
	}

	/** Whether the set was closed: reads given it then open and close their folders themselves. */
	get closed(): boolean {
		return this.#closed;
	}

	/**
	 * Closes every held folder for good: a read still under way (one that waited its turn) opens its folder for itself
	 * and closes it, so nothing is held after the owner stopped.
	 */
	close(): void {
		this.#closed = true;
		this.clear();
	}
}
