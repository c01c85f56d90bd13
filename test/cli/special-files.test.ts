import { spawnSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { discover } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp.ts";

// Issue 9: a FIFO named SKILL.md must never block a command. The CLI runs as a child process with a timeout, so
// the old behaviour (an open that waits forever for a writer) fails the test instead of hanging it.
const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");

let root: string;
let fifoSkill: string;

beforeAll(async () => {
	root = await tempDir();
	fifoSkill = join(root, "skills", "piped");
	await mkdir(fifoSkill, { recursive: true });
	const made = spawnSync("mkfifo", [join(fifoSkill, "SKILL.md")]);
	expect(made.status).toBe(0);
});

describe.skipIf(process.platform === "win32")("a FIFO named SKILL.md", () => {
	it("makes `skillset validate` answer at once with file.unreadable", () => {
		const run = spawnSync(process.execPath, [BIN, "validate", "--json", fifoSkill], {
			encoding: "utf8",
			timeout: 10_000,
			env: { ...process.env, NO_COLOR: "1" },
		});
		expect(run.signal).toBeNull();
		expect(run.status).toBe(1);
		const [result] = JSON.parse(run.stdout);
		expect(result.diagnostics.map((d: { code: string }) => d.code)).toEqual(["file.unreadable"]);
	});

	it("is a rejected skill with file.unreadable in discovery, not a hang or a silent skip", async () => {
		const { report } = await discover({
			cwd: root,
			home: join(root, "no-home"),
			defaultRoots: false,
			roots: [join(root, "skills")],
		});
		expect(report.rejected.map((r) => [r.dir, r.diagnostics.map((d) => d.code)])).toEqual([
			[fifoSkill, ["file.unreadable"]],
		]);
	});
});
