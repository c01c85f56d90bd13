import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 9, "Nothing passes silently": one PATH resolver for validate, lint, audit, lock and read.
let root: string;
let env: Record<string, string>;
const description = "Formats tables for reports. Use when the user shares a table to tidy.";

beforeAll(async () => {
	root = await tempDir();
	env = { HOME: join(root, "home") };
	await writeTree(root, {
		"one/tables/SKILL.md": skillMd("tables", description, "license: MIT"),
		"one/tables/references/guide.md": "line one\nline two\n",
		"plain.txt": "not a skill\n",
		"collection/skills/.curated/hidden-one/SKILL.md": skillMd("hidden-one", description, "license: MIT"),
		"collection/README.md": "A collection.\n",
		"deep/vendor/pack/skills/found-me/SKILL.md": skillMd("found-me", description),
	});
});

const COMMANDS: [string, (path: string) => string[]][] = [
	["validate", (path) => ["validate", path]],
	["lint", (path) => ["lint", path]],
	["audit", (path) => ["audit", path]],
	["lock", (path) => ["lock", path, "--lock", join(root, "out.lock.json")]],
	["read", (path) => ["read", "tables", "references/guide.md", path]],
];

describe("a PATH that names no skill", () => {
	it.each(COMMANDS)("%s: a missing path is path.not-found, exit 1", async (_name, args) => {
		const run = await cli(args(join(root, "nowhere")), { env });
		expect(run.exitCode).toBe(1);
		expect(`${run.stdout}${run.stderr}`).toContain("path.not-found");
		const json = await cli([...args(join(root, "nowhere")), "--json"], { env });
		expect(json.stdout).toContain('"path.not-found"');
	});

	it.each([["validate"], ["lint"], ["audit"]])(
		"%s: an empty PATH is path.not-found, not the working folder",
		async (c) => {
			const run = await cli([c, "", "--json"], { env, cwd: root });
			expect(run.exitCode).toBe(1);
			expect(run.stdout).toContain('"path.not-found"');
			expect(run.stdout).not.toContain("tables");
		},
	);

	it.each(COMMANDS)("%s: a plain file is path.not-directory, exit 1", async (_name, args) => {
		const run = await cli(args(join(root, "plain.txt")), { env });
		expect(run.exitCode).toBe(1);
		expect(`${run.stdout}${run.stderr}`).toContain("path.not-directory");
	});

	it.each([
		["validate", (data: { skill: { name: string } }[]) => data.map((r) => r.skill.name)],
		["lint", (data: { name: string }[]) => data.map((r) => r.name)],
		["audit", (data: { skills: { name: string }[] }) => data.skills.map((s) => s.name)],
		["lock", (data: { skills: { name: string }[] }) => data.skills.map((s) => s.name)],
		["read", (data: { name: string; content: string }) => [data.name, data.content]],
	] as const)("%s: a SKILL.md path means its folder", async (name, checked) => {
		const args = COMMANDS.find(([command]) => command === name)?.[1] ?? (() => []);
		const run = await cli([...args(join(root, "one/tables/SKILL.md")), "--json"], { env });
		expect([run.exitCode, run.stderr]).toEqual([0, ""]);
		const expected = {
			validate: ["tables"],
			lint: ["tables"],
			audit: ["tables"],
			lock: ["tables"],
			read: ["tables", "line one\nline two"],
		};
		expect((checked as (data: never) => unknown)(JSON.parse(run.stdout) as never)).toEqual(expected[name]);
	});

	it.each(COMMANDS)(
		"%s: a folder with skills only in hidden folders is path.no-skills with a hint",
		async (_n, args) => {
			const run = await cli(args(join(root, "collection")), { env });
			expect(run.exitCode).toBe(1);
			const text = `${run.stdout}${run.stderr}`;
			expect(text).toContain("path.no-skills");
			expect(text).toContain("--include-hidden");
		},
	);

	it.each([
		["validate", ["validate"], (out: string) => JSON.parse(out).map((r: { path: string }) => r.path)],
		["lint", ["lint"], (out: string) => JSON.parse(out).map((r: { path: string }) => r.path)],
		["audit", ["audit"], (out: string) => JSON.parse(out).skills.map((s: { name: string }) => s.name)],
	])("%s --include-hidden finds the hidden collection", async (_name, command, found) => {
		const run = await cli([...command, join(root, "collection"), "--include-hidden", "--json"], { env });
		expect(run.exitCode).toBe(0);
		expect(found(run.stdout)).toEqual(
			_name === "audit" ? ["hidden-one"] : [join(root, "collection/skills/.curated/hidden-one")],
		);
	});
});

describe("a workspace DIR for scan, list and catalog", () => {
	it("scans hidden folders below a root with --include-hidden", async () => {
		const args = ["list", "--no-default-roots", "--root", join(root, "collection/skills"), "--json"];
		expect(JSON.parse((await cli(args, { env })).stdout)).toEqual([]);
		const hidden = JSON.parse((await cli([...args, "--include-hidden"], { env })).stdout);
		expect(hidden.map((s: { name: string }) => s.name)).toEqual(["hidden-one"]);
	});

	it.each([["scan"], ["list"], ["catalog"], ["lint"]])("%s: a missing --root is a usage error", async (command) => {
		const run = await cli([command, "--root", join(root, "nowhere")], { env });
		expect(run.exitCode).toBe(2);
		expect(run.stderr.split("\n")[0]).toBe(`skillset: --root ${join(root, "nowhere")} does not exist`);
	});

	it.each([["scan"], ["list"], ["catalog"]])("%s: a missing DIR is a usage error", async (command) => {
		const run = await cli([command, join(root, "nowhere")], { env });
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toBe(
			`skillset: DIR ${join(root, "nowhere")} does not exist\nRun 'skillset ${command} --help' for usage.\n`,
		);
	});

	it.each([["scan"], ["list"], ["catalog"]])(
		"%s: SKILL.md files only deeper get the --root command",
		async (command) => {
			const dir = join(root, "deep");
			const run = await cli([command, dir], { env, cwd: root });
			expect(run.exitCode).toBe(1);
			const expected = `skillset ${command} ${dir} --root ${join("deep", "vendor", "pack", "skills")}`;
			expect(run.stderr).toContain(`To find them: ${expected}`);
			const again = await cli([command, dir, "--root", relative(root, join(dir, "vendor/pack/skills")), "--json"], {
				env,
				cwd: root,
			});
			expect([again.exitCode, again.stdout.includes("found-me")]).toEqual([0, true]);
		},
	);
});

describe("skillset lock writes", () => {
	it("reports a lock path that is a folder as an I/O error, leaving no temporary file", async () => {
		const folder = join(root, "lock-folder");
		await mkdir(folder);
		const run = await cli(["lock", join(root, "one/tables"), "--lock", folder], { env });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain(`cannot write the lock file ${folder}`);
		expect((await readdir(root)).filter((name) => name.includes(".tmp"))).toEqual([]);
		const under = join(root, "plain.txt", "skills.lock.json");
		const notDir = await cli(["lock", join(root, "one/tables"), "--lock", under, "--json"], { env });
		expect([notDir.exitCode, JSON.parse(notDir.stdout).error]).toEqual([1, expect.stringContaining("ENOTDIR")]);
	});

	it("does not count a skill with unhashed files as fully locked", async () => {
		const { symlink } = await import("node:fs/promises");
		await writeTree(root, { "linky/linky/SKILL.md": skillMd("linky", description) });
		await symlink(join(root, "plain.txt"), join(root, "linky/linky/link.txt"));
		const run = await cli(["lock", join(root, "linky/linky"), "--lock", join(root, "linky.lock.json")], { env });
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toContain("1 skill locked in");
		expect(run.stdout).toContain("(1 with files not hashed: the lock does not cover them)");
	});

	it("says how many skills match the lock and how many differ", async () => {
		const lock = join(root, "counts.lock.json");
		expect((await cli(["lock", join(root, "one/tables"), "--lock", lock], { env })).exitCode).toBe(0);
		const same = await cli(["lock", join(root, "one/tables"), "--lock", lock, "--verify"], { env });
		expect(same.stdout).toContain(`1 skill verified against ${lock}: 1 match, 0 differ`);
		await writeFile(join(root, "one/tables/references/guide.md"), "changed\n");
		const changed = await cli(["lock", join(root, "one/tables"), "--lock", lock, "--verify", "--json"], { env });
		expect([changed.exitCode, JSON.parse(changed.stdout).differ]).toEqual([1, 1]);
		await writeFile(join(root, "one/tables/references/guide.md"), "line one\nline two\n");
	});
});
