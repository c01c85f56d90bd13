import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hashPackage } from "skillset";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skill, workspace } from "../helpers/git.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");

/** Runs the built CLI as a separate process (optionally as another user); resolves with its status and output. */
function spawnCli(
	args: string[],
	cwd: string,
	options: { asNobody?: boolean; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
	const argv = options.asNobody
		? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, BIN, ...args]
		: [process.execPath, BIN, ...args];
	return new Promise((resolve, reject) => {
		const child = spawn(argv[0] as string, argv.slice(1), {
			cwd,
			env: { ...process.env, HOME: cwd, NO_COLOR: "1", ...options.env },
			stdio: ["ignore", "pipe", "pipe"],
			// A bound for the test run, not a timing assertion: a process that hangs is killed and fails the test.
			timeout: options.timeoutMs ?? 60_000,
			killSignal: "SIGKILL",
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => (stdout += chunk));
		child.stderr.on("data", (chunk) => (stderr += chunk));
		child.on("error", reject);
		child.on("close", (status) => resolve({ status, stdout, stderr }));
	});
}

describe("lock updates from concurrent processes are merged, never lost", () => {
	it("keeps every entry when 12 adds run at once", { timeout: 120_000 }, async () => {
		const sources = await tempDir();
		const names = Array.from({ length: 12 }, (_, i) => `par-${i}`);
		for (const name of names) await writeTree(sources, { [`${name}/SKILL.md`]: skill(name) });
		const ws = await workspace();
		const runs = await Promise.all(names.map((name) => spawnCli(["add", join(sources, name)], ws.cwd)));
		for (const run of runs) expect(run.status, run.stderr + run.stdout).toBe(0);
		expect(ws.installed()).toEqual([...names].sort());
		const lock = await ws.lock();
		expect(Object.keys(lock.skills).sort()).toEqual([...names].sort());
		for (const name of names) {
			expect(lock.skills[name].digest).toBe(hashPackage(join(ws.cwd, ".agents/skills", name)).digest);
		}
		expect(readdirSync(ws.cwd).filter((f) => f.includes(".lock") && f !== "skills.lock.json")).toEqual([]);
	});

	it("keeps every entry when adds and removes of other skills run at once", { timeout: 120_000 }, async () => {
		const sources = await tempDir();
		const ws = await workspace();
		const early = Array.from({ length: 5 }, (_, i) => `early-${i}`);
		const late = Array.from({ length: 5 }, (_, i) => `late-${i}`);
		for (const name of [...early, ...late]) await writeTree(sources, { [`${name}/SKILL.md`]: skill(name) });
		for (const name of early) expect((await ws.run("add", join(sources, name))).exitCode).toBe(0);
		const runs = await Promise.all([
			...late.map((name) => spawnCli(["add", join(sources, name)], ws.cwd)),
			...early.map((name) => spawnCli(["remove", name], ws.cwd)),
		]);
		for (const run of runs) expect(run.status, run.stderr + run.stdout).toBe(0);
		expect(Object.keys((await ws.lock()).skills).sort()).toEqual(late);
		expect(ws.installed()).toEqual(late);
	});
});

describe("an install whose lock cannot be written is undone, and says so", () => {
	it("refuses before installing when the lock file cannot be read", async () => {
		const sources = await writeTree(await tempDir(), { "one/SKILL.md": skill("one") });
		const ws = await workspace();
		await writeFile(join(ws.cwd, "skills.lock.json"), "{ not json");
		const run = await ws.run("add", join(sources, "one"), "--json");
		expect(run.exitCode).toBe(1);
		expect(JSON.parse(run.stdout).failure).toMatchObject({ code: "install.io" });
		expect(JSON.parse(run.stdout).failure.message).toMatch(/skills\.lock\.json/);
		expect(ws.installed()).toEqual([]);
		expect(await readFile(join(ws.cwd, "skills.lock.json"), "utf8")).toBe("{ not json");
	});

	it("as an unprivileged user, a lock folder it cannot write to undoes the install", { timeout: 60_000 }, async () => {
		const sources = await writeTree(await tempDir(), { "two/SKILL.md": skill("two") });
		await chmod(sources, 0o755);
		const ws = await tempDir();
		await chmod(ws, 0o755);
		// The skills folder is the user's to write; the lock's folder (the workspace) is not.
		const target = join(ws, "skills");
		const scratch = join(ws, "scratch");
		for (const folder of [target, scratch]) {
			await mkdir(folder);
			await chown(folder, 65534, 65534);
		}
		const run = await spawnCli(["add", join(sources, "two"), "--dir", "skills", "--json"], ws, {
			asNobody: true,
			env: { HOME: target, TMPDIR: scratch },
		});
		expect(run.status, run.stderr).toBe(1);
		const result = JSON.parse(run.stdout);
		expect(result.outcomes).toEqual([
			expect.objectContaining({ name: "two", status: "refused", code: "install.unpinned" }),
		]);
		expect(result.outcomes[0].message).toMatch(/not installed.*skills\.lock\.json/);
		expect(readdirSync(target)).toEqual([]);
		expect(readdirSync(scratch)).toEqual([]);
		expect(existsSync(join(ws, "skills.lock.json"))).toBe(false);
	});
});

describe("a removal whose lock entry cannot be dropped", () => {
	it("as an unprivileged user, says the folder is gone but the entry stays, with exit 1", {
		timeout: 60_000,
	}, async () => {
		const sources = await writeTree(await tempDir(), { "four/SKILL.md": skill("four") });
		const ws = await tempDir();
		await chmod(ws, 0o755);
		expect(
			(await cli(["add", join(sources, "four"), "--dir", "skills"], { cwd: ws, env: { HOME: ws } })).exitCode,
		).toBe(0);
		const scratch = join(ws, "scratch");
		await mkdir(scratch);
		for (const folder of [
			join(ws, "skills"),
			join(ws, "skills", "four"),
			join(ws, "skills", "four", "SKILL.md"),
			scratch,
		]) {
			await chown(folder, 65534, 65534);
		}
		const run = await spawnCli(["remove", "four", "--dir", "skills", "--json"], ws, {
			asNobody: true,
			env: { HOME: scratch, TMPDIR: scratch },
		});
		expect(run.status, run.stderr).toBe(1);
		expect(JSON.parse(run.stdout)).toEqual([
			expect.objectContaining({ name: "four", status: "removed", code: "install.unpinned" }),
		]);
		expect(existsSync(join(ws, "skills", "four"))).toBe(false);
		expect(JSON.parse(await readFile(join(ws, "skills.lock.json"), "utf8")).skills.four).toBeDefined();
	});
});

describe("a lock file that never ends", () => {
	it.each([
		["a FIFO", "fifo"],
		["a link to /dev/zero", "zero"],
	])("as %s is refused by every command that reads it, at once", { timeout: 120_000 }, async (_what, kind) => {
		const ws = await workspace();
		const lock = join(ws.cwd, "skills.lock.json");
		if (kind === "fifo") execFileSync("mkfifo", [lock]);
		else await symlink("/dev/zero", lock);
		const source = await writeTree(await tempDir(), { "three/SKILL.md": skill("three") });
		for (const args of [["outdated"], ["update", "--yes"], ["remove", "three"], ["add", join(source, "three")]]) {
			const run = await spawnCli([...args, "--json"], ws.cwd, { timeoutMs: 20_000 });
			expect(run.status, `${args[0]}: ${run.stderr}`).not.toBeNull();
			expect(`${run.stdout}${run.stderr}`).toMatch(/skills\.lock\.json is not a regular file/);
		}
		const verify = await spawnCli(["lock", "--verify"], ws.cwd, { timeoutMs: 20_000 });
		expect(verify.status).not.toBeNull();
		expect(verify.stderr).toMatch(/not a regular file/);
		const show = await spawnCli(["show", "three", "--verify"], ws.cwd, { timeoutMs: 20_000 });
		expect(show.status).toBe(2);
		expect(show.stderr).toMatch(/cannot read the lock file .*ENOTREG/);
		expect(ws.installed()).toEqual([]);
	});
});
