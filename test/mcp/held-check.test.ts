import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { checkHeld, heldHelperDecided, PARALLEL_MIN_PATHS, stopHeldHelper } from "../../src/mcp/held-check.ts";
import { type HeldEntry, holdEntry } from "../../src/mcp/held-entry.ts";
import { walkSkill } from "../../src/mcp/walk.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// A warm skills/list checks every held entry with one lstat per folder and file, a long run of them shared with a
// helper thread. Whichever thread looks at a path, a change an attacker made there must count: else a listing would
// publish digests of bytes that are no longer there, or list a file swapped for a link.

const SKILLS = 400;
const rules = { maxBytes: 1 << 20, allowHardLinks: false };

/** Held entries of `SKILLS` real skill folders (a SKILL.md, a note, a reference in a sub-folder), settled. */
async function heldEntries(): Promise<{ root: string; held: HeldEntry[] }> {
	const files: Record<string, string> = {};
	for (let i = 0; i < SKILLS; i++) {
		files[`s${i}/SKILL.md`] = skillMd(`s${i}`);
		files[`s${i}/notes.md`] = "# Notes, as first written\n";
		files[`s${i}/refs/a.md`] = "# A\n";
	}
	const root = await writeTree(await tempDir(), files);
	// An entry is held only for files changed well before (the racy margin): let the tree settle.
	await sleep(2200);
	const held = Array.from({ length: SKILLS }, (_, i) => {
		const dir = join(root, `s${i}`);
		const tree = walkSkill(dir, rules);
		if ("code" in tree) throw new Error(tree.message);
		const entry = { uri: `skill://s${i}/SKILL.md`, frontmatter: { name: `s${i}`, description: "d" }, resources: [] };
		const kept = holdEntry(entry, dir, tree, rules);
		if (!kept) throw new Error(`s${i} was not held`);
		return kept;
	});
	return { root, held };
}

/** Checks `held` until the helper thread decided more paths than `before` (bounded), asserting every answer. */
async function checkUntilHelped(held: HeldEntry[], expected: boolean[], before: number): Promise<void> {
	for (let i = 0; i < 200 && heldHelperDecided() === before; i++) {
		expect(checkHeld(held)).toEqual(expected);
		await sleep(10);
	}
	expect(heldHelperDecided()).toBeGreaterThan(before);
	expect(checkHeld(held)).toEqual(expected);
}

describe("held skill entries checked with a helper thread", { timeout: 60_000 }, () => {
	it("sees every change an attacker makes to a held skill, whichever thread lstats its paths", async () => {
		const { root, held } = await heldEntries();
		expect(held.reduce((sum, entry) => sum + entry.paths.length, 0)).toBeGreaterThan(PARALLEL_MIN_PATHS);
		await checkUntilHelped(
			held,
			held.map(() => true),
			heldHelperDecided(),
		);

		const note = (i: number) => join(root, `s${i}`, "notes.md");
		// Same size, new bytes (the digest a listing would publish is no longer true).
		writeFileSync(note(0), "# Notes, as LAST  written\n");
		// A link planted where the file was.
		rmSync(note(1));
		symlinkSync("/etc/passwd", note(1));
		// The file removed.
		rmSync(note(2));
		// A file added beside the others.
		writeFileSync(join(root, "s3", "extra.md"), "# Extra\n");
		// A sub-folder swapped for a link to elsewhere.
		rmSync(join(root, "s4", "refs"), { recursive: true });
		symlinkSync("/etc", join(root, "s4", "refs"));
		// A hard link made to a file from outside the skill.
		linkSync(note(5), join(root, "outside-link.md"));
		// The skill's folder swapped for a file: its paths now fail (ENOTDIR).
		rmSync(join(root, "s6"), { recursive: true });
		writeFileSync(join(root, "s6"), "not a folder\n");
		// A change in a skill checked last, where the helper is most likely to have looked.
		mkdirSync(join(root, `s${SKILLS - 1}`, "new-folder"));

		const changed = new Set([0, 1, 2, 3, 4, 5, 6, SKILLS - 1]);
		await checkUntilHelped(
			held,
			held.map((_, i) => !changed.has(i)),
			heldHelperDecided(),
		);
	});

	it("answers the same with the helper stopped", async () => {
		const { root, held } = await heldEntries();
		stopHeldHelper();
		writeFileSync(join(root, "s9", "notes.md"), "# Notes, as LAST  written\n");
		expect(checkHeld(held)).toEqual(held.map((_, i) => i !== 9));
	});
});
