import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { createPolicy, createSession, discover, estimateTokenizer, type SkillSession } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

// Issue 18: a skill's allowed-tools pre-approved copies and moves that wrote a git hook or an editor's config by
// naming its folder (`cp -r q/hooks .git/`, `mv c .cursor`), and writes to the files that choose what loads next
// time (skillset.config.json, skill roots). A write that creates or replaces any of these asks the user.

const sandbox = { available: true, kind: "bwrap", path: "/usr/bin/bwrap" } as const;
const ALLOWED = ["cp", "mv", "mkdir", "install", "ln", "rsync", "tee", "echo", "touch", "git", "rm", "printf"].map(
	(program) => `Bash(${program}:*)`,
);
let workspace: string;
let session: SkillSession;

beforeAll(async () => {
	workspace = await tempDir();
	await writeTree(workspace, {
		".agents/skills/shipper/SKILL.md": `---\nname: shipper\ndescription: Ships.\nallowed-tools: ${ALLOWED.join(" ")} Write Edit\n---\nbody\n`,
		"q/hooks/pre-commit": "#!/bin/sh\necho owned\n",
		"g/config": "[core]\n\thooksPath = q/hooks\n",
		"c/mcp.json": "{}",
		"hk/pre-commit": "echo owned\n",
		"v/tasks.json": "{}",
		"stuff/.husky/pre-commit": "echo owned\n",
		"stuff/readme.md": "x\n",
		"nested/a/b/.vscode/settings.json": "{}",
		"staged/.vscode/settings.json": "{}",
		"plain/docs/readme.md": "x\n",
		"notes.txt": "x\n",
		"sub/.keep": "",
		"conf/team.json": "{}",
		"src/.keep": "",
	});
	await mkdir(join(workspace, ".git"), { recursive: true });
	await symlink(join(workspace, "stuff"), join(workspace, "stuff-link"));
	const { index } = await discover({ cwd: workspace, home: workspace });
	session = createSession(index, { tokenizer: estimateTokenizer });
	expect((await session.activate("shipper")).ok).toBe(true);
});

const policy = () => createPolicy({ workspace, sandbox });
const bash = (command: string) => policy().authorize({ tool: "Bash", args: { command } }, { session });
const write = (path: string) => policy().authorize({ tool: "Write", args: { file_path: path } }, { session });

describe("a skill's allowed-tools never pre-approve creating or replacing what runs later", () => {
	it.each([
		// The examples: the protected folder is the target.
		"cp -r q/hooks .git/",
		"cp g/config .git",
		"mv c .cursor",
		"mv hk .husky",
		"mv v .vscode",
		// Creating or replacing the folder, or the git-dir pointer, by any writer.
		"mkdir .git/hooks",
		"mkdir -p .vscode",
		"mkdir -p src/.github/workflows",
		"install -d .git/hooks",
		"install -d build .git/hooks",
		"install -D hk/pre-commit .git/hooks/pre-commit",
		"install hk/pre-commit .husky",
		"ln -s ../q/hooks .git/hooks",
		"ln -sf q .cursor",
		"rsync -a q/hooks/ .git/hooks/",
		"rsync -a c/ .cursor",
		"echo 'gitdir: /tmp/evil' > .git",
		"printf x | tee .git/config",
		"echo x >> .git/info/attributes",
		"touch .envrc",
		"rm -rf .husky",
		"mv .git/hooks old-hooks",
		// The source's name lands inside the target folder.
		"mv staged/.vscode sub",
		"cp -r staged/.vscode sub/",
		"cp -r stuff/.husky src",
		// The source folder holds a protected folder, copied into place whole.
		"cp -r stuff/. sub",
		"cp -a stuff/ src/",
		"rsync -a stuff/ sub/",
		"cp -R stuff-link/. sub",
		"cp -r nested/a sub",
		// Case does not matter (case-insensitive file systems), nor what Windows drops from a name.
		"mv v .VSCode",
		"mv v .vscode.",
		// Copies that keep the source's path under the target.
		"cp --parents q/hooks/pre-commit .git",
		"cp --parents nested/a/b/.vscode/settings.json sub",
		"rsync -aR nested/a/b/.vscode/settings.json sub/",
		// Making a hook executable changes what runs.
		"chmod +x .git/hooks/pre-commit",
		// Files that choose what loads next time.
		"echo '{}' > skillset.config.json",
		"cp notes.txt skills.lock.json",
		"mkdir -p sub/.agents/skills/evil",
		"mv notes.txt sub/.claude/skills",
		"echo x > AGENTS.md",
	])("%s → ask", (command) => {
		expect(bash(command)).toMatchObject({ decision: "ask", rule: "runs-later" });
	});

	it.each([
		".git/hooks/pre-commit",
		".git",
		".git/config",
		".husky/pre-push",
		".vscode/launch.json",
		".vscode/extensions.json",
		"my.code-workspace",
		".cursor/rules/x.mdc",
		".github/actions/setup/action.yml",
		".claude/commands/x.md",
		".codex/config.toml",
		".envrc",
		".npmrc",
		".yarnrc.yml",
		".pre-commit-config.yaml",
		"skillset.config.json",
		"sub/skillset.config.json",
		"skills.lock.json",
		"sub/.agents/skills/evil/SKILL.md",
		"AGENTS.md",
		"CLAUDE.md",
		".devcontainer/devcontainer.json",
		".git::$INDEX_ALLOCATION/hooks/pre-commit",
		".GIT./hooks/pre-commit",
	])("Write %s → ask", (path) => {
		expect(write(path)).toMatchObject({ decision: "ask", rule: "runs-later" });
	});

	it.each([
		"git config core.hooksPath q/hooks",
		"git -c core.hooksPath=q/hooks commit -m x",
		"sed -i s/a/b/ .git/config",
		"tar -xf hooks.tar -C .git",
		"printf x > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
	])("never allowed without the user: %s", (command) => {
		expect(bash(command).decision).not.toBe("allow");
	});

	it.each([
		"cp notes.txt copy.txt",
		"mkdir -p build/out",
		"cp -r plain/docs sub",
		"mv notes.txt src/",
		"touch build.log",
		"git commit -m 'a message'",
		"git add notes.txt",
	])("ordinary writes stay pre-approved: %s → allow", (command) => {
		expect(bash(command)).toMatchObject({ decision: "allow", rule: "allowed-tools" });
	});

	it("says which path runs later", () => {
		expect(bash("cp -r q/hooks .git/").reason).toContain(".git");
		expect(bash("mv staged/.vscode sub").reason).toContain("sub/.vscode");
	});

	it("a user's grant still allows it (the question is the user's)", () => {
		const granted = policy();
		granted.grant(session, "Bash(mv v .vscode)", "always");
		expect(granted.authorize({ tool: "Bash", args: { command: "mv v .vscode" } }, { session })).toMatchObject({
			decision: "allow",
			rule: "grant-always",
		});
	});
});

describe("the host's own files that decide what loads next time", () => {
	it.each(["cp notes.txt conf/team.json", "mv conf elsewhere", "rm -rf conf", "tee conf/team.json"])(
		"%s → ask when conf/team.json is the config in use",
		(command) => {
			const named = createPolicy({ workspace, sandbox, runsLater: ["conf/team.json"] });
			expect(named.authorize({ tool: "Bash", args: { command } }, { session })).toMatchObject({
				decision: "ask",
				rule: "runs-later",
			});
			expect(bash(command).decision).not.toBe("ask");
		},
	);
});
