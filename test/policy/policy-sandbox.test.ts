import { existsSync } from "node:fs";
import { join } from "node:path";
import {
	createPolicy,
	createSession,
	detectSandbox,
	discover,
	estimateTokenizer,
	type PermissionCeiling,
	runSandboxed,
	type SkillSession,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

const availability = await detectSandbox();
let workspace: string;
let plain: SkillSession;
let offline: SkillSession;
let online: SkillSession;

const skill = (name: string, network: string) =>
	`---\nname: ${name}\ndescription: Does ${name}.\npermissions:\n  tools: [Bash]\n  network: ${network}\n---\nbody\n`;

beforeAll(async () => {
	const root = await tempDir();
	workspace = join(root, "ws");
	await writeTree(workspace, {
		".agents/skills/offline/SKILL.md": skill("offline", "false"),
		".agents/skills/online/SKILL.md": skill("online", "true"),
		".github/skills/.keep": "",
		"src/app.ts": "x\n",
	});
	const { index } = await discover({ cwd: workspace, home: root });
	const make = () => createSession(index, { tokenizer: estimateTokenizer });
	[plain, offline, online] = [make(), make(), make()];
	await offline.activate("offline");
	await online.activate("online");
});

describe("Policy.sandboxOptions", () => {
	it.each<[string, () => SkillSession, PermissionCeiling, boolean]>([
		["no active skill", () => plain, {}, true],
		["a skill declaring network: false", () => offline, {}, false],
		["a skill declaring network: true", () => online, {}, true],
		["a ceiling with network: false", () => online, { network: false }, false],
		["a ceiling with a host list", () => plain, { network: ["example.com"] }, false],
	])("%s → network %s", (_, session, ceiling, network) => {
		expect(createPolicy({ workspace, ceiling }).sandboxOptions(session()).network).toBe(network);
	});

	it("keeps skill folders, existing roots and the conventional roots read-only", () => {
		const { readOnly } = createPolicy({ workspace }).sandboxOptions(plain);
		expect(readOnly).toEqual(
			expect.arrayContaining([
				join(workspace, ".agents", "skills"),
				join(workspace, ".agents", "skills", "offline"),
				join(workspace, ".claude", "skills"),
				join(workspace, ".github", "skills"),
			]),
		);
		expect(readOnly).not.toContain(join(workspace, ".gemini", "skills"));
	});

	it.skipIf(!availability.available)("feeds runSandboxed: skill roots stay read-only at the OS level", async () => {
		const options = { ...createPolicy({ workspace }).sandboxOptions(offline), timeoutMs: 20_000 };
		for (const command of ["touch .agents/skills/offline/x", "mkdir -p .claude/skills/evil", "rm -rf .agents"]) {
			expect((await runSandboxed(command, options)).exitCode).not.toBe(0);
		}
		expect(existsSync(join(workspace, ".claude", "skills", "evil"))).toBe(false);
		expect((await runSandboxed("touch src/ok", options)).exitCode).toBe(0);
	});
});

describe("a skill root that holds the workspace itself", () => {
	it("protects its skill folders and new SKILL.md files, not the whole workspace", async () => {
		const ws = await tempDir();
		await writeTree(ws, { "tool/SKILL.md": skill("tool", "false"), "src/app.ts": "x\n" });
		const { index } = await discover({ cwd: ws, home: ws, defaultRoots: false, roots: [ws] });
		const session = createSession(index, { tokenizer: estimateTokenizer });
		const policy = createPolicy({ workspace: ws, sandbox: { available: true, kind: "bwrap", path: "bwrap" } });
		policy.grant(session, "Write", "always");
		const write = (file_path: string) => policy.authorize({ tool: "Write", args: { file_path } }, { session });
		expect(write("src/app.ts").decision).toBe("allow");
		expect(write("tool/SKILL.md").rule).toBe("skill-dir-readonly");
		expect(write("new-skill/SKILL.md").rule).toBe("skill-dir-readonly");
		expect(write("src/deep/skill.md").rule).toBe("skill-dir-readonly");
		const { readOnly } = policy.sandboxOptions(session);
		expect(readOnly).toContain(join(ws, "tool"));
		expect(readOnly).not.toContain(ws);
	});
});
