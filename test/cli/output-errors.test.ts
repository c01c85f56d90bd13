import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");

// stdout that is a regular file is written straight to it (src/cli/io.ts): a write the file refuses (a size limit, a
// full disk) must end the run with one clear line and status 1, never as an internal error of the command.
describe("output to a file that refuses the write", () => {
	it("names the write error and exits 1", async () => {
		const root = await tempDir();
		await writeTree(join(root, ".agents", "skills"), { "one/SKILL.md": skillMd("one") });
		// A file size limit of 0 blocks: Node ignores SIGXFSZ, so the write fails with EFBIG.
		const script = `ulimit -f 0; exec "${process.execPath}" "${BIN}" list > out.txt`;
		const run = spawnSync("bash", ["-c", script], {
			cwd: root,
			encoding: "utf8",
			env: { ...process.env, HOME: join(root, "home"), SKILLSET_CACHE_DIR: join(root, "cache"), NO_COLOR: "1" },
			timeout: 30_000,
		});
		expect(run.stderr).toMatch(/^skillset: cannot write output: EFBIG/m);
		expect(run.stderr).not.toMatch(/internal error/);
		expect(run.status).toBe(1);
	});
});
