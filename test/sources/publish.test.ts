import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { publishSkills, readTar } from "skillset/sources";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 18, "publish ships secrets", written as an attacker (or a careless author): real skill folders holding
// .env, .git/config with a token, editor backups, keys and links; and OUT folders with planted links.

const PRIVATE_KEY =
	"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
const TOKEN_URL =
	'[remote "origin"]\n\turl = https://x-access-token:ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/acme/s.git\n';

/** A workspace with skills under .agents/skills, and a runner of `skillset publish` in it. */
async function workspace(files: Record<string, string>) {
	const cwd = await writeTree(await tempDir(), files);
	const out = join(await tempDir(), "site");
	const publish = async (...extra: string[]) => {
		const run = await cli(["publish", "--out", out, "--json", ...extra], { cwd, env: { HOME: cwd } });
		return { ...run, data: run.stdout ? JSON.parse(run.stdout) : undefined };
	};
	return { cwd, out, publish, skills: join(cwd, ".agents", "skills") };
}

/** The paths inside a published `<name>.tar.gz`. */
async function archivePaths(out: string, name: string): Promise<string[]> {
	const bytes = await readFile(join(out, ".well-known", "agent-skills", `${name}.tar.gz`));
	return readTar(gunzipSync(bytes), 1000).map((entry) => entry.path);
}

describe("issue 18: publish leaves out dot-files and editor backups, and names each", () => {
	it("ships neither .env, .git/config (with a token) nor backups, and says what it left out", async () => {
		const ws = await workspace({
			".agents/skills/notes/SKILL.md": skillMd("notes"),
			".agents/skills/notes/scripts/run.py": "print(1)\n",
			".agents/skills/notes/.env": "OPENAI_API_KEY=sk-live-secret\n",
			".agents/skills/notes/.git/config": TOKEN_URL,
			".agents/skills/notes/.git/HEAD": "ref: refs/heads/main\n",
			".agents/skills/notes/SKILL.md~": "old draft with a secret\n",
			".agents/skills/notes/#draft.md#": "emacs autosave\n",
			".agents/skills/notes/scripts/run.py.bak": "print('old')\n",
			".agents/skills/notes/scripts/run.py.swp": "vim swap\n",
			".agents/skills/notes/scripts/.run.py.swo": "vim swap\n",
		});
		const run = await ws.publish();
		expect(run.exitCode).toBe(0);
		expect(await archivePaths(ws.out, "notes")).toEqual(["SKILL.md", "scripts/run.py"]);
		const omitted = run.data.omitted.map((o: { skill: string; path: string }) => `${o.skill}/${o.path}`).sort();
		expect(omitted).toEqual(
			[
				"notes/#draft.md#",
				"notes/.env",
				"notes/.git",
				"notes/SKILL.md~",
				"notes/scripts/.run.py.swo",
				"notes/scripts/run.py.bak",
				"notes/scripts/run.py.swp",
			].sort(),
		);
		const text = await cli(["publish", "--out", ws.out], { cwd: ws.cwd, env: { HOME: ws.cwd } });
		expect(text.stderr).toMatch(/left out notes\/\.env/);
		expect(text.stderr).toMatch(/left out notes\/\.git/);
	});

	it("a dot-file named by --include is published", async () => {
		const ws = await workspace({
			".agents/skills/tpl/SKILL.md": skillMd("tpl"),
			".agents/skills/tpl/template/.gitignore": "node_modules\n",
			".agents/skills/tpl/.env": "SECRET=1\n",
		});
		const run = await ws.publish("--include", "template/.gitignore");
		expect(run.exitCode).toBe(0);
		expect(await archivePaths(ws.out, "tpl")).toEqual(["SKILL.md", "template/.gitignore"]);
		expect(run.data.omitted).toEqual([{ skill: "tpl", path: ".env", reason: "hidden" }]);
	});
});

describe("issue 18: publish refuses files that look like credentials unless --include names them", () => {
	const files = {
		".agents/skills/deploy/SKILL.md": skillMd("deploy"),
		".agents/skills/deploy/keys/id_rsa": PRIVATE_KEY,
		".agents/skills/deploy/certs/server.pem": "pem\n",
		".agents/skills/deploy/certs/server.key": "key\n",
		".agents/skills/deploy/credentials.json": '{"token":"x"}\n',
		".agents/skills/deploy/docs/example.txt": `a key pasted into the docs:\n${PRIVATE_KEY}`,
		".agents/skills/other/SKILL.md": skillMd("other"),
	};

	it("refuses the skill with exit 1, names every such file, and still publishes the others", async () => {
		const ws = await workspace(files);
		const run = await ws.publish();
		expect(run.exitCode).toBe(1);
		const refused = run.data.refused.filter((r: { skill: string }) => r.skill === "deploy");
		expect(refused.map((r: { code: string }) => r.code)).toEqual(["publish.credential"]);
		for (const path of [
			"keys/id_rsa",
			"certs/server.pem",
			"certs/server.key",
			"credentials.json",
			"docs/example.txt",
		]) {
			expect(refused[0].message).toContain(path);
		}
		expect(run.data.entries.map((e: { name: string }) => e.name)).toEqual(["other"]);
		const site = await readdir(join(ws.out, ".well-known", "agent-skills"));
		expect(site.some((name) => name.startsWith("deploy"))).toBe(false);
		const index = await readFile(join(ws.out, ".well-known", "agent-skills", "index.json"), "utf8");
		expect(index).not.toContain("deploy");
	});

	it("publishes them when --include names each one", async () => {
		const ws = await workspace(files);
		const include = ["keys/id_rsa", "certs/server.pem", "certs/server.key", "credentials.json", "docs/example.txt"];
		const run = await ws.publish(...include.flatMap((path) => ["--include", path]));
		expect(run.exitCode).toBe(0);
		expect(await archivePaths(ws.out, "deploy")).toEqual([
			"SKILL.md",
			"certs/server.key",
			"certs/server.pem",
			"credentials.json",
			"docs/example.txt",
			"keys/id_rsa",
		]);
	});

	it("a folder named by --include brings back its dot-files, but not a credential inside it", async () => {
		const ws = await workspace({
			".agents/skills/npm/SKILL.md": skillMd("npm"),
			".agents/skills/npm/.config/settings.json": "{}\n",
			".agents/skills/npm/.config/.npmrc": "//registry.npmjs.org/:_authToken=npm_secret\n",
		});
		const refused = await ws.publish("--include", ".config");
		expect(refused.exitCode).toBe(1);
		expect(refused.data.refused[0]).toMatchObject({ skill: "npm", code: "publish.credential" });
		expect(refused.data.refused[0].message).toContain(".config/.npmrc");
		const named = await ws.publish("--include", ".config", "--include", ".config/.npmrc");
		expect(named.exitCode).toBe(0);
		expect(await archivePaths(ws.out, "npm")).toEqual(["SKILL.md", ".config/.npmrc", ".config/settings.json"].sort());
	});
});

describe("issue 18: a skill holding a symlink", () => {
	it("is reported with exit 1 and a code, not an internal error, and the others are published", async () => {
		const ws = await workspace({
			".agents/skills/linked/SKILL.md": skillMd("linked"),
			".agents/skills/plain/SKILL.md": skillMd("plain"),
		});
		await symlink("/etc/passwd", join(ws.skills, "linked", "passwd.txt"));
		const run = await ws.publish();
		expect(run.exitCode).toBe(1);
		expect(run.stderr).not.toMatch(/internal error/);
		expect(run.data.refused).toEqual([expect.objectContaining({ skill: "linked", code: "publish.link" })]);
		expect(run.data.refused[0].message).toContain("passwd.txt");
		expect(run.data.entries.map((e: { name: string }) => e.name)).toEqual(["plain"]);
		const text = await cli(["publish", "--out", ws.out], { cwd: ws.cwd, env: { HOME: ws.cwd } });
		expect(text.exitCode).toBe(1);
		expect(text.stderr).toMatch(/linked.*publish\.link/);
	});
});

describe("issue 18: publish never writes through a link planted in OUT", () => {
	const skills = async () => {
		const root = await writeTree(await tempDir(), {
			"pdf/SKILL.md": skillMd("pdf"),
			"xlsx/SKILL.md": skillMd("xlsx"),
			"xlsx/run.sh": "echo hi\n",
		});
		return ["pdf", "xlsx"].map((name) => ({ name, description: `Does ${name}.`, dir: join(root, name) }));
	};
	const outside = async () => {
		const dir = await writeTree(await tempDir(), { "victim.txt": "keep me\n", "pdf/keep.txt": "keep me too\n" });
		return { dir, before: await snapshot(dir) };
	};
	const snapshot = async (dir: string) =>
		(await readdir(dir, { recursive: true })).sort().join("\n") +
		(await readFile(join(dir, "victim.txt"), "utf8")) +
		(existsSync(join(dir, "pdf", "keep.txt")) ? "pdf/keep.txt" : "");

	it.each([
		["index.json", ".well-known/agent-skills/index.json", "victim.txt"],
		["the .well-known folder", ".well-known", ""],
		["the agent-skills folder", ".well-known/agent-skills", ""],
		["a skill-md artifact's folder", ".well-known/agent-skills/pdf", "pdf"],
		["an archive", ".well-known/agent-skills/xlsx.tar.gz", "victim.txt"],
	])("refuses a link at %s, and nothing outside OUT changes", async (_what, at, to) => {
		const out = await tempDir();
		const target = await outside();
		await mkdir(join(out, at, ".."), { recursive: true });
		await symlink(join(target.dir, to), join(out, at));
		const result = await publishSkills(await skills(), out);
		expect(result.failure?.code).toBe("publish.unsafe-out");
		expect(result.failure?.message).toContain(at);
		expect(await snapshot(target.dir)).toBe(target.before);
	});

	it("through the CLI: exit 1 with the code, no stack trace", async () => {
		const ws = await workspace({ ".agents/skills/pdf/SKILL.md": skillMd("pdf") });
		const target = await outside();
		await mkdir(join(ws.out, ".well-known", "agent-skills"), { recursive: true });
		await symlink(join(target.dir, "victim.txt"), join(ws.out, ".well-known", "agent-skills", "index.json"));
		const run = await cli(["publish", "--out", ws.out], { cwd: ws.cwd, env: { HOME: ws.cwd } });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toMatch(/publish\.unsafe-out/);
		expect(run.stderr).not.toMatch(/internal error/);
		expect(await snapshot(target.dir)).toBe(target.before);
	});

	it("publishes again over its own earlier output (a re-run is not an attack)", async () => {
		const out = await tempDir();
		const list = await skills();
		const first = await publishSkills(list, out);
		await writeFile(join(list[0]?.dir as string, "SKILL.md"), skillMd("pdf", "Changed."));
		const second = await publishSkills(list, out);
		expect(second.failure).toBeUndefined();
		expect(second.entries.map((e) => e.name)).toEqual(["pdf", "xlsx"]);
		expect(second.entries[0]?.digest).not.toBe(first.entries[0]?.digest);
		const text = await readFile(join(out, ".well-known", "agent-skills", "pdf", "SKILL.md"), "utf8");
		expect(text).toContain("Changed.");
	});
});

describe("issue 18 (sibling): publish never ships the user's own skills from outside DIR", () => {
	it("publishes the workspace's skills only, and names the user-scope skills it left alone", async () => {
		const home = await writeTree(await tempDir(), {
			".agents/skills/personal/SKILL.md": skillMd("personal"),
			".claude/skills/private/SKILL.md": skillMd("private"),
		});
		const ws = await workspace({ ".agents/skills/pdf/SKILL.md": skillMd("pdf") });
		const run = await cli(["publish", "--out", ws.out, "--json"], { cwd: ws.cwd, env: { HOME: home } });
		const data = JSON.parse(run.stdout);
		expect(data.entries.map((e: { name: string }) => e.name)).toEqual(["pdf"]);
		expect(data.otherScopes).toEqual([
			{ skill: "personal", scope: "user" },
			{ skill: "private", scope: "user" },
		]);
		const index = await readFile(join(ws.out, ".well-known", "agent-skills", "index.json"), "utf8");
		expect(index).not.toMatch(/personal|private/);
	});
});

describe("issue 18 (sibling): a skill name is a path segment of OUT", () => {
	it.each(["../../escaped", "a/b", "Bad_Name", ".hidden"])("refuses to publish a skill named %j", async (name) => {
		const dir = await writeTree(await tempDir(), { "SKILL.md": skillMd("ok") });
		const parent = await tempDir();
		const out = join(parent, "a", "b", "site");
		const result = await publishSkills([{ name, description: "x", dir }], out);
		expect(result.refused).toEqual([expect.objectContaining({ skill: name, code: "publish.invalid" })]);
		expect(result.entries).toEqual([]);
		expect((await readdir(parent, { recursive: true })).filter((p) => p.includes("escaped"))).toEqual([]);
	});
});
