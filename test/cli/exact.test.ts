import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { estimateTokenizer, lintSkills } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 9, "Exact behaviour".
let root: string;
let workspace: string;
let env: Record<string, string>;
const description = "Writes internal announcements. Use when the user asks for a company update.";

beforeAll(async () => {
	root = await tempDir();
	workspace = join(root, "ws");
	env = { HOME: join(root, "home"), SKILLSET_TRUST_FILE: join(root, "trust.json") };
	await mkdir(env.HOME as string);
	await writeTree(workspace, {
		".agents/skills/comms-anthropic/SKILL.md": skillMd("internal-comms", description),
		".agents/skills/comms-anthropic/references/long.md": `${"x\n".repeat(2500)}`,
	});
});

describe("names resolve the same way in doctor, show and read", () => {
	it.each([
		[["show", "comms-anthropic"], "stderr"],
		[["read", "comms-anthropic", "references/long.md"], "stderr"],
		[["doctor", "comms-anthropic"], "stdout"],
	] as const)("%j offers the skill's id for its folder name", async (args, stream) => {
		const run = await cli([...args, workspace], { env });
		expect(run.exitCode).toBe(1);
		expect(run[stream]).toContain("No skill is named 'comms-anthropic'. Did you mean 'internal-comms'?");
	});
});

describe("an empty NAME", () => {
	it.each([["show"], ["read"], ["doctor"]])("%s: is a usage error, not a guess", async (command) => {
		const args = command === "read" ? [command, "", "x", workspace] : [command, "", workspace];
		const run = await cli(args, { env });
		expect([run.exitCode, run.stderr.split("\n")[0]]).toEqual([2, "skillset: the skill NAME is empty"]);
	});
});

describe("skillset read paging", () => {
	it("says an offset is past the end", async () => {
		const run = await cli(["read", "internal-comms", "references/long.md", workspace, "--offset", "3000"], { env });
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("offset 3000 is past the end: the file has 2500 lines");
	});

	it("caps --limit at the documented 2000 lines", async () => {
		const run = await cli(["read", "internal-comms", "references/long.md", workspace, "--limit", "5000", "--json"], {
			env,
		});
		const page = JSON.parse(run.stdout);
		expect([page.lines, page.nextOffset]).toEqual([2000, 2001]);
	});
});

describe("skillset new", () => {
	it("creates folders with the user's umask, not 0700", async () => {
		const dir = join(root, "made");
		await mkdir(dir);
		const run = await cli(["new", "digest", "--dir", dir, "--description", description], { env });
		expect(run.exitCode).toBe(0);
		const mode = (await stat(join(dir, "digest"))).mode & 0o777;
		const umask = process.umask();
		expect(mode).toBe(0o777 & ~umask);
	});

	it("refuses to create a missing --dir unless --parents", async () => {
		const dir = join(root, "not", "yet");
		const run = await cli(["new", "digest", "--dir", dir, "--description", description], { env });
		expect([run.exitCode, run.stdout]).toEqual([1, ""]);
		expect(run.stderr).toContain("--parents");
		await expect(stat(join(root, "not"))).rejects.toThrow();
		const parents = await cli(["new", "digest", "--dir", dir, "--parents", "--description", description], { env });
		expect(parents.exitCode).toBe(0);
	});

	it("requires a real description, and lint flags the placeholder", async () => {
		const dir = join(root, "made");
		const none = await cli(["new", "no-description", "--dir", dir], { env });
		expect(none.exitCode).toBe(2);
		expect(none.stderr).toContain("--description");
		const placeholder = "Describe what this skill does and when to use it, with the words a user would say.";
		const copied = await cli(["new", "copied", "--dir", dir, "--description", placeholder], { env });
		expect(copied.exitCode).toBe(1);
		await writeTree(root, { "placeholder/SKILL.md": skillMd("placeholder", placeholder) });
		const [result] = await lintSkills([join(root, "placeholder")], { tokenizer: estimateTokenizer });
		expect(result?.diagnostics.map((d) => d.code)).toContain("lint.placeholder");
		expect((await cli(["lint", join(root, "placeholder")], { env })).exitCode).toBe(1);
	});

	it("says a name over 64 characters is too long", async () => {
		const run = await cli(["new", "a".repeat(65), "--dir", join(root, "made"), "--description", description], { env });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain("is too long: 65 characters, at most 64");
	});
});

describe("skillset trust", () => {
	it("refuses a path that does not exist", async () => {
		const run = await cli(["trust", join(root, "nowhere")], { env });
		expect([run.exitCode, run.stdout]).toEqual([1, ""]);
		expect(run.stderr).toContain("does not exist");
		await expect(readFile(env.SKILLSET_TRUST_FILE as string)).rejects.toThrow();
	});

	it.each([["/"], ["home"]])("refuses %s without --force", async (which) => {
		const dir = which === "home" ? (env.HOME as string) : "/";
		const run = await cli(["trust", dir], { env });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain("--force");
		const store = join(root, `forced-${which}.json`);
		expect((await cli(["trust", dir, "--force", "--store", store], { env })).exitCode).toBe(0);
	});

	it("lists what covers a DIR", async () => {
		const store = join(root, "covers.json");
		await cli(["trust", root, "--store", store], { env });
		await cli(["trust", workspace, "--untrust", "--store", store], { env });
		await cli(["trust", env.HOME as string, "--untrust", "--store", store], { env });
		const run = await cli(["trust", join(workspace, ".agents"), "--list", "--store", store, "--json"], { env });
		const data = JSON.parse(run.stdout);
		expect(data.covers).toEqual({ path: join(workspace, ".agents"), trusted: false });
		expect(data.workspaces.map((w: { path: string }) => w.path)).toEqual([root, workspace]);
		const text = await cli(["trust", join(workspace, ".agents"), "--list", "--store", store], { env });
		expect(text.stdout.split("\n")[0]).toBe(`${join(workspace, ".agents")} is not trusted, by:`);
	});
});

describe("rejected skills are never left out", () => {
	it("scan gives every rejected skill its reason, whatever the severity; list --all includes them", async () => {
		const { symlink } = await import("node:fs/promises");
		const ws = join(root, "rejecting");
		await writeTree(ws, {
			".git/HEAD": "ref: refs/heads/main\n",
			".agents/skills/good/SKILL.md": skillMd("good", description),
			".agents/skills/broken/SKILL.md": "---\nname: broken\n---\nNo description.\n",
			"elsewhere/SKILL.md": skillMd("linked", description),
		});
		await mkdir(join(ws, ".agents/skills/linked"));
		await symlink(join(ws, "elsewhere/SKILL.md"), join(ws, ".agents/skills/linked/SKILL.md"));
		const scan = await cli(["scan", ws], { env });
		expect(scan.stdout).toMatch(/Rejected \(2\)/);
		expect(scan.stdout).toMatch(/ {2}linked .*\n {6}.*entry\.symlink/);
		expect(scan.stdout).toMatch(/ {2}broken .*\n {6}.*description\.missing/);
		const all = JSON.parse((await cli(["list", ws, "--all", "--json"], { env })).stdout);
		expect(all.map((s: { name: string; status: string }) => `${s.name} ${s.status}`)).toEqual([
			"good selected",
			"broken rejected",
			"linked rejected",
		]);
		const text = await cli(["list", ws, "--all"], { env });
		expect(text.stdout).toMatch(/broken {2}workspace rejected .*description\.missing/);
	});
});
