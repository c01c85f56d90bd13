import { mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { PermissionRequest } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, toolResultsOf } from "../helpers/scripted-llm.ts";
import { writeTree } from "../helpers/temp.ts";
import { agentFor, defaultSkills, workspaceFixture } from "./fixture.ts";

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

describe("file tools resolve paths the way the policy checked them", () => {
	it("a `..` after a link leads where the kernel goes, not out of the workspace or into a skill", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		await writeTree(fixture.repo, { "secret.txt": "outside the workspace\n" });
		await mkdir(join(fixture.workspace, "deep/a/b"), { recursive: true });
		// A link to a deeper folder of the workspace: `L/..` is `deep/a` for the kernel, the workspace for path.resolve.
		await symlink(join(fixture.workspace, "deep/a/b"), join(fixture.workspace, "L"));
		const skillFile = join(fixture.workspace, ".agents/skills/deploy/SKILL.md");
		const skillText = await readFile(skillFile, "utf8");
		const agent = await agentFor(llm.url, fixture, { yes: true });
		llm.requests.length = 0;
		llm.script([
			{ toolCalls: [{ name: "read_file", arguments: { path: "L/../../secret.txt" } }] },
			{ toolCalls: [{ name: "write_file", arguments: { path: "L/../../secret.txt", content: "owned" } }] },
			{
				toolCalls: [
					{ name: "write_file", arguments: { path: "L/../.agents/skills/deploy/SKILL.md", content: "owned" } },
				],
			},
			{ content: "done" },
		]);
		await agent.send("go");
		const results = toolResultsOf(llm.requests[3]);
		expect(results[0]).not.toContain("outside the workspace");
		expect(results[0]).toMatch(/ENOENT/);
		expect(await readFile(join(fixture.repo, "secret.txt"), "utf8")).toBe("outside the workspace\n");
		expect(await readFile(skillFile, "utf8")).toBe(skillText);
		// The writes went where the policy said they would.
		expect(await readFile(join(fixture.workspace, "deep/secret.txt"), "utf8")).toBe("owned");
		expect(await readFile(join(fixture.workspace, "deep/a/.agents/skills/deploy/SKILL.md"), "utf8")).toBe("owned");
	});
});

describe("the host's deny patterns", () => {
	it("cover a path reached through a link, as the tool will reach it", async () => {
		const fixture = await workspaceFixture();
		await writeTree(fixture.workspace, { "secrets/key.txt": "hunter2\n" });
		await symlink(join(fixture.workspace, "secrets"), join(fixture.workspace, "s"));
		const agent = await agentFor(llm.url, fixture, { yes: true, deny: ["read_file(secrets/**)"] });
		llm.requests.length = 0;
		llm.script([
			{ toolCalls: [{ name: "read_file", arguments: { path: "s/key.txt" } }] },
			{ toolCalls: [{ name: "read_file", arguments: { path: "secrets/key.txt" } }] },
			{ content: "done" },
		]);
		await agent.send("go");
		const results = toolResultsOf(llm.requests[2]);
		expect(results[0]).toMatch(/rule ceiling-deny/);
		expect(results[1]).toMatch(/rule ceiling-deny/);
		expect(results.join("\n")).not.toContain("hunter2");
	});
});

describe("the question the user is asked", () => {
	it("names the file the call will write, and an always-grant covers that file", async () => {
		const fixture = await workspaceFixture();
		await mkdir(join(fixture.workspace, "deep/a/b"), { recursive: true });
		await symlink(join(fixture.workspace, "deep/a/b"), join(fixture.workspace, "L"));
		const asked: PermissionRequest[] = [];
		const agent = await agentFor(llm.url, fixture, {
			confirm: async (request) => {
				asked.push(request);
				return "always";
			},
		});
		const write = (path: string) => ({ toolCalls: [{ name: "write_file", arguments: { path, content: "x" } }] });
		llm.requests.length = 0;
		llm.script([write("L/../notes.txt"), write("deep/a/notes.txt"), { content: "done" }]);
		await agent.send("go");
		expect(asked.map((request) => request.pattern)).toEqual(["write_file(deep/a/notes.txt)"]);
		expect(await readFile(join(fixture.workspace, "deep/a/notes.txt"), "utf8")).toBe("x");
	});
});
