/** Files over this many bytes are large: their answers are made one at a time. */
export const LARGE_READ_BYTES: number = 1024 * 1024;

/**
 * Large reads a server lets wait at once (the one being answered included); one more is refused with `mcp.busy`.
 * A waiting read holds no descriptor and no buffer, only its request: the bound keeps a flood of them from making
 * every later large read wait behind thousands.
 */
export const MAX_WAITING_LARGE_READS = 64;

/**
 * Large reads one connection may have waiting at once: a quarter of the whole bound. The share is per socket (or any
 * owner a caller names), not per client: a client with several sockets gets a share on each, so a single socket's
 * flood leaves room for at least three others, and a client that opens many fills the whole bound like any crowd.
 */
export const MAX_WAITING_PER_CONNECTION: number = MAX_WAITING_LARGE_READS / 4;

/** Why {@link LargeReads.take} gave no place: the whole queue is full, or the asking connection's share is. */
export type LargeReadRefusal = "full" | "share";

/** Waits for one turn of the event loop, so requests that arrived meanwhile are taken in. */
function nextTurn(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** A place in the large-read queue. */
export interface LargeReadTurn {
	/** Settles once the large answers queued before this one have been handed over. */
	ready: Promise<void>;
	/** Says this one's answer is made (call it once, whatever happened; later calls do nothing). */
	done: () => void;
}

/**
 * Makes large answers one at a time, with a turn of the event loop before each. A large answer costs tens of
 * milliseconds of work that cannot be split (decoding the text, then the SDK serializing an 8 MiB result in one
 * `JSON.stringify`): five of them back to back would make every small request wait for all five; in turn, a
 * small request waits for one at most. Per server; at most `max` wait at once, and at most `perOwner` of one owner.
 */
export class LargeReads {
	#tail: Promise<void> = Promise.resolve();
	#waiting = 0;
	readonly #max: number;
	readonly #perOwner: number;
	/** Each owner's waiting reads (an owner with none is not kept). */
	readonly #owners = new Map<object, number>();

	constructor(max: number = MAX_WAITING_LARGE_READS, perOwner: number = MAX_WAITING_PER_CONNECTION) {
		this.#max = max;
		this.#perOwner = perOwner;
	}

	/**
	 * A place in the queue for a read of `owner` (its connection; none for a library caller, bound by the whole queue
	 * only), or why there is none (the read is then refused, not queued).
	 */
	take(owner?: object): LargeReadTurn | LargeReadRefusal {
		if (this.#waiting >= this.#max) return "full";
		const owned = owner === undefined ? 0 : (this.#owners.get(owner) ?? 0);
		if (owner !== undefined && owned >= this.#perOwner) return "share";
		this.#waiting++;
		if (owner !== undefined) this.#owners.set(owner, owned + 1);
		let finish: () => void = () => undefined;
		const finished = new Promise<void>((resolve) => {
			finish = resolve;
		});
		let open = true;
		const done = () => {
			if (!open) return;
			open = false;
			this.#waiting--;
			if (owner !== undefined) this.#release(owner);
			finish();
		};
		const ready = this.#tail.then(nextTurn);
		// The answer is serialized in the microtasks that follow its return: the next one starts a turn later.
		this.#tail = Promise.all([ready, finished]).then(nextTurn);
		return { ready, done };
	}

	#release(owner: object): void {
		const owned = (this.#owners.get(owner) ?? 1) - 1;
		if (owned > 0) this.#owners.set(owner, owned);
		else this.#owners.delete(owner);
	}
}
