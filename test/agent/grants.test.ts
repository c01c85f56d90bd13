import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { PermissionRequest, SavedConversation } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../helpers/scripted-llm.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

// Issue 18: an "always" answer for a file named `**` approved every later write. A grant built from a call the
// model chose covers exactly that call: the same path or the same command line, never a pattern.

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

type Step = Parameters<ScriptedLlm["script"]>[0][number];
const writeCall = (path: string): Step => ({ toolCalls: [{ name: "write_file", arguments: { path, content: "x" } }] });
const shellCall = (command: string): Step => ({ toolCalls: [{ name: "run_shell", arguments: { command } }] });

/** Answers "always" to the first question and "deny" to every later one, recording them. */
async function session(steps: Step[], prepare?: (workspace: string) => Promise<void>) {
	const made = await workspaceFixture();
	await prepare?.(made.workspace);
	const asked: PermissionRequest[] = [];
	const agent = await agentFor(llm.url, made, {
		confirm: async (request) => {
			asked.push(request);
			return asked.length === 1 ? "always" : "deny";
		},
	});
	llm.requests.length = 0;
	llm.script([...steps, { content: "done" }]);
	await agent.send("go");
	return { asked, workspace: made.workspace, agent };
}

describe("an 'always' answer covers exactly the call it was given for", () => {
	it.each([
		["**", "src/app.ts"],
		["*", "notes.txt"],
		["src/*", "src/app.ts"],
		["?", "a"],
		["[ab]", "a"],
		["\\*", "other.txt"],
	])("a file named %j does not approve %j", async (bait, target) => {
		const { asked, workspace } = await session([writeCall(bait), writeCall(target)]);
		expect(asked.map((r) => r.args.path)).toEqual([bait, target]);
		expect(existsSync(join(workspace, target))).toBe(false);
	});

	it("a file's grant does not cover a folder of the same name made later", async () => {
		const { asked, workspace } = await session([writeCall("docs"), writeCall("docs/inner.txt")]);
		expect(asked).toHaveLength(2);
		expect(existsSync(join(workspace, "docs/inner.txt"))).toBe(false);
	});

	it.each([
		["*", "touch owned.txt"],
		["**", "touch owned.txt"],
		["touch :*", "touch owned.txt"],
		["touch:*", "touch owned.txt"],
		["touch a.txt", "touch a.txt owned.txt"],
	])("a command %j does not approve %j", async (bait, command) => {
		const { asked, workspace } = await session([shellCall(bait), shellCall(command)], async (dir) => {
			await mkdir(join(dir, "sub"), { recursive: true });
		});
		expect(asked.map((r) => r.args.command)).toEqual([bait, command]);
		expect(existsSync(join(workspace, "owned.txt"))).toBe(false);
	});

	it("the same call is allowed again without a question; the grant shows its glob characters escaped", async () => {
		const { asked, workspace } = await session([writeCall("**"), writeCall("**")]);
		expect(asked).toHaveLength(1);
		expect(asked[0]?.pattern).toBe("write_file(\\*\\*)");
		expect(existsSync(join(workspace, "**"))).toBe(true);
	});

	it("a saved conversation whose grants were edited grants only the exact calls it names", async () => {
		const made = await workspaceFixture();
		const saved: SavedConversation = {
			version: 1,
			turn: 0,
			entries: [],
			active: [],
			grants: ["write_file", "write_file(**)", "run_shell(*)", "run_shell(touch:*)", "*"],
		};
		const asked: PermissionRequest[] = [];
		const agent = await agentFor(llm.url, made, {
			resume: saved,
			confirm: async (request) => {
				asked.push(request);
				return "deny";
			},
		});
		llm.requests.length = 0;
		llm.script([writeCall("src/app.ts"), shellCall("touch owned.txt"), { content: "done" }]);
		await agent.send("go");
		expect(asked.map((r) => r.tool)).toEqual(["write_file", "run_shell"]);
		expect(existsSync(join(made.workspace, "owned.txt"))).toBe(false);
	});
});
