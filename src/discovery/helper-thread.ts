import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";

// One helper thread that shares long runs of blocking calls (`stat`, `lstat`) with the thread that asks for them, for
// a kind of check (a rescan's stat check, a warm skills/list's lstat check). It starts from its script's text only at
// the second long run within `idleMs` of the one before (a single run never pays for starting a thread), ends after
// `idleMs` without work, and never keeps the process alive. The asking thread never waits for it, so a helper that is
// slow to start, starved of CPU or gone costs nothing but its own CPU. Once one fails, every later run works alone.

/** A lazily started, idle-ending helper thread for one kind of check (see above). */
export class HelperThread {
	readonly #source: string;
	readonly #idleMs: number;
	#worker: Worker | undefined;
	#timer: NodeJS.Timeout | undefined;
	#onStop: (() => void) | undefined;
	#broken = false;
	#lastLongRun = Number.NEGATIVE_INFINITY;
	/** How many items the helper decided, over every run: the proof that its code (built from text) runs. */
	readonly tally: Int32Array = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

	/** `source` is the helper's whole script (run as `eval`, as a script or a module: it must `import()`). */
	constructor(source: string, idleMs: number) {
		this.#source = source;
		this.#idleMs = idleMs;
	}

	/** The running helper, if any. */
	get worker(): Worker | undefined {
		return this.#worker;
	}

	/**
	 * Records a long run now. True when it should have the helper: one runs, or this run comes within `idleMs` of the
	 * last (then {@link start} it); false after a failure, for good.
	 */
	wanted(): boolean {
		const now = performance.now();
		const again = now - this.#lastLongRun < this.#idleMs;
		this.#lastLongRun = now;
		return !this.#broken && (this.#worker !== undefined || again);
	}

	/**
	 * Starts the helper with `workerData` (`onStop` runs when it ends, to drop what the caller keeps for it); undefined
	 * when it cannot start, and from then on every run works alone.
	 */
	start(workerData?: unknown, onStop?: () => void): Worker | undefined {
		if (this.#broken) return undefined;
		if (this.#worker) return this.#worker;
		let worker: Worker;
		try {
			// Loaded here, not with this module: a process that never checks a long run never starts a thread.
			const threads = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
			worker = new threads.Worker(this.#source, { eval: true, workerData });
		} catch {
			this.#broken = true;
			return undefined;
		}
		worker.unref();
		worker.on("error", () => {
			this.#broken = true;
			this.stop();
		});
		worker.on("exit", () => {
			if (this.#worker === worker) this.#forget();
		});
		this.#worker = worker;
		this.#onStop = onStop;
		return worker;
	}

	/** Work was handed to the helper: it ends `idleMs` after the last. */
	busy(): void {
		clearTimeout(this.#timer);
		this.#timer = setTimeout(() => this.stop(), this.#idleMs);
		this.#timer.unref();
	}

	/** Ends the helper now; runs go on answering the same, and a later long one starts a new helper. */
	stop(): void {
		const worker = this.#worker;
		if (!worker) return;
		this.#forget();
		void worker.terminate();
	}

	#forget(): void {
		this.#worker = undefined;
		clearTimeout(this.#timer);
		const onStop = this.#onStop;
		this.#onStop = undefined;
		onStop?.();
	}
}
