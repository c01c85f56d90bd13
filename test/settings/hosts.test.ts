import { existsSync } from "node:fs";
import { join } from "node:path";
import { resolveSettings, SettingsError } from "skillset";
import { createAgent, createOpenAIClient } from "skillset/agent";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, toolResultsOf } from "../helpers/scripted-llm.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 19: a library host resolves settings as the CLI does and hands them to createAgent and createSkillServer.

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

/** A workspace whose config adds a skill root and denies a tool, with a private home. */
async function hostWorkspace(config: object) {
	const root = await tempDir();
	const workspace = join(root, "app");
	await writeTree(root, {
		"home/.keep": "",
		"app/skillset.config.json": JSON.stringify(config),
		"app/team-skills/house-style/SKILL.md": skillMd("house-style", "Apply the house style to every document."),
	});
	return { workspace, env: { HOME: join(root, "home") } };
}

const model = () => createOpenAIClient({ model: "scripted", baseURL: llm.url, apiKey: "test", maxRetries: 0 });

describe("createAgent({ settings })", () => {
	it.each([
		["without a deny rule, the write lands", [], true],
		["with the config's deny rule, it is refused", ["write_file"], false],
	])("scans the settings' roots; %s", async (_, deny, written) => {
		const { workspace, env } = await hostWorkspace({ roots: ["team-skills"], permissions: { deny } });
		const settings = await resolveSettings({ cwd: workspace, env });
		const agent = await createAgent({ model: model(), settings, yes: true });
		try {
			expect(agent.skills().map((skill) => skill.name)).toContain("house-style");
			llm.requests.length = 0;
			llm.script([
				{ toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "hi\n" } }] },
				{ content: "done" },
			]);
			await agent.send("write the file");
			expect(existsSync(join(workspace, "out.txt"))).toBe(written);
			if (!written) expect(toolResultsOf(llm.requests[1])[0]).toMatch(/denied|refused|not allowed/i);
		} finally {
			await agent.close();
		}
	});

	it("refuses settings that name remote origins it was given no providers for", async () => {
		const { workspace, env } = await hostWorkspace({ indexes: { team: "https://skills.example/" } });
		const settings = await resolveSettings({ cwd: workspace, env });
		const error = await createAgent({ model: model(), settings }).catch((thrown: unknown) => thrown);
		expect(error).toBeInstanceOf(SettingsError);
		expect(error).toMatchObject({ code: "settings.incomplete", setting: "indexes" });
	});
});

describe("createSkillServer({ settings }) and serveHttp", () => {
	it("serves the skills of the settings' roots", async () => {
		const { workspace, env } = await hostWorkspace({ roots: ["team-skills"] });
		const settings = await resolveSettings({ cwd: workspace, env });
		const server = await createSkillServer({ settings, defaultRoots: false });
		const serving = await serveHttp(server, { port: 0 });
		try {
			expect(server.served.map((skill) => skill.name)).toEqual(["house-style"]);
			expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
		} finally {
			await serving.close();
			await server.close();
		}
	});

	it("refuses settings that name remote origins it was given no providers for", async () => {
		const { workspace, env } = await hostWorkspace({ indexes: { team: "https://skills.example/" } });
		const settings = await resolveSettings({ cwd: workspace, env });
		await expect(createSkillServer({ settings })).rejects.toMatchObject({ code: "settings.incomplete" });
	});
});
