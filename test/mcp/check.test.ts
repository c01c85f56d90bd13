import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discover } from "../../src/index.ts";
import { checkServe, createSkillServer } from "../../src/mcp/index.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// `mcp --check` plans without the protocol; what it reports must be what a server given the same skills serves.
describe("checkServe", () => {
	it("reports exactly the served skills and the left-out ones a server would have", async () => {
		const root = await tempDir();
		await writeTree(root, {
			"skills/good/SKILL.md": skillMd("good"),
			"skills/other/SKILL.md": skillMd("other", "Another one."),
			"skills/Bad_Name/SKILL.md": skillMd("Bad_Name"),
			"skills/broken/SKILL.md": "---\nname: broken\ndescription: a: b\n---\nbody\n",
			"outside.md": "secret\n",
		});
		await writeTree(root, { "skills/linked/README.md": "x\n" });
		symlinkSync(join(root, "outside.md"), join(root, "skills/linked/SKILL.md"));
		const { index } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [join(root, "skills")] });
		const checked = await checkServe(index, {});
		const server = await createSkillServer({ index });
		try {
			expect(checked.served).toEqual([...server.served]);
			expect(checked.leftOut).toEqual([...server.leftOut]);
			expect(checked.served.map((skill) => skill.name)).toContain("good");
			expect(checked.leftOut.length).toBeGreaterThan(0);
		} finally {
			await server.close();
		}
	});

	it("fails as the server does when the instructions cannot fit the budget", async () => {
		const root = await writeTree(await tempDir(), { "skills/good/SKILL.md": skillMd("good") });
		const { index } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [join(root, "skills")] });
		await expect(createSkillServer({ index, budgetTokens: 5 })).rejects.toThrow(/does not fit in 5 tokens/);
		await expect(checkServe(index, { budgetTokens: 5 })).rejects.toThrow(/does not fit in 5 tokens/);
	});
});
