import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { signatureOf } from "../../src/discovery/signature.ts";
import {
	CheckList,
	checkList,
	PARALLEL_MIN_ENTRIES,
	runCheck,
	statHelperDecided,
	stopStatHelper,
} from "../../src/discovery/stat-check.ts";
import { tempDir } from "../helpers/temp.ts";

// The no-change check shares its stats with a helper thread. Whatever order the two threads' writes land in, a folder
// seen changed by either must make the check say "a folder changed": else the walk is reused over a changed folder.

/** A list of `folders` unchanged folders then `files` unchanged files, all real, with signatures that match now. */
async function unchangedList(folders: number, files: number): Promise<CheckList> {
	const base = await tempDir();
	const list = new CheckList(folders + files);
	for (let i = 0; i < folders; i++) {
		const dir = join(base, `d${i}`);
		mkdirSync(dir);
		list.add(dir, signatureOf(statSync(dir)), true);
	}
	list.structure = folders;
	for (let i = 0; i < files; i++) {
		const file = join(base, `f${i}`);
		writeFileSync(file, "x\n");
		list.add(file, signatureOf(statSync(file)), true);
	}
	return list;
}

function jobOf(list: CheckList) {
	return {
		paths: list.paths,
		count: list.paths.length,
		chunk: 4,
		signatures: list.signatures,
		results: new Uint8Array(list.paths.length),
		next: new Int32Array(2),
		structure: list.structure,
	};
}

describe("the shared no-change check", () => {
	it("reports a folder change the helper recorded before it raised the folder flag", async () => {
		const list = await unchangedList(3, 5);
		const job = jobOf(list);
		// The helper decided folder 1 changed and stored that; its "a folder changed" flag is not raised yet.
		job.results[1] = 1;
		expect(runCheck(job)).toBe(true);
	});

	it("says nothing changed when every entry kept its signature, and sees a changed file only as a file", async () => {
		const list = await unchangedList(3, 5);
		const job = jobOf(list);
		expect(runCheck(job)).toBe(false);
		expect([...job.results]).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
		const again = jobOf(list);
		writeFileSync(list.paths[5] as string, "changed, longer\n");
		expect(runCheck(again)).toBe(false);
		expect(again.results[5]).toBe(1);
	});
});

describe("the stat helper thread", { timeout: 60_000 }, () => {
	it("decides entries of a long list once it runs, and a stopped helper leaves the answers as they were", async () => {
		const list = await unchangedList(10, PARALLEL_MIN_ENTRIES);
		// The helper starts at the second long check and may be late to the first ones it is sent: a bounded number of
		// checks, each giving it a moment to start, until it decided something (its code is built from source text).
		for (let i = 0; i < 100 && statHelperDecided() === 0; i++) {
			expect(checkList(list).structure).toBe(false);
			await sleep(20);
		}
		expect(statHelperDecided()).toBeGreaterThan(0);
		stopStatHelper();
		writeFileSync(list.paths[10 + 7] as string, "changed, longer\n");
		const found = checkList(list);
		expect(found.structure).toBe(false);
		expect([...found.changed].filter((value) => value === 1)).toHaveLength(1);
		expect(found.changed[10 + 7]).toBe(1);
	});
});
