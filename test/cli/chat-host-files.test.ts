import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceFixture } from "../agent/fixture.ts";
import { cli } from "../helpers/cli.ts";
import { type ScriptedLlm, startScriptedLlm } from "../helpers/scripted-llm.ts";

// Issue 18: files chat writes for the host (the event log, a saved conversation) were opened through links the
// model could plant, so events landed in ~/.bashrc. Here the links are planted before chat starts.

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");
const BASHRC = "# start-up\n";
let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

async function fixture() {
	const made = await workspaceFixture();
	const bashrc = join(made.home, ".bashrc");
	await writeFile(bashrc, BASHRC);
	return { ...made, bashrc };
}

describe("chat's own files against planted links", () => {
	it("--events through a link to ~/.bashrc is a usage error and writes nothing", async () => {
		const made = await fixture();
		await symlink(made.bashrc, join(made.workspace, "events.jsonl"));
		llm.script([{ content: "hello" }]);
		const run = await cli(
			["chat", "-p", "hi", "--events", "events.jsonl", "--base-url", llm.url, "--model", "scripted"],
			{ cwd: made.workspace, env: { HOME: made.home } },
		);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain("cannot append events to");
		expect(run.stderr).toContain("it is a symbolic link");
		expect(await readFile(made.bashrc, "utf8")).toBe(BASHRC);
	});

	it("/save replaces a link at the name instead of writing through it", async () => {
		expect(existsSync(BIN), "run `npm run build` first").toBe(true);
		const made = await fixture();
		const saved = join(made.workspace, "saved.json");
		await symlink(made.bashrc, saved);
		const child = spawn(process.execPath, [BIN, "chat", "--base-url", llm.url, "--model", "scripted"], {
			cwd: made.workspace,
			env: { PATH: process.env.PATH ?? "", HOME: made.home, NO_COLOR: "1" },
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stdin.end("/save saved.json\n");
		const code = await new Promise<number | null>((resolve) => {
			const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
			child.on("close", (exit) => {
				clearTimeout(timer);
				resolve(exit);
			});
		});
		expect(code).toBe(0);
		expect(stdout).toContain("saved to");
		expect(await readFile(made.bashrc, "utf8")).toBe(BASHRC);
		expect((await lstat(saved)).isFile()).toBe(true);
		expect(JSON.parse(await readFile(saved, "utf8"))).toMatchObject({ version: 1 });
	});
});

describe("--resume reads only a bounded regular file", () => {
	it.each([
		["a FIFO", async (path: string) => void execFileSync("mkfifo", [path])],
		["a link to /dev/zero", (path: string) => symlink("/dev/zero", path)],
		["a folder", (path: string) => mkdir(path)],
	])("%s is a usage error, not a hang", async (_label, plant) => {
		const made = await fixture();
		const saved = join(made.workspace, "saved.json");
		await plant(saved);
		const run = await cli(
			["chat", "-p", "hi", "--resume", "saved.json", "--base-url", llm.url, "--model", "scripted"],
			{
				cwd: made.workspace,
				env: { HOME: made.home },
			},
		);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain("cannot resume from");
	});
});
