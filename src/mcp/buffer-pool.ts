/** A buffer lent by a {@link BufferPool}: its bytes, and the call that gives it back (once; later calls do nothing). */
export interface Lease {
	bytes: Uint8Array;
	release(): void;
}

const MIB = 1024 * 1024;
const KEEP = (): void => undefined;

/**
 * File buffers for large reads, reused: every 8 MiB answer allocating its own 8 MiB made the collector run full
 * collections that every other request waited out. A buffer is lent to one read and comes back only when the answer
 * holding it has been written (or given up); a lease never released is simply collected. Buffers are kept by size
 * class (whole MiB), at most `maxBytes` of them idle. Per server.
 */
export class BufferPool {
	readonly #free = new Map<number, ArrayBuffer[]>();
	readonly #minBytes: number;
	readonly #maxBytes: number;
	#idle = 0;

	/** Reads under `minBytes` get a buffer of their own; at most `maxBytes` of idle buffers are kept. */
	constructor(minBytes: number, maxBytes: number = 32 * MIB) {
		this.#minBytes = minBytes;
		this.#maxBytes = maxBytes;
	}

	/** A buffer of exactly `size` bytes, lent until released. */
	lease(size: number): Lease {
		// A small read's own buffer, not zeroed (from Node's shared slab when tiny): the contained read hands on only
		// the bytes it read into it, so nothing that was in the memory before can reach an answer.
		if (size < this.#minBytes) return { bytes: Buffer.allocUnsafe(size), release: KEEP };
		const sizeClass = Math.ceil(size / MIB) * MIB;
		let buffer = this.#free.get(sizeClass)?.pop();
		if (buffer) this.#idle -= sizeClass;
		buffer ??= new ArrayBuffer(sizeClass);
		let lent = true;
		const release = () => {
			// A second release would put one buffer in the pool twice, to be lent to two answers at once.
			if (!lent) return;
			lent = false;
			if (this.#idle + sizeClass > this.#maxBytes) return;
			const free = this.#free.get(sizeClass) ?? [];
			free.push(buffer);
			this.#free.set(sizeClass, free);
			this.#idle += sizeClass;
		};
		return { bytes: new Uint8Array(buffer, 0, size), release };
	}
}
