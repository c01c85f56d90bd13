import { statSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { runUnsandboxed } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, toolResultsOf } from "../helpers/scripted-llm.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

describe("runUnsandboxed", () => {
	it("runs in the workspace without stdin and without the agent's secrets", async () => {
		const workspace = await tempDir();
		process.env.SKILLSET_TEST_SECRET = "sk-do-not-leak";
		try {
			const result = await runUnsandboxed('pwd; echo "[$SKILLSET_TEST_SECRET]"; cat', { workspace });
			expect(result).toMatchObject({ exitCode: 0, timedOut: false, truncated: false });
			expect(result.stdout).toBe(`${workspace}\n[]\n`);
		} finally {
			delete process.env.SKILLSET_TEST_SECRET;
		}
	});

	it("kills the whole command at the timeout and caps the output", async () => {
		const workspace = await tempDir();
		const slow = await runUnsandboxed("sleep 5 & sleep 5; echo never", { workspace, timeoutMs: 200 });
		expect(slow).toMatchObject({ timedOut: true, stdout: "" });
		const loud = await runUnsandboxed("yes | head -c 100000", { workspace, maxOutputBytes: 1000 });
		expect(loud.stdout.length).toBe(1000);
		expect(loud.truncated).toBe(true);
	});

	it("stops when the turn is cancelled", async () => {
		const workspace = await tempDir();
		const controller = new AbortController();
		const started = Date.now();
		const running = runUnsandboxed("sleep 10", { workspace, signal: controller.signal });
		setTimeout(() => controller.abort(), 100);
		const result = await running;
		expect(result.signal).toBe("SIGKILL");
		expect(Date.now() - started).toBeLessThan(5000);
	});
});

describe("write_file", () => {
	let llm: ScriptedLlm;
	beforeAll(async () => {
		llm = await startScriptedLlm();
	});
	afterAll(() => llm.close());

	it("keeps the permissions of the file it replaces", async () => {
		const fixture = await workspaceFixture();
		await writeTree(fixture.workspace, { "run.sh": "echo old\n" });
		await chmod(join(fixture.workspace, "run.sh"), 0o755);
		const agent = await agentFor(llm.url, fixture, { yes: true });
		llm.script([{ toolCalls: [{ name: "write_file", arguments: { path: "run.sh", content: "echo new\n" } }] }, {}]);
		await agent.send("update the script");
		expect(toolResultsOf(llm.requests.at(-1))[0]).toMatch(/^Wrote 9 bytes/);
		expect(statSync(join(fixture.workspace, "run.sh")).mode & 0o777).toBe(0o755);
	});
});
