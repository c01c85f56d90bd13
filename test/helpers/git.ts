import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cli } from "./cli.ts";
import { tempDir, writeTree } from "./temp.ts";

const GIT_ENV = {
	...process.env,
	GIT_AUTHOR_NAME: "t",
	GIT_AUTHOR_EMAIL: "t@example.com",
	GIT_COMMITTER_NAME: "t",
	GIT_COMMITTER_EMAIL: "t@example.com",
	GIT_CONFIG_NOSYSTEM: "1",
	HOME: "/nonexistent",
};

/** Runs git in `dir` with a fixed identity and no user or system config. */
export function git(dir: string, ...args: string[]): string {
	return execFileSync("git", ["-c", "init.defaultBranch=main", ...args], {
		cwd: dir,
		env: GIT_ENV,
		encoding: "utf8",
	}).trim();
}

/** A SKILL.md for `name`. */
export function skill(name: string, extra = "", body = "Steps.\n"): string {
	return `---\nname: ${name}\ndescription: Does ${name} things for the tests.\n${extra}---\n# ${name}\n\n${body}`;
}

/** A real repository with `files` committed; returns its folder. */
export async function repo(files: Record<string, string>): Promise<string> {
	const dir = await writeTree(await tempDir(), files);
	git(dir, "init", "-q");
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "first");
	return dir;
}

/** Commits `files` on top; returns the new commit. */
export async function commit(dir: string, files: Record<string, string>, message: string): Promise<string> {
	await writeTree(dir, files);
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", message);
	return git(dir, "rev-parse", "HEAD");
}

/**
 * An attacker's command: a script that creates a marker file when anything runs it (with any arguments). The test
 * asserts `ran()` is false: the command never ran.
 */
export async function hostileCommand(): Promise<{ script: string; marker: string; ran: () => boolean }> {
	const dir = await tempDir();
	const marker = join(dir, "PWNED");
	const script = join(dir, "payload.sh");
	await writeFile(script, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
	await chmod(script, 0o755);
	return { script, marker, ran: () => existsSync(marker) };
}

/** A workspace: runs the CLI in it, reads its lock, lists its installed skills. */
export async function workspace() {
	const cwd = await tempDir();
	const run = (...argv: string[]) => cli(argv, { cwd, env: { HOME: cwd } });
	const lock = async () => JSON.parse(await readFile(join(cwd, "skills.lock.json"), "utf8"));
	const writeLock = (skills: Record<string, unknown>) =>
		writeFile(join(cwd, "skills.lock.json"), JSON.stringify({ version: 1, skills }, null, 2));
	const installed = () =>
		existsSync(join(cwd, ".agents/skills")) ? readdirSync(join(cwd, ".agents/skills")).sort() : [];
	return { cwd, run, lock, writeLock, installed };
}
