import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseSource } from "skillset/sources";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { git, hostileCommand, repo, skill } from "../helpers/git.ts";
import { tempDir } from "../helpers/temp.ts";

// Issue 21 item 3: a `file:` URL or a path naming a git repository, bare or not, is cloned (its commit pinned), not
// copied as a folder: a bare repository has no SKILL.md on disk, and a working tree may hold uncommitted files.

async function bareOf(files: Record<string, string>): Promise<{ bare: string; commit: string }> {
	const work = await repo(files);
	const bare = join(await tempDir(), "skills.git");
	git(work, "clone", "-q", "--bare", work, bare);
	return { bare, commit: git(bare, "rev-parse", "HEAD") };
}

async function workspace() {
	const cwd = await tempDir();
	const run = (...argv: string[]) => cli(argv, { cwd, env: { HOME: cwd } });
	const lock = async () => JSON.parse(await readFile(join(cwd, "skills.lock.json"), "utf8"));
	return { cwd, run, lock };
}

describe("add from a local git repository", () => {
	it("clones a bare repository named by a file: URL and pins its commit", async () => {
		const { bare, commit } = await bareOf({ "SKILL.md": skill("solo"), "scripts/run.sh": "#!/bin/sh\necho hi\n" });
		const ws = await workspace();
		const run = await ws.run("add", `file://${bare}`);
		expect(run.stderr).toBe("");
		expect(run.exitCode).toBe(0);
		expect(existsSync(join(ws.cwd, ".agents/skills/solo/scripts/run.sh"))).toBe(true);
		expect((await ws.lock()).skills.solo.source).toMatchObject({ type: "git", url: `file://${bare}`, commit });
	});

	it("clones a bare repository named by its path, with a #ref on the file: URL", async () => {
		const { bare } = await bareOf({ "SKILL.md": skill("solo") });
		expect(parseSource(bare, "/")).toEqual({ kind: "git", url: `file://${bare}` });
		expect(parseSource(`file://${bare}#main`, "/")).toEqual({ kind: "git", url: `file://${bare}`, ref: "main" });
		const ws = await workspace();
		expect((await ws.run("add", bare)).exitCode).toBe(0);
		expect((await ws.lock()).skills.solo.source.type).toBe("git");
	});

	it("clones a working repository named by its path: committed files only, uncommitted ones stay behind", async () => {
		const source = await repo({ "SKILL.md": skill("solo") });
		await writeFile(join(source, "notes.md"), "not committed\n");
		const ws = await workspace();
		const run = await ws.run("add", source);
		expect(run.exitCode).toBe(0);
		expect((await ws.lock()).skills.solo.source).toMatchObject({
			type: "git",
			url: `file://${source}`,
			commit: git(source, "rev-parse", "HEAD"),
		});
		expect(existsSync(join(ws.cwd, ".agents/skills/solo/notes.md"))).toBe(false);
	});

	it("runs nothing the repository's own config or hooks name while cloning it", async () => {
		const { bare } = await bareOf({ "SKILL.md": skill("solo") });
		const hostile = await hostileCommand();
		git(bare, "config", "core.fsmonitor", hostile.script);
		git(bare, "config", "core.sshCommand", hostile.script);
		await writeFile(join(bare, "hooks", "post-checkout"), `#!/bin/sh\n${hostile.script}\n`, { mode: 0o755 });
		await writeFile(join(bare, "hooks", "pre-upload-pack"), `#!/bin/sh\n${hostile.script}\n`, { mode: 0o755 });
		const ws = await workspace();
		expect((await ws.run("add", bare)).exitCode).toBe(0);
		expect(hostile.ran()).toBe(false);
	});

	it("still copies a plain folder that only looks a bit like a repository", async () => {
		const dir = await tempDir();
		await writeFile(join(dir, "HEAD"), "ref: refs/heads/main\n");
		expect(parseSource(dir, "/")).toEqual({ kind: "dir", path: dir });
	});
});
