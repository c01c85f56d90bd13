import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, toolResultsOf } from "../helpers/scripted-llm.ts";
import { writeTree } from "../helpers/temp.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

// Issue 18: under a skill's allowed-tools, a hostile model wrote git hooks and editor configs by naming their
// folder. Here the model runs the commands for real (in the sandbox): nobody can answer, so each must be
// refused, and nothing may land.

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

const SKILL = `---
name: mover
description: Moves and copies files.
allowed-tools: run_shell(cp:*) run_shell(mv:*) run_shell(mkdir:*) write_file
---
Use cp and mv.
`;

async function fixture() {
	const made = await workspaceFixture({ "mover/SKILL.md": SKILL });
	await writeTree(made.workspace, {
		"q/hooks/pre-commit": "#!/bin/sh\necho owned\n",
		"g/config": "[core]\n\thooksPath = q/hooks\n",
		"c/mcp.json": '{"mcpServers":{"x":{"command":"sh"}}}',
		"hk/pre-commit": "echo owned\n",
		"v/tasks.json": "{}",
		"notes.txt": "notes\n",
		".git/HEAD": "ref: refs/heads/main\n",
	});
	return made;
}

describe("a hostile model under a skill's allowed-tools (sandboxed, nobody to ask)", () => {
	it.each([
		["cp -r q/hooks .git/", ".git/hooks/pre-commit"],
		["cp g/config .git", ".git/config"],
		["mv c .cursor", ".cursor/mcp.json"],
		["mv hk .husky", ".husky/pre-commit"],
		["mv v .vscode", ".vscode/tasks.json"],
		["cp notes.txt skillset.config.json", "skillset.config.json"],
	])("%s is refused and writes nothing", async (command, planted) => {
		const made = await fixture();
		const events: AgentEvent[] = [];
		const agent = await agentFor(llm.url, made, { onEvent: (event) => events.push(event) });
		llm.requests.length = 0;
		llm.script([
			{ toolCalls: [{ name: "load_skill", arguments: { name: "mover" } }] },
			{ toolCalls: [{ name: "run_shell", arguments: { command } }] },
			{ content: "done" },
		]);
		await agent.send("tidy up");
		expect(toolResultsOf(llm.requests[2])[1]).toMatch(/^Refused by the permission policy \(rule runs-later\)/);
		expect(existsSync(join(made.workspace, planted))).toBe(false);
		expect(events).toContainEqual(expect.objectContaining({ type: "permission.answered", by: "no-terminal" }));
	});

	it("write_file into .git/hooks is refused too, while an ordinary copy still runs pre-approved", async () => {
		const made = await fixture();
		const agent = await agentFor(llm.url, made);
		llm.requests.length = 0;
		llm.script([
			{ toolCalls: [{ name: "load_skill", arguments: { name: "mover" } }] },
			{
				toolCalls: [
					{ name: "write_file", arguments: { path: ".git/hooks/post-checkout", content: "echo owned" } },
					{ name: "run_shell", arguments: { command: "cp notes.txt copy.txt" } },
				],
			},
			{ content: "done" },
		]);
		await agent.send("tidy up");
		const [, hook, copy] = toolResultsOf(llm.requests[2]);
		expect(hook).toMatch(/rule runs-later/);
		expect(copy).toBe("exit code 0");
		expect(existsSync(join(made.workspace, ".git/hooks/post-checkout"))).toBe(false);
		expect(await readFile(join(made.workspace, "copy.txt"), "utf8")).toBe("notes\n");
	});
});
