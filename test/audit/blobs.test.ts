import { join } from "node:path";
import { auditSkill } from "skillset";
import { describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

const FRONT = "---\nname: blobs\ndescription: Encoded runs at every place on a line.\nlicense: MIT\n---\nBody.\n";

// A base64 run is looked for at every 200th character only (the audit's shortcut): a run must be found wherever it
// starts, at any length from 200, on short lines and across the windows of a long one, and never below 200.
describe("encoded-blob on any line", () => {
	it("finds every base64 run of 200 characters or more at its own column, and none shorter", async () => {
		const dir = join(await tempDir(), "blobs");
		const files: Record<string, string> = { "SKILL.md": FRONT };
		const expected = new Map<string, number>();
		const run = (length: number) => "QUJDZGVmZ2hpams0NTY3ODkrLw".repeat(40).slice(0, length);
		for (const offset of [0, 1, 150, 199, 200, 201, 399, 401, 3800, 4095, 5000])
			for (const length of [199, 200, 201, 399, 450]) {
				const rel = `references/b-${offset}-${length}.md`;
				const line = `${"-. ".repeat(offset).slice(0, offset)}${run(length)} tail ${"x. ".repeat(40)}`;
				files[rel] = `${line}\n`;
				if (length >= 200) expected.set(join(dir, rel), offset + 1);
			}
		await writeTree(dir, files);
		const found = auditSkill({ name: "blobs", dir }).filter((f) => f.rule === "encoded-blob");
		expect(new Map(found.map((f) => [f.file, f.column]))).toEqual(expected);
	});

	it("finds a run of exactly 200 that starts right after a shorter run", async () => {
		const dir = join(await tempDir(), "pair");
		// The short run holds the 200th character and ends at the 201st; the long one is characters 202 to 401.
		const short = "QUJDZGVm".repeat(25).slice(0, 199);
		const long = "ZGVmZ2hp".repeat(25).slice(0, 200);
		await writeTree(dir, { "SKILL.md": FRONT, "references/pair.md": `-${short}-${long} end\n` });
		const found = auditSkill({ name: "pair", dir }).filter((f) => f.rule === "encoded-blob");
		expect(found.map((f) => f.column)).toEqual([202]);
	});
});
