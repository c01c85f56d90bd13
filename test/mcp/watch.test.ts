// Issue 18: under a steady stream of file changes (a build writing into a skill, a sync tool), the watching server
// still rescans: a deleted skill is unlisted within the maximum wait. Before, each change restarted the quiet period
// and the deleted skill stayed listed for as long as the stream went on.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { httpClient, stdioClient } from "./mcp-helpers.ts";

describe("watch under a steady stream of changes", () => {
	it("unlists a deleted skill while changes keep arriving faster than the quiet period", async () => {
		const root = await writeTree(await tempDir(), {
			"stay/SKILL.md": skillMd("stay"),
			"stay/notes.md": "0\n",
			"gone/SKILL.md": skillMd("gone"),
		});
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root] };
		const server = await createSkillServer({ ...settings, watch: true, debounceMs: 150 });
		const serving = await serveHttp(server, { port: 0 });
		let writes = 0;
		const stream = setInterval(() => writeFileSync(join(root, "stay", "notes.md"), `${++writes}\n`), 30);
		try {
			const { client } = await httpClient(serving.url);
			const listed = async () => (await client.listResources()).resources.map((resource) => resource.uri).sort();
			expect(await listed()).toEqual(["skill://gone/SKILL.md", "skill://stay/SKILL.md"]);
			// The stream is running before the deletion, and never pauses: no quiet period ever comes. (A naive
			// debounce would wait forever; a count of writes would only measure how busy the machine is.)
			for (let waits = 0; waits < 100 && writes < 3; waits++) await new Promise((resolve) => setTimeout(resolve, 30));
			expect(writes).toBeGreaterThanOrEqual(3);
			rmSync(join(root, "gone"), { recursive: true });
			let now = await listed();
			for (let polls = 0; polls < 60 && now.length > 1; polls++) {
				await new Promise((resolve) => setTimeout(resolve, 250));
				now = await listed();
			}
			expect(now).toEqual(["skill://stay/SKILL.md"]);
		} finally {
			clearInterval(stream);
			await serving.close();
			await server.close();
		}
	}, 60_000);
});

describe("watch of a workspace with no skills folder yet", () => {
	it("serves the skills of a conventional folder created after the server started (built CLI, --watch)", async () => {
		const base = await tempDir();
		const workspace = join(base, "project");
		const home = join(base, "home");
		await writeTree(base, { "project/README.md": "A project.\n", "home/.keep": "" });
		const { client } = await stdioClient(workspace, [workspace, "--watch"], { HOME: home });
		const listed = async () => (await client.listResources()).resources.map((resource) => resource.uri).sort();
		expect(await listed()).toEqual([]);
		// Made in steps, as `mkdir -p` and an editor do: the folder, its parent's child, then the skill.
		await writeTree(workspace, { ".agents/skills/demo/SKILL.md": skillMd("demo") });
		let now = await listed();
		for (let polls = 0; polls < 60 && now.length === 0; polls++) {
			await new Promise((resolve) => setTimeout(resolve, 250));
			now = await listed();
		}
		expect(now).toEqual(["skill://demo/SKILL.md"]);
		// And later changes inside the new folder are seen too.
		await writeTree(workspace, { ".agents/skills/later/SKILL.md": skillMd("later") });
		for (let polls = 0; polls < 60 && now.length < 2; polls++) {
			await new Promise((resolve) => setTimeout(resolve, 250));
			now = await listed();
		}
		expect(now).toEqual(["skill://demo/SKILL.md", "skill://later/SKILL.md"]);
	}, 60_000);
});
