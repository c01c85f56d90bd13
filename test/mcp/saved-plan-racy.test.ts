// A saved plan keeps a served skill's row only from a walk that proved the skill's folders settled. A plan made
// with no folder listings to keep verdicts in (a library caller's rules) proves nothing of the kind: its rows are
// planned again on the next run, never taken as final.
import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discover } from "skillset";
import { describe, expect, it } from "vitest";
import { planServe } from "../../src/mcp/plan.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

const CAP = 4096;

describe("a saved plan from rules without folder listings", () => {
	it("keeps no served row from a walk that could not tell whether the folder was settled", async () => {
		const base = await tempDir();
		const root = await writeTree(join(base, "skills"), {
			"racy/SKILL.md": skillMd("racy"),
			"racy/references/notes.md": "# Notes\n",
		});
		const cacheDir = join(base, "cache");
		const options = { cwd: base, home: join(base, "home"), defaultRoots: false, roots: [root], cacheDir };
		await pastRacyWindow();
		await discover(options);
		// A saved result read back whole: the plan is keyed by its digest.
		const { index } = await discover(options);
		const notes = join(root, "racy", "references", "notes.md");
		// Rewritten in place just before the plan walks it: that walk cannot vouch for the folder.
		writeFileSync(notes, "# NOTES\n");
		const rules = { maxBytes: CAP, allowHardLinks: false, cacheDir };
		const first = planServe(index, rules);
		expect(first.leftOut).toEqual([]);
		expect(first.served.map((served) => served.skill.name)).toEqual(["racy"]);
		truncateSync(notes, CAP + 1);
		const again = planServe(index, { maxBytes: CAP, allowHardLinks: false, cacheDir });
		expect(again.leftOut).toContainEqual(expect.objectContaining({ name: "racy", code: "mcp.too-large" }));
	}, 30_000);
});
