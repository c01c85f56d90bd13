// A second public entry of the `discovery/` stage (beside index.ts): only a server that watches needs the watcher,
// so a scan does not load it (start-up pays for every module).

import { type FSWatcher, watch as watchPath } from "node:fs";
import type { Discovery, DiscoveryResult } from "./discover.ts";
import type { IndexedSkill } from "./resolve.ts";
import type { SkillIndex } from "./skill-index.ts";
import { stopStatHelper } from "./stat-check.ts";
import { MissingRoots } from "./watch-missing.ts";

/** Default longest wait from a file event to the rescan that covers it. */
const DEFAULT_MAX_WAIT_MS = 2000;

/** Which skills (by qualified name) a rescan added, changed or removed. */
export interface IndexChanges {
	added: string[];
	changed: string[];
	removed: string[];
}

/** A change notification: what changed, and the new index and report (already swapped in). */
export interface WatchEvent extends IndexChanges, DiscoveryResult {}

/** Options for {@link watchSkills}. */
export interface WatchOptions {
	/** Quiet time after the last file event before rescanning. Default 200 ms. */
	debounceMs?: number;
	/**
	 * Longest wait from the first unscanned file event to a rescan, however often events keep coming: a steady
	 * stream of changes never postpones a rescan forever. Default 2,000 ms (never less than `debounceMs`).
	 */
	maxWaitMs?: number;
	/** Called after each rescan that changed the index. */
	onChange: (event: WatchEvent) => void;
	/** Called when a rescan fails (it should not; discovery reports problems as diagnostics). */
	onError?: (error: unknown) => void;
}

/** A running watch. `index` is always the latest complete index; `close()` stops it. */
export interface SkillWatcher {
	readonly index: SkillIndex | undefined;
	/** Resolves when the first scan has finished. */
	readonly ready: Promise<DiscoveryResult>;
	/** Stops watching and releases every file watcher; the last index stays readable. */
	close(): void;
}

/**
 * Watches the discovery's existing roots recursively. File events are debounced (with a maximum wait, so a steady
 * stream of events still gets rescans); then an incremental rescan runs and, only if the index differs, the new
 * index replaces the old one in one step and `onChange` says exactly what changed. Rescans never overlap or queue up:
 * events during a rescan lead to one more. A root that does not exist yet (a conventional folder) is waited for
 * through its nearest existing folder: when it appears, it is rescanned and watched like the others.
 */
export function watchSkills(discovery: Discovery, options: WatchOptions): SkillWatcher {
	const debounceMs = options.debounceMs ?? 200;
	const maxWaitMs = Math.max(debounceMs, options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
	const watchers: FSWatcher[] = [];
	let timer: NodeJS.Timeout | undefined;
	/** When the first event not yet covered by a rescan arrived. */
	let firstEventAt: number | undefined;
	let closed = false;
	let running: Promise<void> | undefined;
	/** Events arrived while a rescan ran: one more rescan follows it (never a queue of them). */
	let again = false;

	const rescan = async (): Promise<void> => {
		const before = discovery.current?.index;
		const result = await discovery.scan();
		if (closed || !before) return;
		const changes = diffIndexes(before, result.index);
		if (changes.added.length + changes.changed.length + changes.removed.length > 0) {
			options.onChange({ ...changes, ...result });
		}
	};
	const run = (): void => {
		timer = undefined;
		firstEventAt = undefined;
		if (closed) return;
		if (running) {
			again = true;
			return;
		}
		running = rescan()
			.catch((error: unknown) => options.onError?.(error))
			.finally(() => {
				running = undefined;
				if (again && !closed) {
					again = false;
					run();
				}
			});
	};
	const schedule = (): void => {
		if (closed) return;
		const now = Date.now();
		firstEventAt ??= now;
		clearTimeout(timer);
		// Quiet for debounceMs, but never later than maxWaitMs after the first event of this burst.
		timer = setTimeout(run, Math.max(0, Math.min(debounceMs, firstEventAt + maxWaitMs - now)));
	};

	const watchRoot = (path: string): void => {
		try {
			const watcher = watchPath(path, { recursive: true }, schedule);
			watcher.on("error", (error) => options.onError?.(error));
			watchers.push(watcher);
		} catch (error) {
			options.onError?.(error);
		}
	};
	const missing = new MissingRoots(
		(path) => {
			if (closed) return;
			watchRoot(path);
			schedule();
		},
		(error) => options.onError?.(error),
	);
	const ready = discovery.scan().then((result) => {
		if (closed) return result;
		// An origin's verified copies change only when the origin is read again (each rescan does), never by a file
		// event; its cache folder does not even exist before its first good load.
		for (const root of result.report.roots) if (root.exists && root.origin === undefined) watchRoot(root.path);
		// Local folders only: an origin's root is a cache the origin fills, not a folder a user creates.
		missing.add(result.report.roots.filter((root) => !root.exists && !root.origin).map((root) => root.path));
		return result;
	});
	return {
		get index() {
			return discovery.current?.index;
		},
		ready,
		close() {
			closed = true;
			clearTimeout(timer);
			for (const watcher of watchers) watcher.close();
			missing.close();
			// A closed watch rescans no more: its stat helper (if any) would sit idle for minutes holding every path.
			// Another discovery still scanning just starts a new one at its next long check.
			stopStatHelper();
		},
	};
}

/** The skills that differ between two indexes, by qualified name, each list in name order. */
export function diffIndexes(before: SkillIndex, after: SkillIndex): IndexChanges {
	const old = new Map(before.skills.map((skill) => [skill.qualifiedName, skill]));
	const current = new Map(after.skills.map((skill) => [skill.qualifiedName, skill]));
	const added = [...current.keys()].filter((name) => !old.has(name));
	const removed = [...old.keys()].filter((name) => !current.has(name));
	const changed = [...current.entries()]
		.filter(([name, skill]) => {
			const previous = old.get(name);
			return previous !== undefined && fingerprint(previous) !== fingerprint(skill);
		})
		.map(([name]) => name);
	return { added: added.sort(), changed: changed.sort(), removed: removed.sort() };
}

function fingerprint(skill: IndexedSkill): string {
	const { file, mtimeMs, size, status, name, description, shadowedBy, modelInvocable } = skill;
	return JSON.stringify([file, mtimeMs, size, status, name, description, shadowedBy, modelInvocable]);
}
