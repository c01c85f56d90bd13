// Issue 18: a watch under a steady stream of file events. The quiet period has a maximum wait, so rescans still
// happen; and rescans never overlap or pile up behind a slow one.
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createDiscovery, type Discovery, type WatchEvent, watchSkills } from "skillset";
import { describe, expect, it, vi } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

async function tree(): Promise<string> {
	return writeTree(join(await tempDir(), "skills"), {
		"stay/SKILL.md": skillMd("stay"),
		"stay/notes.md": "0\n",
		"gone/SKILL.md": skillMd("gone"),
	});
}

/** Writes into the tree every 20 ms (faster than any quiet period) until stopped. */
function stream(dir: string): { stop: () => Promise<void>; writes: () => number } {
	let writes = 0;
	let running = true;
	const done = (async () => {
		while (running) {
			await writeFile(join(dir, "stay", "notes.md"), `${++writes}\n`);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	})();
	return {
		stop: async () => {
			running = false;
			await done;
		},
		writes: () => writes,
	};
}

describe("watchSkills under a steady stream of events", () => {
	it("rescans within the maximum wait even though no quiet period ever comes", async () => {
		const dir = await tree();
		const discovery = createDiscovery({ cwd: dir, home: dir, defaultRoots: false, roots: [dir] });
		const events: WatchEvent[] = [];
		const watcher = watchSkills(discovery, { debounceMs: 200, maxWaitMs: 500, onChange: (e) => events.push(e) });
		await watcher.ready;
		const writer = stream(dir);
		try {
			await rm(join(dir, "gone"), { recursive: true });
			await vi.waitFor(() => expect(events.flatMap((e) => e.removed)).toContain("gone@workspace"), {
				timeout: 15_000,
				interval: 50,
			});
			expect(watcher.index?.get("gone")).toBeUndefined();
		} finally {
			await writer.stop();
			watcher.close();
		}
		expect(writer.writes()).toBeGreaterThan(5);
	}, 30_000);

	it("never runs two rescans at once, and does not queue one per event behind a slow rescan", async () => {
		const dir = await tree();
		const real = createDiscovery({ cwd: dir, home: dir, defaultRoots: false, roots: [dir] });
		let running = 0;
		let overlapped = false;
		let scans = 0;
		// A discovery whose rescans take 300 ms, longer than the maximum wait.
		const slow: Discovery = {
			options: real.options,
			get current() {
				return real.current;
			},
			async scan() {
				running++;
				overlapped ||= running > 1;
				scans++;
				try {
					const result = await real.scan();
					if (scans > 1) await new Promise((resolve) => setTimeout(resolve, 300));
					return result;
				} finally {
					running--;
				}
			},
		};
		const watcher = watchSkills(slow, { debounceMs: 20, maxWaitMs: 50, onChange: () => undefined });
		await watcher.ready;
		const writer = stream(dir);
		await new Promise((resolve) => setTimeout(resolve, 1500));
		await writer.stop();
		// Once the events stop, at most the rescan running and one more follow: no backlog drains for seconds.
		await new Promise((resolve) => setTimeout(resolve, 1500));
		const settled = scans;
		await new Promise((resolve) => setTimeout(resolve, 1500));
		watcher.close();
		expect(scans).toBe(settled);
		expect(overlapped).toBe(false);
		expect(scans).toBeGreaterThan(2);
		expect(writer.writes()).toBeGreaterThan(scans);
	}, 30_000);
});
