import { existsSync } from "node:fs";
import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { detectSandbox } from "skillset";
import { type AgentEvent, type PermissionRequest, runUnsandboxed } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, systemOf, toolResultsOf } from "../helpers/scripted-llm.ts";
import { skillMd, writeTree } from "../helpers/temp.ts";
import { agentFor, defaultSkills, workspaceFixture } from "./fixture.ts";

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

function fresh(steps: Parameters<ScriptedLlm["script"]>[0]) {
	llm.requests.length = 0;
	llm.script(steps);
}

const skillFile = ".agents/skills/deploy/SKILL.md";

describe("the permission gate", () => {
	it.each([
		["write_file", { path: skillFile, content: "owned" }],
		["edit_file", { path: skillFile, old_string: "deploy", new_string: "owned" }],
		["run_shell", { command: `echo owned > ${skillFile}` }],
		["run_shell", { command: `echo owned | tee ${skillFile}` }],
		["write_file", { path: "linked/SKILL.md", content: "owned" }],
		["write_file", { path: "app-skills/../.agents/skills/deploy/SKILL.md", content: "owned" }],
	])("denies a write into a skill folder without asking, even with --yes: %s %j", async (tool, args) => {
		const fixture = await workspaceFixture(defaultSkills());
		await symlink(join(fixture.workspace, ".agents/skills/deploy"), join(fixture.workspace, "linked"));
		const asked: PermissionRequest[] = [];
		const events: AgentEvent[] = [];
		const agent = await agentFor(llm.url, fixture, {
			yes: true,
			confirm: async (request) => {
				asked.push(request);
				return "always";
			},
			onEvent: (event) => events.push(event),
		});
		fresh([{ toolCalls: [{ name: tool, arguments: args }] }, { content: "ok" }]);
		const result = await agent.send("change the deploy skill");
		expect(result.status).toBe("refused");
		expect(asked).toEqual([]);
		expect(toolResultsOf(llm.requests[1])[0]).toMatch(/^Refused by the permission policy \(rule skill-dir-readonly\)/);
		expect(await readFile(join(fixture.workspace, skillFile), "utf8")).not.toContain("owned");
		expect(events).toContainEqual(
			expect.objectContaining({ type: "permission.decision", tool, decision: "deny", rule: "skill-dir-readonly" }),
		);
	});

	it("denies sed -i into a skill folder without asking (the file it edits is a known write)", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const asked: PermissionRequest[] = [];
		const agent = await agentFor(llm.url, fixture, {
			confirm: async (request) => {
				asked.push(request);
				return "once";
			},
		});
		const command = `sed -i s/deploy/owned/ ${skillFile}`;
		fresh([{ toolCalls: [{ name: "run_shell", arguments: { command } }] }, { content: "ok" }]);
		await agent.send("edit the skill");
		expect(asked).toEqual([]);
		expect(toolResultsOf(llm.requests[1])[0]).toMatch(/^Refused by the permission policy \(rule skill-dir-readonly\)/);
		expect(await readFile(join(fixture.workspace, skillFile), "utf8")).not.toContain("owned");
	});

	it("keeps skill folders read-only at the OS level when the shell hides the write from the policy", async () => {
		expect((await detectSandbox()).available).toBe(true);
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture, { yes: true });
		expect(agent.sandboxed).toBe(true);
		const command = `sh -c 'echo owned > .agents/skills/deploy/evil.txt'; echo wrote-workspace > ok.txt`;
		fresh([{ toolCalls: [{ name: "run_shell", arguments: { command } }] }, { content: "ok" }]);
		await agent.send("try it");
		expect(toolResultsOf(llm.requests[1])[0]).toMatch(/Read-only file system/);
		expect(existsSync(join(fixture.workspace, ".agents/skills/deploy/evil.txt"))).toBe(false);
		expect(await readFile(join(fixture.workspace, "ok.txt"), "utf8")).toBe("wrote-workspace\n");
	});

	it("allows a read inside an active skill outside the workspace, and denies it before activation", async () => {
		const fixture = await workspaceFixture();
		await writeTree(fixture.home, {
			".agents/skills/outside/SKILL.md": skillMd("outside", "A skill in the user's folder."),
			".agents/skills/outside/references/notes.md": "outside notes\n",
		});
		const notes = join(fixture.home, ".agents/skills/outside/references/notes.md");
		const agent = await agentFor(llm.url, fixture);
		fresh([
			{ toolCalls: [{ name: "read_file", arguments: { path: notes } }] },
			{ toolCalls: [{ name: "load_skill", arguments: { name: "outside" } }] },
			{ toolCalls: [{ name: "read_file", arguments: { path: notes } }] },
			{ content: "read" },
		]);
		await agent.send("read the notes");
		const results = toolResultsOf(llm.requests[3]);
		expect(results[0]).toMatch(/rule outside-workspace/);
		expect(results[2]).toBe("outside notes\n");
	});

	it("denies an ask without a terminal and says so in the turn's status", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const events: AgentEvent[] = [];
		const agent = await agentFor(llm.url, fixture, { onEvent: (event) => events.push(event) });
		fresh([{ toolCalls: [{ name: "write_file", arguments: { path: "new.txt", content: "x" } }] }, { content: "ok" }]);
		const result = await agent.send("write it");
		expect(result.status).toBe("refused");
		expect(existsSync(join(fixture.workspace, "new.txt"))).toBe(false);
		expect(toolResultsOf(llm.requests[1])[0]).toMatch(/rule needs-approval/);
		expect(events).toContainEqual(
			expect.objectContaining({ type: "permission.answered", tool: "write_file", answer: "deny", by: "no-terminal" }),
		);
	});

	it("asks with the exact call and rule; once asks again, always does not, deny refuses", async () => {
		const fixture = await workspaceFixture();
		const answers: ("once" | "always" | "deny")[] = ["once", "always", "deny"];
		const asked: PermissionRequest[] = [];
		const agent = await agentFor(llm.url, fixture, {
			confirm: async (request) => {
				asked.push(request);
				return answers.shift() ?? "deny";
			},
		});
		const write = (path: string) => ({ toolCalls: [{ name: "write_file", arguments: { path, content: path } }] });
		fresh([write("a.txt"), write("a.txt"), write("a.txt"), write("b.txt"), { content: "ok" }]);
		await agent.send("write files");
		expect(asked.map((r) => [r.tool, r.rule, r.pattern])).toEqual([
			["write_file", "needs-approval", "write_file(a.txt)"],
			["write_file", "needs-approval", "write_file(a.txt)"],
			["write_file", "needs-approval", "write_file(b.txt)"],
		]);
		expect(asked[0]).toMatchObject({ args: { path: "a.txt", content: "a.txt" }, grantable: true });
		expect(existsSync(join(fixture.workspace, "a.txt"))).toBe(true);
		expect(existsSync(join(fixture.workspace, "b.txt"))).toBe(false);
	});

	it("says when there is no sandbox and asks about every shell command", async () => {
		const fixture = await workspaceFixture();
		const asked: PermissionRequest[] = [];
		const agent = await agentFor(llm.url, fixture, {
			shell: runUnsandboxed,
			confirm: async (request) => {
				asked.push(request);
				return "always";
			},
		});
		expect(agent.sandboxed).toBe(false);
		expect(agent.sandboxProblem).toBe("the host's shell executor is not a sandbox");
		const echo = { toolCalls: [{ name: "run_shell", arguments: { command: "echo hi" } }] };
		fresh([echo, echo, { content: "ok" }]);
		await agent.send("say hi twice");
		// "always" cannot apply where every command is asked: it counts as once.
		expect(asked.map((r) => [r.rule, r.grantable])).toEqual([
			["no-sandbox", false],
			["no-sandbox", false],
		]);
		expect(toolResultsOf(llm.requests[2])).toEqual(["exit code 0\nstdout:\nhi\n", "exit code 0\nstdout:\nhi\n"]);
		expect(systemOf(llm.requests[0])).toContain("Shell commands run without the OS sandbox here");
	});

	it("applies the host ceiling before asking", async () => {
		const fixture = await workspaceFixture();
		const asked: PermissionRequest[] = [];
		const agent = await agentFor(llm.url, fixture, {
			ceiling: { tools: ["read_file", "list_dir"] },
			confirm: async (request) => {
				asked.push(request);
				return "once";
			},
		});
		fresh([{ toolCalls: [{ name: "run_shell", arguments: { command: "echo hi" } }] }, { content: "ok" }]);
		await agent.send("run it");
		expect(toolResultsOf(llm.requests[1])[0]).toMatch(/rule ceiling\)/);
		expect(asked).toEqual([]);
	});
});
