// What a skill's own files can do to its listing: every file a listing names must be readable.

import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { errorCode, httpClient, httpServer } from "./mcp-helpers.ts";

describe("skipped names in a served skill", () => {
	it("leaves a `.git` or `node_modules` file (a git submodule's gitfile) out of the listing, as reads refuse it", async () => {
		const root = await writeTree(await tempDir(), {
			"demo/SKILL.md": skillMd("demo"),
			"demo/.git": "gitdir: ../../.git/modules/demo\n",
			"demo/references/node_modules": "not a folder\n",
			"demo/references/guide.md": "# Guide\n",
		});
		const { url } = await httpServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const { client, skills } = await httpClient(url);
		const entry = (await skills.get("skill://demo/SKILL.md")) as unknown as { skill: { resources: { uri: string }[] } };
		const listed = entry.skill.resources.map((resource) => resource.uri);
		expect(listed).toEqual(["skill://demo/SKILL.md", "skill://demo/references/guide.md"]);
		for (const uri of listed) expect((await client.readResource({ uri })).contents).toHaveLength(1);
		const children = (await skills.readDirectory("skill://demo")).resources.map((child) => child.uri);
		expect(children).not.toContain("skill://demo/.git");
		expect(await errorCode(client.readResource({ uri: "skill://demo/.git" }))).toBe(-32602);
	});
});
