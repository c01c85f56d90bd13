import { statSync } from "node:fs";
import type { FileSignature } from "../skill/index.ts";
import { HelperThread } from "./helper-thread.ts";

// A rescan with nothing changed costs one stat per folder and SKILL.md, and on a big tree those stats are nearly all
// of its time (in the kernel, not in JS). A stat blocks the thread that takes it, so a long list is shared with one
// helper thread: both take chunks from one shared counter, and the thread that runs out of chunks first takes back
// whatever is still undecided. This thread never waits for the helper, so a helper that is slow to start, starved
// of CPU or gone costs nothing but its own CPU; the answer is the same either way.

/** Entries per chunk taken from the shared counter: small enough to balance, big enough to keep the counter cold. */
const CHUNK = 256;
/** Lists shorter than this are checked on this thread alone: a helper costs more than it saves on them. */
export const PARALLEL_MIN_ENTRIES = 4096;
/**
 * A helper starts at the second long check within this time of the one before (a single rescan never pays for
 * starting a thread, about as much CPU as the check itself), and ends after this long idle. Its thread never keeps
 * the process alive.
 */
const HELPER_IDLE_MS = 300_000;

/**
 * Paths and the signatures they had, in shared memory: the first `structure` entries are folders (any change there
 * means the walk must run again), the rest SKILL.md files. A signature of NaN never matches: an entry that cannot
 * vouch for itself (racy) counts as changed.
 */
export class CheckList {
	readonly paths: string[] = [];
	#signatures: Float64Array;
	structure = 0;

	constructor(capacity: number) {
		const bytes = capacity * 5 * Float64Array.BYTES_PER_ELEMENT;
		const length = capacity * 5;
		this.#signatures =
			capacity >= PARALLEL_MIN_ENTRIES ? new Float64Array(new SharedArrayBuffer(bytes)) : new Float64Array(length);
	}

	get signatures(): Float64Array {
		return this.#signatures;
	}

	/** Adds `path` with `signature`, or with none that can match when `vouches` is false. */
	add(path: string, signature: FileSignature, vouches: boolean): void {
		const at = this.paths.length * 5;
		const row = this.#signatures;
		row[at] = vouches ? signature.dev : Number.NaN;
		row[at + 1] = signature.ino;
		row[at + 2] = signature.size;
		row[at + 3] = signature.mtimeMs;
		row[at + 4] = signature.ctimeMs;
		this.paths.push(path);
	}
}

/** What a check found: whether a folder changed, and which entries did (1) or kept their signature (2). */
export interface CheckResult {
	structure: boolean;
	changed: Uint8Array;
}

/** Stats every entry of `list` (sharing the work with a helper thread for long lists); stops at a changed folder. */
export function checkList(list: CheckList): CheckResult {
	const count = list.paths.length;
	const shared = count >= PARALLEL_MIN_ENTRIES && list.signatures.buffer instanceof SharedArrayBuffer;
	// next[0]: the next unclaimed entry; next[1]: 1 once a folder was seen changed.
	const next = new Int32Array(shared ? new SharedArrayBuffer(8) : new ArrayBuffer(8));
	const changed = new Uint8Array(shared ? new SharedArrayBuffer(count) : new ArrayBuffer(count));
	const job: CheckJob = {
		paths: list.paths,
		count,
		chunk: CHUNK,
		signatures: list.signatures,
		results: changed,
		next,
		structure: list.structure,
	};
	if (shared && helper.wanted()) post(list, job);
	return { structure: runCheck(job), changed };
}

/**
 * This thread's part of a check whose helper (if any) was already handed `job`: claims chunks, then decides what the
 * helper claimed and has not decided yet. True when a folder changed.
 */
export function runCheck(job: CheckJob): boolean {
	checkChunks(job, statSync);
	// Entries the helper claimed and has not decided yet: decided here too (the first answer stands).
	if (Atomics.load(job.next, 1) === 0) checkChunks({ ...job, sweep: true }, statSync);
	// A folder recorded changed counts even if its flag were not seen: the answer must not hang on write order.
	return Atomics.load(job.next, 1) === 1 || job.results.subarray(0, job.structure).includes(1);
}

/**
 * One check's shared state, as both threads see it: `results` holds 0 (undecided), 1 (changed) or 2 (kept) per
 * entry; `next[0]` is the next unclaimed entry and `next[1]` is 1 once a folder (an entry below `structure`) changed.
 */
export interface CheckJob {
	paths: readonly string[];
	count: number;
	chunk: number;
	signatures: Float64Array;
	results: Uint8Array;
	next: Int32Array;
	structure: number;
	sweep?: boolean;
	/** Set on the helper's copy only: how many entries it decided (its answer stood) is added to `tally[0]`. */
	tally?: Int32Array;
}

/**
 * Claims chunks of `job` until none is left (or, with `sweep`, decides every entry still undecided), writing 1 for an
 * entry whose signature changed (or that cannot be looked at, unless pinned as failing so) and 2 for one that kept it. Runs on both threads: it
 * uses nothing from outside but `stat`, so its source is the helper's code too.
 */
function checkChunks(job: CheckJob, stat: typeof statSync): void {
	const { paths, count, chunk, signatures: row, results, next } = job;
	const options = { bigint: false, throwIfNoEntry: false } as const;
	let decided = 0;
	let from = job.sweep ? 0 : Atomics.add(next, 0, chunk);
	claim: while (from < count && Atomics.load(next, 1) === 0) {
		const to = job.sweep ? count : Math.min(from + chunk, count);
		for (let i = from; i < to; i++) {
			if (Atomics.load(results, i) !== 0) continue;
			let info: ReturnType<typeof stat> | undefined;
			// How the stat failed, as statOrFailure in signature.ts says it (this code cannot import): 0 for no entry.
			let failure = 0;
			try {
				info = stat(paths[i] as string, options);
			} catch (error) {
				const errno = (error as NodeJS.ErrnoException).errno;
				failure = typeof errno === "number" ? errno : Number.NaN;
			}
			const at = i * 5;
			// A failed stat matches only a signature pinned for that same failure (dev -1: FAILED_DEV).
			const same =
				info === undefined
					? row[at] === -1 && row[at + 1] === failure
					: info.ino === row[at + 1] &&
						info.mtimeMs === row[at + 3] &&
						info.ctimeMs === row[at + 4] &&
						info.size === row[at + 2] &&
						info.dev === row[at];
			if (!same && i < job.structure) {
				// The flag goes up before the entry is recorded: a thread that finds the entry decided and skips it
				// then also finds the flag raised (atomics are sequentially consistent), never "nothing changed".
				Atomics.store(next, 1, 1);
				Atomics.store(next, 0, count);
				if (Atomics.compareExchange(results, i, 0, 1) === 0) decided++;
				break claim;
			}
			// The first answer stands: an entry the other thread decided meanwhile keeps its answer.
			if (Atomics.compareExchange(results, i, 0, same ? 2 : 1) === 0) decided++;
		}
		from = job.sweep ? count : Atomics.add(next, 0, chunk);
	}
	if (job.tally) Atomics.add(job.tally, 0, decided);
}

/** The paths the helper holds: a list made again after a scan that changed no path is not sent again. */
let sent: readonly string[] | undefined;

/** Hands `job` to the helper (started now if none runs), with `list`'s paths unless it holds them already. */
function post(list: CheckList, job: CheckJob): void {
	const worker = helper.worker ?? helper.start(undefined, () => (sent = undefined));
	if (!worker) return;
	const paths = sent && samePaths(sent, list.paths) ? undefined : list.paths;
	sent = list.paths;
	const { paths: _paths, sweep: _sweep, ...shared } = job;
	worker.postMessage({ ...shared, paths, tally: helper.tally });
	helper.busy();
}

/** How many entries of long lists the helper thread has decided so far, in this process. */
export function statHelperDecided(): number {
	return Atomics.load(helper.tally, 0);
}

/**
 * Ends the helper thread now and drops the paths it holds, instead of after {@link HELPER_IDLE_MS} idle. Checks go
 * on answering the same: a later long check starts a new helper (the thread is shared by every discovery).
 */
export function stopStatHelper(): void {
	helper.stop();
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
	if (a === b) return true;
	if (a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

// Runs as a script or as a module (a worker's eval follows the process's --input-type): so `import()`, not `require`.
const HELPER_SOURCE = `"use strict";
const checkChunks = ${checkChunks.toString()};
Promise.all([import("node:worker_threads"), import("node:fs")]).then(([{ parentPort }, { statSync }]) => {
	let paths = [];
	parentPort.on("message", (job) => {
		if (job.paths) paths = job.paths;
		checkChunks({ ...job, paths }, statSync);
	});
});
`;
/** The helper thread every discovery in this process shares. */
const helper = new HelperThread(HELPER_SOURCE, HELPER_IDLE_MS);
