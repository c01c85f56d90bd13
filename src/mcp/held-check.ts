import { lstatSync } from "node:fs";
import { HelperThread } from "../discovery/index.ts";
import { FIELDS, type HeldEntry, stillHeld } from "./held-entry.ts";

// A warm skills/list is one `lstat` per folder and file of every skill it lists (the floor a use pays: nothing else
// tells an in-place rewrite), and on a big tree those lstats are most of its time, spent in the kernel. An `lstat`
// blocks the thread that makes it, so a long run of them is shared with one helper thread: both claim chunks from one
// shared counter, and this thread then decides whatever the helper claimed and has not decided yet. This thread never
// waits for the helper: a helper that is slow to start, starved of CPU or gone costs nothing but its own CPU, and the
// answer is the same either way (every path is compared field for field with what the entry was built from).

/** Paths per chunk claimed from the shared counter: small enough to balance a page's stretch between two threads. */
const CHUNK = 16;
/** Checks of fewer paths run on this thread alone: posting them to the helper costs more than it saves. */
export const PARALLEL_MIN_PATHS = 128;
/** The helper ends after this long without a check; its thread never keeps the process alive. */
const HELPER_IDLE_MS = 60_000;
/** The least a helper's arena holds: a page's stretch of 100 skills of a few files each, with room to spare. */
const ARENA_PATHS = 4096;
const ARENA_BYTES = ARENA_PATHS * 128;

/**
 * One check's shared state as both threads see it: `bytes` and `ends` the paths, `kept` holds each path's
 * {@link FIELDS} fields as the entry was built from them, `results` 0 (undecided), 1 (changed or gone) or 2
 * (unchanged) per path, and `next[0]` the next unclaimed path.
 */
export interface HeldJob {
	/** The paths in UTF-8, one after another; path `i` ends at `ends[i]`. */
	bytes: Uint8Array;
	ends: Int32Array;
	count: number;
	chunk: number;
	kept: Float64Array;
	results: Uint8Array;
	next: Int32Array;
	sweep?: boolean;
	/** Set on the helper's copy only: how many paths it decided (its answer stood) is added to `tally[0]`. */
	tally?: Int32Array;
}

/**
 * Shared memory the helper is started with and keeps: a check writes its paths there and wakes the helper (no message
 * posted per check). `control[0]` is the next unclaimed path, `control[1]` 1 while a check owns the arena (set by this
 * thread, cleared by the helper when done with it), `control[2]` counts the checks handed over, `control[3]` the
 * paths in the last.
 */
interface Arena {
	control: Int32Array;
	bytes: Uint8Array;
	ends: Int32Array;
	kept: Float64Array;
	results: Uint8Array;
}

function sharedArena(paths: number, bytes: number): Arena {
	const shared = (size: number) => new SharedArrayBuffer(size);
	return {
		control: new Int32Array(shared(4 * Int32Array.BYTES_PER_ELEMENT)),
		bytes: new Uint8Array(shared(bytes)),
		ends: new Int32Array(shared(paths * Int32Array.BYTES_PER_ELEMENT)),
		kept: new Float64Array(shared(paths * FIELDS * Float64Array.BYTES_PER_ELEMENT)),
		results: new Uint8Array(shared(paths)),
	};
}

/**
 * Whether each of `held` is still what its folder holds (every folder and file `lstat`ed and compared), in order.
 * A long list is shared with the helper thread when it is free; the answers are those of {@link stillHeld} either way.
 */
export function checkHeld(held: readonly HeldEntry[]): boolean[] {
	let count = 0;
	let size = 0;
	for (const entry of held) {
		count += entry.paths.length;
		size += entry.bytes.length;
	}
	const job = count >= PARALLEL_MIN_PATHS ? claim(count, size) : undefined;
	if (!job) return held.map(stillHeld);
	const { bytes, ends, kept, results } = job;
	let path = 0;
	let byte = 0;
	for (const entry of held) {
		bytes.set(entry.bytes, byte);
		kept.set(entry.stats, path * FIELDS);
		for (const end of entry.ends) ends[path++] = byte + end;
		byte += entry.bytes.length;
	}
	job.start();
	runHeldJob(job);
	const verdicts: boolean[] = [];
	let at = 0;
	for (const entry of held) {
		const end = at + entry.paths.length;
		let same = true;
		for (; at < end; at++) if (results[at] !== 2) same = false;
		verdicts.push(same);
	}
	return verdicts;
}

/** This thread's part of a job the helper (if any) was handed: claims chunks, then decides what is left undecided. */
export function runHeldJob(job: HeldJob): void {
	checkChunks(job, lstatSync);
	checkChunks({ ...job, sweep: true }, lstatSync);
}

/**
 * Claims chunks of `job` until none is left (or, with `sweep`, decides every path still undecided), writing 2 for a
 * path whose `lstat` gives every kept field back and 1 for any other (changed, gone, or failing: ENOTDIR, ELOOP). Runs
 * on both threads: it uses nothing from outside but `lstat`, so its source is the helper's code too.
 */
function checkChunks(job: HeldJob, lstat: typeof lstatSync): void {
	const { bytes, ends, count, chunk, kept, results, next } = job;
	const options = { bigint: false, throwIfNoEntry: false } as const;
	let decided = 0;
	let from = job.sweep ? 0 : Atomics.add(next, 0, chunk);
	while (from < count) {
		const to = job.sweep ? count : Math.min(from + chunk, count);
		for (let i = from; i < to; i++) {
			if (Atomics.load(results, i) !== 0) continue;
			let info: ReturnType<typeof lstat> | undefined;
			try {
				// Node takes any Uint8Array as a path (its types say Buffer, which a posted Buffer is not any more).
				info = lstat(bytes.subarray(i === 0 ? 0 : ends[i - 1], ends[i]) as Buffer, options);
			} catch {
				info = undefined;
			}
			// FIELDS, spelled out: the helper's code is this function's text alone.
			const at = i * 6;
			const same =
				info !== undefined &&
				info.ino === kept[at + 1] &&
				info.mtimeMs === kept[at + 3] &&
				info.ctimeMs === kept[at + 4] &&
				info.size === kept[at + 2] &&
				info.dev === kept[at] &&
				info.mode === kept[at + 5];
			// The first answer stands: a path the other thread decided meanwhile keeps its answer.
			if (Atomics.compareExchange(results, i, 0, same ? 2 : 1) === 0) decided++;
		}
		from = job.sweep ? count : Atomics.add(next, 0, chunk);
	}
	if (job.tally) Atomics.add(job.tally, 0, decided);
}

/** The arena of the running helper (a new helper gets a new one). */
let arena: Arena | undefined;
/** The largest check an arena was too small for: a new helper's arena fits it (no thread started per page). */
let largest = { count: 0, size: 0 };

/**
 * The helper's arena as a job of `count` paths (`size` bytes), for this thread to fill then `start`: the helper is
 * started (with an arena for checks this size and more) at the second long check within {@link HELPER_IDLE_MS} of the
 * one before, so one listing of a small tree (a single stretch) never pays for starting a thread and an enumeration of
 * a big one starts it at its second stretch. Undefined without a helper, or while it is still on the last check (this
 * thread then checks alone: it never waits for the helper).
 */
function claim(count: number, size: number): (HeldJob & { start(): void }) | undefined {
	if (!helper.wanted()) return undefined;
	if (!helper.worker) {
		const made = sharedArena(
			Math.max(2 * count, 2 * largest.count, ARENA_PATHS),
			Math.max(2 * size, 2 * largest.size, ARENA_BYTES),
		);
		if (!helper.start({ arena: made, tally: helper.tally }, () => (arena = undefined))) return undefined;
		arena = made;
	}
	const shared = arena;
	if (!shared || Atomics.compareExchange(shared.control, 1, 0, 1) !== 0) return undefined;
	const { control, results } = shared;
	if (results.length < count || shared.bytes.length < size) {
		// Too small for this check: the next long one starts a helper with an arena that fits this one too.
		largest = { count: Math.max(largest.count, count), size: Math.max(largest.size, size) };
		helper.stop();
		return undefined;
	}
	results.fill(0, 0, count);
	control[0] = 0;
	const start = () => {
		Atomics.store(control, 3, count);
		Atomics.add(control, 2, 1);
		Atomics.notify(control, 2);
		helper.busy();
	};
	return { ...shared, next: control, count, chunk: CHUNK, start };
}

/** How many paths of long checks the helper thread has decided so far, in this process. */
export function heldHelperDecided(): number {
	return Atomics.load(helper.tally, 0);
}

/** Ends the helper thread now; checks answer the same, and a later long one starts a new helper. */
export function stopHeldHelper(): void {
	helper.stop();
}

// Runs as a script or as a module (a worker's eval follows the process's --input-type): so `import()`, not `require`.
// It waits on the arena's check counter, between checks and for good: terminating the worker ends the wait.
const HELPER_SOURCE = `"use strict";
const checkChunks = ${checkChunks.toString()};
Promise.all([import("node:worker_threads"), import("node:fs")]).then(([{ workerData }, { lstatSync }]) => {
	const { arena, tally } = workerData;
	const control = arena.control;
	let seen = 0;
	for (;;) {
		Atomics.wait(control, 2, seen);
		seen = Atomics.load(control, 2);
		checkChunks({ ...arena, next: control, count: Atomics.load(control, 3), chunk: ${CHUNK}, tally }, lstatSync);
		// Done with the arena: the next check may fill it.
		Atomics.store(control, 1, 0);
	}
});
`;
/** The helper thread of this process's servers. */
const helper = new HelperThread(HELPER_SOURCE, HELPER_IDLE_MS);
