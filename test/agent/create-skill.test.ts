import { existsSync } from "node:fs";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { AgentOptions, PermissionRequest } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, toolResultsOf } from "../helpers/scripted-llm.ts";
import { writeTree } from "../helpers/temp.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

// Issue 18: create_skill was a "safe" tool. Under `--allow read_file` it wrote into ~/.agents/skills, outside the
// workspace. Creating a skill is a write that decides what loads next time: it obeys --allow and --deny, asks
// unless the user approves, and writes only into the workspace unless the user chose another place.

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

const SKILL = {
	name: "persist",
	description: "Keeps notes between sessions. Use when asked to remember.",
	body: "Write notes to notes.md.",
};

async function attempt(
	options: Partial<AgentOptions>,
	prepare?: (made: { workspace: string; home: string }) => Promise<void>,
) {
	const made = await workspaceFixture();
	await writeTree(made.workspace, {
		".claude/skills/granter/SKILL.md":
			"---\nname: granter\ndescription: Grants itself create_skill.\nallowed-tools: create_skill\n---\nbody\n",
	});
	await prepare?.(made);
	const asked: PermissionRequest[] = [];
	const agent = await agentFor(llm.url, made, options);
	llm.requests.length = 0;
	llm.script([
		{ toolCalls: [{ name: "load_skill", arguments: { name: "granter" } }] },
		{ toolCalls: [{ name: "create_skill", arguments: SKILL }] },
		{ content: "done" },
	]);
	await agent.send("remember this");
	const inHome = existsSync(join(made.home, ".agents/skills/persist"));
	const inWorkspace = existsSync(join(made.workspace, ".agents/skills/persist"));
	return { result: toolResultsOf(llm.requests[2])[1] ?? "", inHome, inWorkspace, asked, made };
}

describe("create_skill against a hostile model", () => {
	it("obeys --allow: not among the allowed tools, nothing is written anywhere", async () => {
		const run = await attempt({ ceiling: { tools: ["read_file", "load_skill"] }, yes: true });
		expect(run.result).toMatch(/^Refused by the permission policy \(rule ceiling\)/);
		expect([run.inHome, run.inWorkspace]).toEqual([false, false]);
	});

	it("obeys --deny, even with --yes", async () => {
		const run = await attempt({ deny: ["create_skill"], yes: true });
		expect(run.result).toMatch(/^Refused by the permission policy \(rule ceiling-deny\)/);
		expect([run.inHome, run.inWorkspace]).toEqual([false, false]);
	});

	it("asks even when an active skill's allowed-tools names it; nobody to ask means no", async () => {
		const run = await attempt({});
		expect(run.result).toMatch(/^Refused by the permission policy \(rule runs-later\)/);
		expect([run.inHome, run.inWorkspace]).toEqual([false, false]);
	});

	it("asks the user, and once approved writes into the workspace, not the home folder", async () => {
		const asked: PermissionRequest[] = [];
		const run = await attempt({
			confirm: async (request) => {
				asked.push(request);
				return "once";
			},
		});
		expect(asked.map((request) => [request.tool, request.rule, request.grantable])).toEqual([
			["create_skill", "runs-later", false],
		]);
		expect(run.result).toMatch(/^Created the skill persist in /);
		expect([run.inHome, run.inWorkspace]).toEqual([false, true]);
	});

	it("writes into the home folder only when the user chose it", async () => {
		const run = await attempt({ saveSkills: "user", yes: true });
		expect([run.inHome, run.inWorkspace]).toEqual([true, false]);
	});

	it("refuses when the workspace's skills folder leads outside it through a planted link", async () => {
		const run = await attempt({ yes: true }, async (made) => {
			await mkdir(join(made.home, "elsewhere"), { recursive: true });
			await symlink(join(made.home, "elsewhere"), join(made.workspace, ".agents"));
		});
		expect(run.result).toMatch(/^Not created \(outside-workspace\)/);
		expect(existsSync(join(run.made.home, "elsewhere/skills/persist"))).toBe(false);
	});
});
