import { existsSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { hashPackage } from "skillset";
import { addSkills, writeTar } from "skillset/sources";
import { describe, expect, it } from "vitest";
import { commit, repo, skill, workspace } from "../helpers/git.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

// `remove` and `update` act on the user's folders: they touch only what an install put there, unchanged since,
// exactly where the lock says it is.

describe("remove deletes only what an install put there and nobody changed since", () => {
	it("refuses a hand-written skill the lock only pins (no install source), and says why; --force removes it", async () => {
		const ws = await workspace();
		await writeTree(ws.cwd, { ".agents/skills/mine/SKILL.md": skill("mine") });
		expect((await ws.run("lock")).exitCode).toBe(0);
		expect((await ws.lock()).skills.mine.source).toBeUndefined();
		const run = await ws.run("remove", "mine", "--json");
		expect(run.exitCode).toBe(1);
		const [outcome] = JSON.parse(run.stdout);
		expect(outcome).toMatchObject({ status: "refused", code: "install.unknown" });
		expect(outcome.message).toMatch(/not installed by skillset add.*--force/);
		expect(existsSync(join(ws.cwd, ".agents/skills/mine/SKILL.md"))).toBe(true);
		expect((await ws.run("remove", "mine", "--force")).exitCode).toBe(0);
		expect(existsSync(join(ws.cwd, ".agents/skills/mine"))).toBe(false);
	});

	it("refuses an installed skill with local edits, naming what changed; --force removes it", async () => {
		const source = await repo({ "SKILL.md": skill("edited"), "notes.md": "a\n" });
		const ws = await workspace();
		expect((await ws.run("add", `file://${source}`)).exitCode).toBe(0);
		await writeFile(join(ws.cwd, ".agents/skills/edited/notes.md"), "my own notes\n");
		await writeFile(join(ws.cwd, ".agents/skills/edited/extra.md"), "more\n");
		const run = await ws.run("remove", "edited", "--json");
		expect(run.exitCode).toBe(1);
		const [outcome] = JSON.parse(run.stdout);
		expect(outcome).toMatchObject({ status: "refused", code: "install.modified" });
		expect(outcome.message).toMatch(/notes\.md/);
		expect(outcome.message).toMatch(/extra\.md/);
		expect(outcome.message).toMatch(/--force/);
		expect(await readFile(join(ws.cwd, ".agents/skills/edited/notes.md"), "utf8")).toBe("my own notes\n");
		expect((await ws.run("remove", "edited", "--force")).exitCode).toBe(0);
		expect(ws.installed()).toEqual([]);
		expect((await ws.lock()).skills).toEqual({});
	});

	it("says a name that is neither in the lock nor a folder is not installed, without suggesting --force", async () => {
		const ws = await workspace();
		const run = await ws.run("remove", "nothere");
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toMatch(/nothere is not installed/);
		expect(run.stdout).not.toMatch(/--force/);
	});

	it("still removes an untouched install at once", async () => {
		const source = await repo({ "SKILL.md": skill("clean") });
		const ws = await workspace();
		expect((await ws.run("add", `file://${source}`)).exitCode).toBe(0);
		expect((await ws.run("remove", "clean")).exitCode).toBe(0);
		expect(ws.installed()).toEqual([]);
	});
});

describe("update writes exactly where the lock entry points, and only over that entry's skill", () => {
	/** `foo` installed, then moved by the user to another folder name (the lock follows); their own `foo` beside it. */
	async function movedInstall() {
		const source = await repo({ "SKILL.md": skill("foo") });
		const ws = await workspace();
		expect((await ws.run("add", `file://${source}`)).exitCode).toBe(0);
		const skills = join(ws.cwd, ".agents/skills");
		await rename(join(skills, "foo"), join(skills, "foo-vendored"));
		const lock = await ws.lock();
		lock.skills.foo.path = ".agents/skills/foo-vendored";
		await ws.writeLock(lock.skills);
		await writeTree(skills, { "foo/SKILL.md": skill("foo", "", "The user's own foo.\n") });
		await commit(source, { "SKILL.md": skill("foo", "", "Version two.\n") }, "two");
		return { source, ws, skills };
	}

	it("updates the entry's folder and leaves the user's own folder of that name alone", async () => {
		const { ws, skills } = await movedInstall();
		const run = await ws.run("update", "--yes", "--json");
		expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ name: "foo", status: "updated" })]);
		expect(await readFile(join(skills, "foo/SKILL.md"), "utf8")).toContain("The user's own foo.");
		expect(await readFile(join(skills, "foo-vendored/SKILL.md"), "utf8")).toContain("Version two.");
		const entry = (await ws.lock()).skills.foo;
		expect(entry.path).toBe(".agents/skills/foo-vendored");
		expect(entry.digest).toBe(hashPackage(join(skills, "foo-vendored")).digest);
	});

	it("refuses when the entry's folder holds another skill", async () => {
		const { ws, skills } = await movedInstall();
		await writeFile(join(skills, "foo-vendored/SKILL.md"), skill("bar"));
		const lock = await ws.lock();
		lock.skills.foo.digest = hashPackage(join(skills, "foo-vendored")).digest;
		lock.skills.foo.files = hashPackage(join(skills, "foo-vendored")).files;
		await ws.writeLock(lock.skills);
		const run = await ws.run("update", "--yes", "--json");
		expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ status: "refused", code: "install.modified" })]);
		expect(await readFile(join(skills, "foo-vendored/SKILL.md"), "utf8")).toBe(skill("bar"));
	});

	it("refuses to replace local edits unless --force", async () => {
		const { ws, skills } = await movedInstall();
		await writeFile(join(skills, "foo-vendored/mine.md"), "my notes\n");
		const run = await ws.run("update", "--yes", "--json");
		const [outcome] = JSON.parse(run.stdout);
		expect(outcome).toMatchObject({ status: "refused", code: "install.modified" });
		expect(outcome.message).toMatch(/mine\.md.*--force/);
		expect(existsSync(join(skills, "foo-vendored/mine.md"))).toBe(true);
		const forced = await ws.run("update", "--yes", "--force", "--json");
		expect(JSON.parse(forced.stdout)).toEqual([expect.objectContaining({ status: "updated" })]);
		expect(existsSync(join(skills, "foo-vendored/mine.md"))).toBe(false);
	});
});

describe("names that are Object.prototype keys", () => {
	it("pins a file named __proto__ like any other, so an edit to it is seen", async () => {
		const files = Object.fromEntries([
			["SKILL.md", skill("protoish")],
			["__proto__", "original\n"],
		]);
		const source = await repo(files);
		const ws = await workspace();
		expect((await ws.run("add", `file://${source}`)).exitCode).toBe(0);
		const lock = await ws.lock();
		expect(Object.keys(lock.skills.protoish.files)).toEqual(["SKILL.md", "__proto__"]);
		await writeFile(join(ws.cwd, ".agents/skills/protoish/__proto__"), "tampered\n");
		const run = await ws.run("remove", "protoish", "--json");
		expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ status: "refused", code: "install.modified" })]);
		expect((await ws.run("lock", "--verify")).exitCode).toBe(1);
	});
});

describe("what a source may not bring", () => {
	it("refuses a skill holding a .git folder (its hooks and config run in tools that open it)", async () => {
		const dir = await tempDir();
		const archive = join(dir, "skill.tar.gz");
		const text = (value: string) => new TextEncoder().encode(value);
		await writeFile(
			archive,
			gzipSync(
				writeTar([
					{ path: "packed/SKILL.md", data: text(skill("packed")) },
					{ path: "packed/.git/config", data: text("[core]\n\tfsmonitor = touch /tmp/pwned\n") },
					{ path: "packed/.git/HEAD", data: text("ref: refs/heads/main\n") },
				]),
			),
		);
		const ws = await workspace();
		const run = await ws.run("add", archive, "--json");
		expect(run.exitCode).toBe(1);
		expect(JSON.parse(run.stdout).outcomes).toEqual([
			expect.objectContaining({ name: "packed", status: "refused", code: "install.invalid" }),
		]);
		expect(JSON.parse(run.stdout).outcomes[0].message).toMatch(/\.git/);
		expect(ws.installed()).toEqual([]);
	});

	it("refuses a git checkout larger than four times the download cap before writing it", async () => {
		const big = "x".repeat(3 << 20);
		const source = await repo({ "SKILL.md": skill("bulky"), "data/blob.txt": big });
		const ws = await workspace();
		const result = await addSkills({
			source: `file://${source}`,
			cwd: ws.cwd,
			target: join(ws.cwd, ".agents/skills"),
			lockFile: join(ws.cwd, "skills.lock.json"),
			limits: { maxBytes: 512 << 10, timeoutMs: 30_000 },
		});
		expect(result.failure).toMatchObject({ code: "source.too-large" });
		expect(ws.installed()).toEqual([]);
	});
});

describe("a broken lock file", () => {
	it.each([["outdated"], ["update", "--yes"], ["remove", "x"]])(
		"%s says what is wrong with it, without a stack trace",
		async (...args) => {
			const ws = await workspace();
			await writeFile(join(ws.cwd, "skills.lock.json"), "{ not json");
			const run = await ws.run(...args);
			expect(run.exitCode).toBe(2);
			expect(run.stderr).toMatch(/skills\.lock\.json is not a valid lock file/);
			expect(run.stderr).not.toMatch(/internal error|at readLockFile/);
			expect(await readFile(join(ws.cwd, "skills.lock.json"), "utf8")).toBe("{ not json");
		},
	);
});
