import { existsSync, type FSWatcher, watch as watchPath } from "node:fs";
import { dirname } from "node:path";

/**
 * Waits for roots that do not exist yet (a `.agents/skills` made after the watch started): each is watched through
 * its nearest existing ancestor, one level at a time, without recursion (a watch on a home folder costs one handle,
 * not one per folder below it). When a root appears, `appeared` gets it; the caller then watches it recursively.
 */
export class MissingRoots {
	readonly #waiting = new Map<string, { ancestor: string; watcher: FSWatcher | undefined }>();
	readonly #appeared: (root: string) => void;
	readonly #onError: (error: unknown) => void;

	constructor(appeared: (root: string) => void, onError: (error: unknown) => void) {
		this.#appeared = appeared;
		this.#onError = onError;
	}

	/** Starts waiting for `roots`. */
	add(roots: readonly string[]): void {
		for (const root of roots) this.#waiting.set(root, { ancestor: "", watcher: undefined });
		this.#check();
	}

	close(): void {
		for (const entry of this.#waiting.values()) entry.watcher?.close();
		this.#waiting.clear();
	}

	/** After any event on an ancestor: hand over roots that exist now, and move each watch to the nearest ancestor. */
	#check = (): void => {
		for (const [root, entry] of this.#waiting) {
			if (existsSync(root)) {
				entry.watcher?.close();
				this.#waiting.delete(root);
				this.#appeared(root);
				continue;
			}
			const ancestor = nearestExisting(root);
			if (ancestor === entry.ancestor) continue;
			entry.watcher?.close();
			entry.ancestor = ancestor;
			try {
				entry.watcher = watchPath(ancestor, this.#check);
				entry.watcher.on("error", this.#onError);
			} catch (error) {
				entry.watcher = undefined;
				this.#onError(error);
			}
		}
	};
}

function nearestExisting(path: string): string {
	let dir = dirname(path);
	while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
	return dir;
}
