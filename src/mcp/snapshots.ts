import {
	createDiscovery,
	type DiscoveryReport,
	discover,
	type SkillIndex,
	type WatchEvent,
} from "../discovery/index.ts";
import { watchSkills } from "../discovery/watch.ts";
import { SkillsetError } from "../skill/index.ts";
import type { ServeSnapshot } from "./connection.ts";
import type { SkillServerOptions } from "./options.ts";

/** The snapshot served now, swapped whole after each rescan that changed the index. */
export interface Snapshots {
	current(): ServeSnapshot;
	close(): void;
}

/** How a snapshot is made from a discovered index, and what happens when one replaces another. */
export interface SnapshotHooks {
	make(index: SkillIndex, report: DiscoveryReport | undefined): Promise<ServeSnapshot>;
	swapped(previous: ServeSnapshot, next: ServeSnapshot): void;
	error(error: unknown): void;
}

/**
 * The first snapshot, from a ready index, one discovery, or a watch; with a watch, every change makes a new one.
 * Rescans wait for the first snapshot, so a change during start-up is never overwritten by it.
 */
export async function startSnapshots(options: SkillServerOptions, hooks: SnapshotHooks): Promise<Snapshots> {
	if (options.index || !options.watch) {
		const found = options.index ? { index: options.index, report: undefined } : await discover(options);
		const only = await hooks.make(found.index, found.report);
		return { current: () => only, close: () => undefined };
	}
	let snapshot: ServeSnapshot | undefined;
	// Only the latest rescan matters: one that arrives while a snapshot is being made waits, and replaces any older
	// one still waiting, so a burst of rescans never queues up snapshots.
	let waiting: WatchEvent | undefined;
	let making = true;
	const makeWaiting = async (): Promise<void> => {
		making = true;
		while (waiting) {
			const event = waiting;
			waiting = undefined;
			try {
				const next = await hooks.make(event.index, event.report);
				const previous = snapshot;
				snapshot = next;
				if (previous) hooks.swapped(previous, next);
			} catch (error) {
				hooks.error(error);
			}
		}
		making = false;
	};
	const watcher = watchSkills(createDiscovery(options), {
		debounceMs: options.debounceMs,
		...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
		onChange: (event) => {
			waiting = event;
			if (!making) void makeWaiting();
		},
		onError: hooks.error,
	});
	try {
		const first = await watcher.ready;
		snapshot = await hooks.make(first.index, first.report);
	} catch (error) {
		watcher.close();
		throw error;
	}
	await makeWaiting();
	return {
		current() {
			if (!snapshot) throw new SkillsetError("internal", "the skills server has no snapshot");
			return snapshot;
		},
		close: () => watcher.close(),
	};
}
