import { setImmediate as nextTurn } from "node:timers/promises";

/** How many synchronous file-system steps run between two turns of the event loop. */
const BATCH_SIZE = 64;

/**
 * Maps `items` through a synchronous `task` in batches, yielding to the event loop between batches. Discovery
 * does its file-system calls synchronously (several times cheaper than async calls for many small files) and this
 * keeps any one stall of the event loop to one batch.
 */
export async function mapInBatches<T, R>(
	items: readonly T[],
	task: (item: T) => R,
	size: number = BATCH_SIZE,
): Promise<R[]> {
	const results: R[] = [];
	await forEachInBatches(items, (item) => results.push(task(item)), size);
	return results;
}

/** {@link mapInBatches} for a task run for its effect: no array of results. */
export async function forEachInBatches<T>(
	items: readonly T[],
	task: (item: T) => void,
	size: number = BATCH_SIZE,
): Promise<void> {
	for (let start = 0; start < items.length; start += size) {
		if (start > 0) await nextTurn();
		const end = Math.min(items.length, start + size);
		for (let i = start; i < end; i++) task(items[i] as T);
	}
}
