import { join } from "node:path";
import { createPolicy, createSession, discover, estimateTokenizer } from "skillset";
import { describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

const sandbox = { available: true, kind: "bwrap", path: "/usr/bin/bwrap" } as const;
const skill = (name: string, extra = "") => `---\nname: ${name}\ndescription: Does ${name}.\n${extra}---\nbody\n`;

describe("the active set is qualified", () => {
	it.each<[string, string, "allow" | "ask"]>([
		["dup@user", "git log", "ask"],
		["dup", "git log", "allow"],
		["dup@workspace", "git log", "allow"],
	])("activating %s, then %j → %s", async (name, command, decision) => {
		const root = await tempDir();
		const workspace = join(root, "ws");
		await writeTree(workspace, { ".agents/skills/dup/SKILL.md": skill("dup", "allowed-tools: Bash(git log:*)\n") });
		await writeTree(join(root, ".agents", "skills"), { "dup/SKILL.md": skill("dup") });
		const { index } = await discover({ cwd: workspace, home: root });
		expect(index.get("dup@user")?.status).toBe("shadowed");
		const session = createSession(index, { tokenizer: estimateTokenizer });
		expect((await session.activate(name)).ok).toBe(true);
		const policy = createPolicy({ workspace, sandbox });
		expect(policy.authorize({ tool: "Bash", args: { command } }, { session }).decision).toBe(decision);
	});
});
