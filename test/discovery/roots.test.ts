import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { discover, PRESETS, resolveRoots } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let root: string;
let home: string;

beforeAll(async () => {
	root = await tempDir();
	home = join(root, "home");
	await mkdir(home, { recursive: true });
});

describe("resolveRoots", () => {
	it("walks from the cwd up to the repository root, nearest first, and no further", async () => {
		const repo = join(root, "outer", "repo");
		await mkdir(join(repo, ".git"), { recursive: true });
		await mkdir(join(repo, "packages", "app"), { recursive: true });
		const roots = await resolveRoots({ cwd: join(repo, "packages", "app"), home, conventions: [".agents/skills"] });
		const workspace = roots.filter((r) => r.scope === "workspace").map((r) => r.path);
		expect(workspace).toEqual([
			join(repo, "packages", "app", ".agents/skills"),
			join(repo, "packages", ".agents/skills"),
			join(repo, ".agents/skills"),
		]);
	});

	it("uses only the cwd outside a repository", async () => {
		const cwd = join(root, "loose", "deep");
		await mkdir(cwd, { recursive: true });
		const roots = await resolveRoots({ cwd, home, conventions: [".skills"] });
		expect(roots.filter((r) => r.scope === "workspace").map((r) => r.path)).toEqual([join(cwd, ".skills")]);
	});

	it("orders scopes workspace > user > admin > plugin > builtin with unique ranks, and keeps a folder once", async () => {
		const cwd = join(root, "loose");
		const roots = await resolveRoots({
			cwd,
			home,
			roots: ["extra", "extra"],
			adminRoots: ["/etc/skills"],
			pluginRoots: ["/plugins"],
			builtinRoots: ["/builtin"],
			conventions: [".agents/skills"],
		});
		expect(roots.map((r) => [r.scope, r.path, r.rank])).toEqual([
			["workspace", join(cwd, "extra"), 0],
			["workspace", join(cwd, ".agents/skills"), 1],
			["user", join(home, ".agents/skills"), 2],
			["admin", "/etc/skills", 3],
			["plugin", "/plugins", 4],
			["builtin", "/builtin", 5],
		]);
	});

	it("adds a preset's folders and only the given roots without defaults", async () => {
		const cwd = join(root, "loose");
		const codex = await resolveRoots({ cwd, home, defaultRoots: false, presets: ["codex"] });
		expect(codex.map((r) => r.path)).toEqual([
			join(cwd, ".agents/skills"),
			join(cwd, ".codex/skills"),
			join(home, ".agents/skills"),
			join(home, ".codex/skills"),
			"/etc/codex/skills",
		]);
		expect(codex.every((r) => r.preset === "codex")).toBe(true);
		const bare = await resolveRoots({ cwd, home, defaultRoots: false, roots: ["only"] });
		expect(bare.map((r) => r.path)).toEqual([join(cwd, "only")]);
	});

	it("puts each client's current folder first (what add --client writes), legacy folders still read", () => {
		const writes = Object.fromEntries(
			Object.entries(PRESETS).map(([name, preset]) => [name, [preset.workspace[0], preset.user[0]]]),
		);
		expect(writes).toEqual({
			claude: [".claude/skills", ".claude/skills"],
			codex: [".agents/skills", ".agents/skills"],
			opencode: [".opencode/skills", ".config/opencode/skills"],
			gemini: [".gemini/skills", ".gemini/skills"],
			copilot: [".github/skills", ".copilot/skills"],
			cline: [".cline/skills", ".cline/skills"],
			kilo: [".kilo/skills", ".kilo/skills"],
			pi: [".pi/skills", ".pi/agent/skills"],
			workbuddy: [".workbuddy/skills", ".workbuddy/skills"],
		});
		expect(PRESETS.codex.user).toContain(".codex/skills");
		expect(PRESETS.kilo.workspace).toContain(".kilocode/skills");
		expect(PRESETS.cline.workspace).toContain(".clinerules/skills");
		expect(PRESETS.opencode.workspace).toContain(".opencode/skill");
		expect(PRESETS.claude.admin).toContain("/Library/Application Support/ClaudeCode/.claude/skills");
	});

	it("marks workspace roots untrusted when the workspace is, and locks admin roots on request", async () => {
		const roots = await resolveRoots({ cwd: root, home, trustWorkspace: false, adminRoots: ["/a"], adminLocked: true });
		expect(roots.filter((r) => r.scope === "workspace").every((r) => !r.trusted)).toBe(true);
		expect(roots.filter((r) => r.scope === "user").every((r) => r.trusted)).toBe(true);
		expect(roots.find((r) => r.scope === "admin")?.locked).toBe(true);
	});
});

describe("discover across scopes", () => {
	it("finds skills in the workspace chain and the home folder, the nearest copy winning", async () => {
		const repo = join(root, "scoped");
		await mkdir(join(repo, ".git"), { recursive: true });
		await writeTree(repo, {
			".agents/skills/shared/SKILL.md": skillMd("shared", "From the repository root."),
			"app/.claude/skills/shared/SKILL.md": skillMd("shared", "From the app folder."),
			"app/.claude/skills/app-only/SKILL.md": skillMd("app-only"),
		});
		const user = join(root, "scoped-home");
		await writeTree(user, { ".agents/skills/personal/SKILL.md": skillMd("personal") });
		await writeTree(root, { ".agents/skills/outside/SKILL.md": skillMd("outside") });
		const { index, report } = await discover({ cwd: join(repo, "app"), home: user });
		expect(index.selected.map((s) => [s.name, s.scope])).toEqual([
			["app-only", "workspace"],
			["shared", "workspace"],
			["personal", "user"],
		]);
		expect(index.get("shared")?.description).toBe("From the app folder.");
		expect(index.get("shared@workspace.2")?.status).toBe("shadowed");
		expect(report.roots.some((r) => r.path.startsWith(join(root, ".agents")))).toBe(false);
	});
});
