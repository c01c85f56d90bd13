import { existsSync } from "node:fs";
import { mkdir, readFile, symlink } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { detectSandbox, runSandboxed, SkillsetError } from "skillset";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

const availability = await detectSandbox();
if (!availability.available) console.warn(`sandbox tests skipped: ${availability.reason}`);
const withSandbox = describe.skipIf(!availability.available);

describe("detectSandbox", () => {
	it("reports bwrap with its path, or why there is no sandbox", () => {
		if (availability.available)
			expect(availability).toMatchObject({ kind: "bwrap", path: expect.stringMatching(/bwrap$/) });
		else expect(availability.reason).toMatch(/\S/);
	});

	it("without bwrap on PATH: unavailable with the reason, and runSandboxed throws sandbox.unavailable", async () => {
		const path = process.env.PATH;
		process.env.PATH = "/nonexistent-bin";
		try {
			expect(await detectSandbox()).toEqual({ available: false, reason: expect.stringMatching(/bwrap|bubblewrap/) });
			await expect(runSandboxed("true", { workspace: "." })).rejects.toMatchObject({ code: "sandbox.unavailable" });
		} finally {
			process.env.PATH = path;
		}
	});
});

withSandbox("runSandboxed (bubblewrap)", () => {
	let workspace: string;
	let outside: string;
	let linkedTarget: string;

	beforeAll(async () => {
		const root = await tempDir();
		workspace = join(root, "ws");
		outside = join(root, "outside");
		linkedTarget = join(root, "linked-skills");
		await writeTree(workspace, {
			".agents/skills/demo/SKILL.md": "---\nname: demo\ndescription: d\n---\nbody\n",
			"src/app.ts": "x\n",
		});
		await writeTree(linkedTarget, { "linked/SKILL.md": "---\nname: linked\ndescription: d\n---\nbody\n" });
		await mkdir(join(workspace, "tools"), { recursive: true });
		await symlink(linkedTarget, join(workspace, "tools", "skills"));
		await mkdir(outside, { recursive: true });
	});

	const options = () => ({
		workspace,
		readOnly: [".agents/skills", "tools/skills", ".claude/skills"],
		network: false,
		timeoutMs: 20_000,
	});

	it("writes in the workspace succeed and land on disk", async () => {
		const result = await runSandboxed("echo made > src/new.txt && cat src/new.txt", options());
		expect(result).toMatchObject({ exitCode: 0, stdout: "made\n", timedOut: false, truncated: false });
		expect(await readFile(join(workspace, "src", "new.txt"), "utf8")).toBe("made\n");
	});

	it.each([
		["a file in a skill folder", "echo x >> .agents/skills/demo/SKILL.md"],
		["a new file in a skill folder", "touch .agents/skills/demo/evil.sh"],
		["a new skill in a root", "mkdir .agents/skills/evil"],
		["removing the root through its parent", "rm -rf .agents"],
		["renaming the root's parent", "mv .agents moved"],
		["a root reached through a symlink", "touch tools/skills/linked/evil"],
		["a root that did not exist yet", "mkdir -p .claude/skills/evil && echo x > .claude/skills/evil/SKILL.md"],
		// The host's /tmp (where this test's folders live) is replaced by a private, empty one.
		["outside the workspace", `touch ${JSON.stringify(join("..", "outside", "f"))}`, /No such file/],
		["the home folder", "touch /root/.skillset-sandbox-test || touch /etc/skillset-sandbox-test"],
	])(
		"writing %s fails at the OS level",
		async (_, command, error = /Read-only file system|Device or resource busy/) => {
			const before = await readFile(join(workspace, ".agents/skills/demo/SKILL.md"), "utf8");
			const result = await runSandboxed(command, options());
			expect(result.exitCode).not.toBe(0);
			expect(result.stderr).toMatch(error);
			expect(await readFile(join(workspace, ".agents/skills/demo/SKILL.md"), "utf8")).toBe(before);
			expect(existsSync(join(workspace, ".agents/skills/demo/evil.sh"))).toBe(false);
			expect(existsSync(join(workspace, ".agents/skills/evil"))).toBe(false);
			expect(existsSync(join(workspace, "moved"))).toBe(false);
			expect(existsSync(join(linkedTarget, "linked/evil"))).toBe(false);
			expect(existsSync(join(workspace, ".claude/skills/evil"))).toBe(false);
			expect(existsSync(join(outside, "f"))).toBe(false);
		},
	);

	it("the same writes succeed without readOnly, so the failures above come from the sandbox", async () => {
		const result = await runSandboxed("touch .agents/skills/demo/scratch && rm .agents/skills/demo/scratch", {
			workspace,
			timeoutMs: 20_000,
		});
		expect(result.exitCode).toBe(0);
	});

	it("gives a private /tmp, a cleared environment, no stdin and the workspace as working directory", async () => {
		process.env.SKILLSET_SANDBOX_SECRET = "leak";
		try {
			const result = await runSandboxed(
				'echo t > /tmp/private && pwd && printenv SKILLSET_SANDBOX_SECRET || echo none && echo "$EXTRA $HOME" && cat',
				{ ...options(), env: { EXTRA: "given" } },
			);
			expect(result.stdout).toBe(`${workspace}\nnone\ngiven /tmp\n`);
			expect(existsSync("/tmp/private")).toBe(false);
		} finally {
			delete process.env.SKILLSET_SANDBOX_SECRET;
		}
	});

	describe("network", () => {
		let server: Server;
		let port = 0;
		beforeAll(async () => {
			server = createServer((socket) => socket.end("hello\n"));
			await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
			port = (server.address() as { port: number }).port;
		});
		afterAll(() => new Promise<void>((done) => server.close(() => done())));
		const connect = () =>
			`${JSON.stringify(process.execPath)} -e 'const s=require("net").connect(${port},"127.0.0.1");s.setTimeout(5000,()=>process.exit(3));s.on("data",d=>{process.stdout.write(d);process.exit(0)});s.on("error",e=>{console.error(e.code);process.exit(2)})'`;

		it("network: false blocks a loopback connection", async () => {
			const result = await runSandboxed(connect(), { ...options(), network: false });
			expect(result.exitCode).toBe(2);
			expect(result.stderr).toMatch(/ECONNREFUSED|ENETUNREACH/);
		});

		it("network: true reaches the same server", async () => {
			const result = await runSandboxed(connect(), { ...options(), network: true });
			expect(result).toMatchObject({ exitCode: 0, stdout: "hello\n" });
		});
	});

	it("a timeout kills the whole process group, background children included", async () => {
		const marker = join(workspace, "late.txt");
		const started = Date.now();
		const result = await runSandboxed(`(sleep 3; touch ${JSON.stringify(marker)}) & sleep 30`, {
			...options(),
			timeoutMs: 500,
		});
		expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" });
		expect(Date.now() - started).toBeLessThan(10_000);
		await new Promise((done) => setTimeout(done, 3500));
		expect(existsSync(marker)).toBe(false);
	});

	it("background processes end with the command", async () => {
		const marker = join(workspace, "after-exit.txt");
		const result = await runSandboxed(`(sleep 1; touch ${JSON.stringify(marker)}) & echo started`, options());
		expect(result).toMatchObject({ exitCode: 0, stdout: "started\n" });
		await new Promise((done) => setTimeout(done, 1500));
		expect(existsSync(marker)).toBe(false);
	});

	it("hides the host's /run (service sockets) and refuses / as the workspace", async () => {
		const result = await runSandboxed("ls -A /run", options());
		expect(result.stdout.split("\n").filter((name) => name !== "" && name !== "systemd")).toEqual([]);
		await expect(runSandboxed("true", { workspace: "/" })).rejects.toMatchObject({ code: "invalid-option" });
	});

	it("an abort signal kills the command", async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 300);
		const result = await runSandboxed("sleep 30", { ...options(), signal: controller.signal });
		expect(result).toMatchObject({ timedOut: false, exitCode: null, signal: "SIGKILL" });
	});

	it("caps output at maxOutputBytes and says it was cut", async () => {
		const result = await runSandboxed("yes abcdefgh | head -c 100000; echo done >&2", {
			...options(),
			maxOutputBytes: 1000,
		});
		expect(result.exitCode).toBe(0);
		expect(Buffer.byteLength(result.stdout)).toBe(1000);
		expect(result.stdout.startsWith("abcdefgh\n")).toBe(true);
		expect(result).toMatchObject({ truncated: true, stderr: "done\n" });
	});

	it("refuses to run when a read-only path cannot be resolved (a link loop)", async () => {
		await symlink("loop-b", join(workspace, "loop-a"));
		await symlink("loop-a", join(workspace, "loop-b"));
		const error = await runSandboxed("touch x", { ...options(), readOnly: ["loop-a/skills"] }).catch((e: unknown) => e);
		expect(error).toMatchObject({ code: "sandbox.unavailable" });
		expect(existsSync(join(workspace, "x"))).toBe(false);
	});

	it("rejects a workspace that does not exist", async () => {
		const error = await runSandboxed("true", { workspace: join(outside, "missing") }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SkillsetError);
		expect(error).toMatchObject({ code: "invalid-option" });
	});
});
