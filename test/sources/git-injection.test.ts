import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseSource } from "skillset/sources";
import { describe, expect, it } from "vitest";
import { commit, git, hostileCommand, repo, skill, workspace } from "../helpers/git.ts";

// An attacker controls the text of a source (a link the user pastes) and every value of a lock file (a cloned
// repository ships its `skills.lock.json`). None of it may become an option of git, or run anything.

describe("add: a source's text never becomes an option of git", () => {
	it.each([
		["a file: URL's #ref", (s: string, r: string) => `file://${r}#--upload-pack=${s}`],
		["a file: URL's #ref after a dash", (s: string, r: string) => `file://${r}#-u${s}`],
		["an https URL's #ref", (s: string) => `https://example.invalid/x.git#--upload-pack=${s}`],
		["a GitHub shorthand @ref", (s: string) => `owner/repo@--upload-pack=${s}`],
		["an ssh host", (s: string) => `ssh://-oProxyCommand=${s}/x/y.git`],
		["an ssh user", (s: string) => `ssh://-oProxyCommand=${s}@example.invalid/x/y.git`],
		["an scp-like host", (s: string) => `git@-oProxyCommand=${s}:x/y.git`],
		["a remote-helper transport", (s: string) => `git+ext::${s}`],
		["a refspec as #ref", (_s: string, r: string) => `file://${r}#main:refs/heads/evil`],
		["a reflog expression as #ref", (_s: string, r: string) => `file://${r}#@{-1}`],
	])("refuses %s with source.invalid, and nothing runs", async (_what, source) => {
		const payload = await hostileCommand();
		const target = await repo({ "SKILL.md": skill("victim") });
		const ws = await workspace();
		const run = await ws.run("add", source(payload.script, target), "--json");
		expect(run.exitCode).toBe(1);
		expect(JSON.parse(run.stdout).failure).toMatchObject({ code: "source.invalid" });
		expect(payload.ran()).toBe(false);
		expect(ws.installed()).toEqual([]);
	});

	it("still takes ordinary refs: a branch, a tag, a nested branch and a commit id", async () => {
		const source = await repo({ "SKILL.md": skill("plain") });
		git(source, "tag", "v1.2.0");
		git(source, "branch", "release/2026-01");
		const head = git(source, "rev-parse", "HEAD");
		for (const ref of ["main", "v1.2.0", "release/2026-01", head]) {
			expect(parseSource(`file://${source}#${ref}`, "/")).toMatchObject({ kind: "git", ref });
		}
		const ws = await workspace();
		expect((await ws.run("add", `file://${source}#release/2026-01`)).exitCode).toBe(0);
		expect((await ws.lock()).skills.plain.source.ref).toBe("release/2026-01");
	});
});

/** A workspace with `victim` installed from a real repository, and a second commit waiting at the source. */
async function installedVictim() {
	const source = await repo({ "SKILL.md": skill("victim") });
	const ws = await workspace();
	expect((await ws.run("add", `file://${source}`)).exitCode).toBe(0);
	await commit(source, { "SKILL.md": skill("victim", "", "Version two.\n") }, "two");
	const before = await readFile(join(ws.cwd, ".agents/skills/victim/SKILL.md"), "utf8");
	const tamper = async (change: Record<string, unknown>) => {
		const lock = await ws.lock();
		Object.assign(lock.skills.victim.source, change);
		await ws.writeLock(lock.skills);
	};
	const unchanged = async () => (await readFile(join(ws.cwd, ".agents/skills/victim/SKILL.md"), "utf8")) === before;
	return { source, ws, tamper, unchanged };
}

const HOSTILE_LOCK_VALUES: [string, (script: string, source: string) => Record<string, unknown>][] = [
	["url as an option", (s) => ({ url: `--upload-pack=${s}` })],
	["ref as an option", (s) => ({ ref: `--upload-pack=${s}` })],
	["ref as a short option", (s) => ({ ref: `-u${s}` })],
	["ref as a refspec", () => ({ ref: "main:refs/heads/evil" })],
	["url of the ext transport", (s) => ({ url: `ext::${s}` })],
	["url of the fd transport", () => ({ url: "fd::0" })],
	["url as an ssh option host", (s) => ({ url: `ssh://-oProxyCommand=${s}/x.git` })],
	["url with a newline", (_s, r) => ({ url: `file://${r}\n--upload-pack=x` })],
	["commit that is not a commit id", () => ({ commit: "--upload-pack=x" })],
	["subpath that climbs out", () => ({ subpath: "../../private/notes" })],
	["subpath that is absolute", () => ({ subpath: "/etc" })],
	["type that is unknown", () => ({ type: "svn" })],
	["digest that is not a digest", () => ({ digest: "--x" })],
];

describe("a lock file's values are checked before any git or network call", () => {
	it.each(HOSTILE_LOCK_VALUES)(
		"outdated refuses a lock whose %s (lock.invalid), and nothing runs",
		async (_w, change) => {
			const payload = await hostileCommand();
			const { source, ws, tamper } = await installedVictim();
			await tamper(change(payload.script, source));
			const run = await ws.run("outdated", "--json");
			expect(run.exitCode).toBe(1);
			expect(JSON.parse(run.stdout)).toEqual([
				expect.objectContaining({ name: "victim", status: "unknown", code: "lock.invalid" }),
			]);
			expect(payload.ran()).toBe(false);
		},
	);

	it.each(HOSTILE_LOCK_VALUES)(
		"update --yes refuses a lock whose %s (lock.invalid), and changes nothing",
		async (_w, change) => {
			const payload = await hostileCommand();
			const { source, ws, tamper, unchanged } = await installedVictim();
			await tamper(change(payload.script, source));
			const run = await ws.run("update", "--yes", "--json");
			expect(run.exitCode).toBe(1);
			expect(JSON.parse(run.stdout)).toEqual([
				expect.objectContaining({ name: "victim", status: "refused", code: "lock.invalid" }),
			]);
			expect(payload.ran()).toBe(false);
			expect(await unchanged()).toBe(true);
		},
	);

	it("update --yes still applies a lock whose values are sound", async () => {
		const { ws } = await installedVictim();
		const run = await ws.run("update", "--yes", "--json");
		expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ name: "victim", status: "updated" })]);
		expect(await readFile(join(ws.cwd, ".agents/skills/victim/SKILL.md"), "utf8")).toContain("Version two.");
	});
});

describe("git runs with the repository's and the environment's means of running code switched off", () => {
	it("runs no hook, template or fsmonitor from the user's git config, and ignores an inherited GIT_DIR", async () => {
		const payload = await hostileCommand();
		const { mkdir, writeFile, chmod } = await import("node:fs/promises");
		const { tempDir } = await import("../helpers/temp.ts");
		const home = await tempDir();
		const templates = join(home, "templates");
		await mkdir(join(templates, "hooks"), { recursive: true });
		for (const hook of ["post-checkout", "post-merge", "reference-transaction", "fsmonitor-watchman"]) {
			await writeFile(join(templates, "hooks", hook), `#!/bin/sh\n'${payload.script}'\n`);
			await chmod(join(templates, "hooks", hook), 0o755);
		}
		await writeFile(
			join(home, ".gitconfig"),
			`[init]\n\ttemplateDir = ${templates}\n[core]\n\tfsmonitor = ${payload.script}\n\thooksPath = ${templates}/hooks\n`,
		);
		const other = await repo({ "SKILL.md": skill("elsewhere") });
		const source = await repo({ "SKILL.md": skill("safe") });
		const ws = await workspace();
		const { spawnSync } = await import("node:child_process");
		const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");
		const run = spawnSync(process.execPath, [bin, "add", `file://${source}`, "--json"], {
			cwd: ws.cwd,
			encoding: "utf8",
			env: { ...process.env, HOME: home, GIT_DIR: join(other, ".git"), GIT_WORK_TREE: other, NO_COLOR: "1" },
		});
		expect(run.status, run.stderr).toBe(0);
		expect(ws.installed()).toEqual(["safe"]);
		expect(payload.ran()).toBe(false);
		expect(git(other, "log", "--oneline").split("\n")).toHaveLength(1);
	});
});

describe("what the lock records of a git URL", () => {
	it("never keeps a password from the URL (the lock is committed and shared)", async () => {
		const { chmod, writeFile } = await import("node:fs/promises");
		const { tempDir } = await import("../helpers/temp.ts");
		const source = await repo({ "SKILL.md": skill("private") });
		// A stand-in for ssh: runs the remote command (git-upload-pack '<path>') here.
		const fakeSsh = join(await tempDir(), "ssh.sh");
		await writeFile(fakeSsh, '#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n');
		await chmod(fakeSsh, 0o755);
		const saved = process.env.GIT_SSH_COMMAND;
		process.env.GIT_SSH_COMMAND = fakeSsh;
		try {
			const ws = await workspace();
			const run = await ws.run("add", `ssh://deploy:s3cret-token@localhost${source}`);
			expect(run.exitCode, run.stdout + run.stderr).toBe(0);
			const lock = await readFile(join(ws.cwd, "skills.lock.json"), "utf8");
			expect(lock).not.toContain("s3cret-token");
			expect(JSON.parse(lock).skills.private.source.url).toBe(`ssh://deploy@localhost${source}`);
		} finally {
			if (saved === undefined) delete process.env.GIT_SSH_COMMAND;
			else process.env.GIT_SSH_COMMAND = saved;
		}
	});
});
