// Issue 23: a server may keep skill folders open between reads (HeldRoots), so a read skips opening, resolving and
// closing the folder. Written as an attacker: every change to the folder between two reads must give the answer a
// fresh read gives at that moment (never bytes from where the folder was), and the held descriptors stay bounded.
import { mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type ContainOperations,
	HeldRoots,
	NODE_CONTAIN_OPERATIONS,
	readContained,
	readContainedAsync,
} from "../../src/runtime/index.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

/** Descriptors this process has open now. */
function openFds(): number {
	return readdirSync("/proc/self/fd").length;
}

/** A skill folder with a SKILL.md and a reference, and a decoy folder beside it holding the attacker's bytes. */
async function layout(): Promise<{ base: string; skill: string; decoy: string }> {
	const base = await tempDir();
	await writeTree(base, {
		"skill/SKILL.md": "original\n",
		"skill/references/guide.md": "guide\n",
		"decoy/SKILL.md": "SECRET\n",
		"decoy/references/guide.md": "SECRET GUIDE\n",
	});
	return { base, skill: join(base, "skill"), decoy: join(base, "decoy") };
}

const text = (read: Awaited<ReturnType<typeof readContainedAsync>>): string | undefined =>
	read.ok ? Buffer.from(read.bytes).toString("utf8") : undefined;

describe.skipIf(process.platform !== "linux")("readContainedAsync with held roots", () => {
	it("serves the same bytes as a fresh read, opening the folder only once", async () => {
		const { skill } = await layout();
		const opens: string[] = [];
		const ops: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			open: (path, flags) => {
				opens.push(path);
				return NODE_CONTAIN_OPERATIONS.open(path, flags);
			},
		};
		const roots = new HeldRoots(4);
		const first = await readContainedAsync(skill, "SKILL.md", { roots, operations: ops });
		const second = await readContainedAsync(skill, "references/guide.md", { roots, operations: ops });
		expect(first).toEqual(await readContainedAsync(skill, "SKILL.md"));
		expect(second).toEqual(await readContainedAsync(skill, "references/guide.md"));
		expect(opens.filter((path) => path === skill)).toHaveLength(1);
		roots.close();
	});

	it("reads the folder now at the path after the held one was renamed away and another put there", async () => {
		const { base, skill } = await layout();
		const roots = new HeldRoots(4);
		expect(text(await readContainedAsync(skill, "SKILL.md", { roots }))).toBe("original\n");
		await rename(skill, join(base, "moved"));
		await writeTree(base, { "skill/SKILL.md": "replacement\n" });
		const held = await readContainedAsync(skill, "SKILL.md", { roots });
		expect(text(held)).toBe("replacement\n");
		expect(held).toEqual(await readContainedAsync(skill, "SKILL.md"));
		// A file only the moved folder has is not found, as a fresh read says.
		const gone = await readContainedAsync(skill, "references/guide.md", { roots });
		expect(gone).toMatchObject({ ok: false, code: "resource.not-found" });
		expect(gone).toEqual(await readContainedAsync(skill, "references/guide.md"));
		roots.close();
	});

	it("refuses, as a fresh read does, once the folder is replaced by a link to another", async () => {
		const { base, skill, decoy } = await layout();
		const roots = new HeldRoots(4);
		expect(text(await readContainedAsync(skill, "SKILL.md", { roots }))).toBe("original\n");
		await rename(skill, join(base, "moved"));
		await symlink(decoy, skill);
		const held = await readContainedAsync(skill, "SKILL.md", { roots });
		expect(held.ok).toBe(false);
		expect(held).toEqual(await readContainedAsync(skill, "SKILL.md"));
		roots.close();
	});

	it("refuses, as a fresh read does, once the folder is deleted, and lets its descriptor go", async () => {
		const { skill } = await layout();
		const roots = new HeldRoots(4);
		const before = openFds();
		expect(text(await readContainedAsync(skill, "SKILL.md", { roots }))).toBe("original\n");
		expect(openFds()).toBe(before + 1);
		await rm(skill, { recursive: true });
		const held = await readContainedAsync(skill, "SKILL.md", { roots });
		expect(held).toMatchObject({ ok: false, code: "resource.not-found" });
		expect(held).toEqual(await readContainedAsync(skill, "SKILL.md"));
		expect(roots.size).toBe(0);
		expect(openFds()).toBe(before);
	});

	it("refuses a folder of the skill swapped for a link between two reads", async () => {
		const { skill, decoy } = await layout();
		const roots = new HeldRoots(4);
		expect(text(await readContainedAsync(skill, "references/guide.md", { roots }))).toBe("guide\n");
		await rm(join(skill, "references"), { recursive: true });
		await symlink(join(decoy, "references"), join(skill, "references"));
		const held = await readContainedAsync(skill, "references/guide.md", { roots });
		expect(held).toMatchObject({ ok: false, code: "resource.symlink" });
		expect(held).toEqual(await readContainedAsync(skill, "references/guide.md"));
		roots.close();
	});

	it("never serves the old folder's bytes when the folder is moved while a read is opening its file", async () => {
		const { base, skill } = await layout();
		let moved = false;
		const ops: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			open: (path, flags) => {
				const fd = NODE_CONTAIN_OPERATIONS.open(path, flags);
				// Once the file below the held descriptor is open, the folder goes and another takes its path.
				if (!moved && path.endsWith("/SKILL.md")) {
					moved = true;
					// Moved to a sibling whose name begins with the folder's name.
					renameSync(skill, `${skill}-moved`);
					makeSkillNow(join(base, "skill"), "replacement\n");
				}
				return fd;
			},
		};
		const roots = new HeldRoots(4);
		expect(text(await readContainedAsync(skill, "references/guide.md", { roots }))).toBe("guide\n");
		const read = await readContainedAsync(skill, "SKILL.md", { roots, operations: ops });
		expect(moved).toBe(true);
		expect(text(read)).not.toBe("original\n");
		expect(read).toEqual(await readContainedAsync(skill, "SKILL.md"));
		roots.close();
	});

	it("refuses a root reached through a linked parent as the synchronous read does, file or no file", async () => {
		// A fresh read proves its root once, after opening the file: what it refuses must not differ for that.
		const { base } = await layout();
		await symlink(base, `${base}-alias`);
		const aliased = join(`${base}-alias`, "skill");
		for (const path of ["SKILL.md", "references/none.md", "references"]) {
			const sync = readContained(aliased, path);
			expect(sync).toMatchObject({ ok: false, code: "resource.changed" });
			expect(await readContainedAsync(aliased, path)).toEqual(sync);
			const roots = new HeldRoots(2);
			expect(await readContainedAsync(aliased, path, { roots })).toEqual(sync);
			expect(roots.size).toBe(0);
		}
	});

	it("holds nothing once closed: a read given the closed set opens and closes its own folder", async () => {
		const { skill } = await layout();
		const roots = new HeldRoots(4);
		roots.close();
		const before = openFds();
		expect(text(await readContainedAsync(skill, "SKILL.md", { roots }))).toBe("original\n");
		expect(roots.size).toBe(0);
		expect(openFds()).toBe(before);
	});

	it("keeps at most its bound of folders open, closing the least recently used", async () => {
		const base = await tempDir();
		const count = 10;
		for (let i = 0; i < count; i++) await writeTree(base, { [`s${i}/SKILL.md`]: `skill ${i}\n` });
		const roots = new HeldRoots(4);
		const before = openFds();
		for (let i = 0; i < count; i++) {
			expect(text(await readContainedAsync(join(base, `s${i}`), "SKILL.md", { roots }))).toBe(`skill ${i}\n`);
			expect(openFds()).toBeLessThanOrEqual(before + 4);
		}
		expect(roots.size).toBe(4);
		expect(openFds()).toBe(before + 4);
		roots.close();
		expect(openFds()).toBe(before);
	});

	it("reads thousands of distinct skills without holding more than its bound", { timeout: 60_000 }, async () => {
		const base = await tempDir();
		const count = 2000;
		await Promise.all(
			Array.from({ length: count }, async (_, i) => {
				await mkdir(join(base, `s${i}`));
				await writeFile(join(base, `s${i}`, "SKILL.md"), `skill ${i}\n`);
			}),
		);
		const roots = new HeldRoots(32);
		const before = openFds();
		let peak = before;
		for (let round = 0; round < 2; round++) {
			for (let i = 0; i < count; i++) {
				const read = await readContainedAsync(join(base, `s${i}`), "SKILL.md", { roots });
				expect(text(read)).toBe(`skill ${i}\n`);
				peak = Math.max(peak, openFds());
			}
		}
		expect(peak).toBeLessThanOrEqual(before + 32);
		roots.close();
		expect(openFds()).toBe(before);
	});
});

/** Makes a skill folder at once (an operations double cannot await). */
function makeSkillNow(dir: string, skillMd: string): void {
	mkdirSync(dir);
	writeFileSync(join(dir, "SKILL.md"), skillMd);
}
