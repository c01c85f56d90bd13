/** Files over this many bytes are large: their answers are made one at a time. */
export const LARGE_READ_BYTES: number = 1024 * 1024;

/** Waits for one turn of the event loop, so requests that arrived meanwhile are taken in. */
function nextTurn(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Makes large answers one at a time, with a turn of the event loop before each. A large answer costs tens of
 * milliseconds of work that cannot be split (decoding the text, then the SDK serializing an 8 MiB result in one
 * `JSON.stringify`): five of them back to back would make every small request wait for all five; in turn, a
 * small request waits for one at most. Per server.
 */
export class LargeReads {
	#tail: Promise<void> = Promise.resolve();

	/**
	 * A place in the queue: `ready` settles once the large answers queued before it have been handed over; `done`
	 * says this one's answer is made (call it once, whatever happened).
	 */
	take(): { ready: Promise<void>; done: () => void } {
		let done: () => void = () => undefined;
		const finished = new Promise<void>((resolve) => {
			done = resolve;
		});
		const ready = this.#tail.then(nextTurn);
		// The answer is serialized in the microtasks that follow its return: the next one starts a turn later.
		this.#tail = Promise.all([ready, finished]).then(nextTurn);
		return { ready, done };
	}
}
