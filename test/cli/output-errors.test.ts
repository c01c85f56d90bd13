import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
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

	it("keeps every byte up to the limit when a write is cut short, then names the error", async () => {
		const root = await tempDir();
		const skills: Record<string, string> = {};
		for (let i = 0; i < 40; i++) skills[`skill-${i}/SKILL.md`] = skillMd(`skill-${i}`, "é ünïcödé ✓ ".repeat(40));
		await writeTree(join(root, "tree"), skills);
		const env = { ...process.env, HOME: join(root, "home"), SKILLSET_NO_CACHE: "1", NO_COLOR: "1" };
		const args = `scan tree --no-default-roots --root tree --json --exit-zero`;
		// A limit of 4 KiB (bash counts in 1024-byte blocks): the one write of the larger text is cut short there.
		const script = `"${process.execPath}" "${BIN}" ${args} > full.json; ulimit -f 4; exec "${process.execPath}" "${BIN}" ${args} > cut.json`;
		const run = spawnSync("bash", ["-c", script], { cwd: root, encoding: "utf8", env, timeout: 60_000 });
		expect(run.stderr).toMatch(/^skillset: cannot write output: EFBIG/m);
		expect(run.status).toBe(1);
		const full = await readFile(join(root, "full.json"));
		const cut = await readFile(join(root, "cut.json"));
		expect(full.length).toBeGreaterThan(4096);
		expect(cut.length).toBe(4096);
		expect(cut.equals(full.subarray(0, 4096))).toBe(true);
	}, 90_000);
});

// A large text goes to a file in pieces (src/cli/io.ts): a piece that ended between the two halves of a surrogate
// pair would write each half as U+FFFD, changing the output.
describe("output to a file in pieces", () => {
	it("writes a large text byte for byte, a surrogate pair across every piece boundary included", async () => {
		const root = await tempDir();
		const io = join(import.meta.dirname, "..", "..", "dist", "cli", "io.js");
		// Emoji at odd offsets: wherever a piece ends, one of them straddles it.
		const make = `"x".repeat(65535) + "😀".repeat(40000) + "é".repeat(70000) + "😀"`;
		const script = `import(${JSON.stringify(io)}).then(({ processIo }) => processIo().stdout(${make}))`;
		const out = join(root, "out.txt");
		const run = spawnSync("bash", ["-c", `exec "${process.execPath}" -e '${script}' > "${out}"`], {
			encoding: "utf8",
			timeout: 30_000,
		});
		expect(run.stderr).toBe("");
		const expected = Buffer.from(["x".repeat(65535), "😀".repeat(40000), "é".repeat(70000), "😀"].join(""), "utf8");
		expect((await readFile(out)).equals(expected)).toBe(true);
	}, 60_000);
});
