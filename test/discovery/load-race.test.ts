import { renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createDiscovery, discover } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { type DirEntry, listDir } from "../../src/discovery/folder.ts";
import { loadCandidate } from "../../src/discovery/load.ts";
import type { DiscoveryRoot } from "../../src/discovery/roots.ts";
import { DEFAULT_WALK_LIMITS, walkRoot } from "../../src/discovery/walk.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// The walk refuses a linked SKILL.md from the kind readdir gives; the load then opens the file by path. Someone who
// can write the skill folder swaps SKILL.md for a link between the two: the load must not read where it leads.

let base: string;
beforeAll(async () => {
	base = await tempDir();
});

function rootAt(path: string): DiscoveryRoot {
	return { path, scope: "workspace", rank: 0, trusted: true, locked: false, source: "option" };
}

/** Walks `root` and swaps `skill`'s SKILL.md for a link to `outside` right after its folder was listed. */
async function walkThenSwap(root: string, skill: string, outside: string) {
	const swapAfterListing = (dir: string): DirEntry[] => {
		const entries = listDir(dir);
		if (dir === join(root, skill)) {
			renameSync(join(dir, "SKILL.md"), join(dir, "was-skill.md"));
			symlinkSync(outside, join(dir, "SKILL.md"));
		}
		return entries;
	};
	const options = { limits: DEFAULT_WALK_LIMITS, followSymlinks: true, allowSymlinkedSkillFile: false };
	return walkRoot(rootAt(root), { ...options, listDir: swapAfterListing });
}

describe("a SKILL.md swapped for a link between the walk and the load", () => {
	it("is not read through the link: the load reports entry.symlink, as a fresh scan would", async () => {
		const root = join(base, "swapped");
		await writeTree(root, { "alpha/SKILL.md": skillMd("alpha") });
		const outside = join(base, "outside.md");
		await writeTree(base, { "outside.md": skillMd("alpha", "Secret text from outside the root.") });
		const walk = await walkThenSwap(root, "alpha", outside);
		// The walk listed a plain file: it made a candidate.
		expect(walk.candidates.map((c) => c.relDir)).toEqual(["alpha"]);
		const loaded = loadCandidate(walk.candidates[0] as (typeof walk.candidates)[0]);
		expect(loaded.properties).toBeNull();
		expect(JSON.stringify(loaded)).not.toContain("Secret text");
		expect(loaded.diagnostics.map((d) => [d.code, d.severity])).toEqual([["entry.symlink", "warning"]]);
		// The walk's candidate is kept for later scans: the load must not have added to its diagnostics.
		expect(walk.candidates[0]?.diagnostics).toEqual([]);
	});

	it("still reads a linked SKILL.md the options allow", async () => {
		const root = join(base, "allowed");
		await writeTree(root, { "beta/real.md": skillMd("beta", "Read through the allowed link.") });
		symlinkSync(join(root, "beta", "real.md"), join(root, "beta", "SKILL.md"));
		const options = { limits: DEFAULT_WALK_LIMITS, followSymlinks: true, allowSymlinkedSkillFile: true };
		const walk = await walkRoot(rootAt(root), options);
		const loaded = loadCandidate(walk.candidates[0] as (typeof walk.candidates)[0], { allowSymlinkedSkillFile: true });
		expect(loaded.properties?.description).toBe("Read through the allowed link.");
	});
});

describe("a SKILL.md swapped for a link between two scans", () => {
	it("is rejected by the rescan as by a fresh scan, and nothing of the outside file shows", async () => {
		const root = join(base, "rescanned");
		await writeTree(root, { "gamma/SKILL.md": skillMd("gamma") });
		await writeTree(base, { "outside-gamma.md": skillMd("gamma", "Secret text for the rescan.") });
		const discovery = createDiscovery({ cwd: base, home: join(base, "no-home"), defaultRoots: false, roots: [root] });
		expect((await discovery.scan()).index.get("gamma")?.description).toBe("Does gamma things.");
		rmSync(join(root, "gamma", "SKILL.md"));
		symlinkSync(join(base, "outside-gamma.md"), join(root, "gamma", "SKILL.md"));
		const rescan = await discovery.scan();
		expect(rescan.index.get("gamma")).toBeUndefined();
		expect(JSON.stringify(rescan.report)).not.toContain("Secret text");
		const rejected = rescan.report.rejected.map((r) => r.diagnostics.map((d) => d.code));
		expect(rejected).toEqual([["entry.symlink"]]);
		expect(rescan.index.skills).toStrictEqual((await discover(discovery.options)).index.skills);
	});
});
