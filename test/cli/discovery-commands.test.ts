import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let workspace: string;
let home: string;
const env = () => ({ HOME: home });

beforeAll(async () => {
	const root = await tempDir();
	workspace = join(root, "project");
	home = join(root, "home");
	await writeTree(workspace, {
		".git/HEAD": "ref: refs/heads/main\n",
		".agents/skills/deploy/SKILL.md": skillMd("deploy", "Deploys the app to staging. Use when asked to ship."),
		".agents/skills/lint/SKILL.md": skillMd("lint", "Runs the linters."),
		".claude/skills/lint/SKILL.md": skillMd("lint", "An older lint skill."),
		".claude/skills/broken/SKILL.md": "---\nname: broken\n---\nNo description.\n",
		".claude/skills/manual/SKILL.md": skillMd("manual", "Only by hand.", "disable-model-invocation: true"),
	});
	await writeTree(home, { ".agents/skills/notes/SKILL.md": skillMd("notes", "Keeps personal notes.") });
});

describe("skillset scan", () => {
	it("summarises roots, selected, shadowed and rejected skills with reasons, exiting 1 for rejections", async () => {
		const run = await cli(["scan", workspace], { env: env() });
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toContain("Selected (4)");
		expect(run.stdout).toContain("Roots (3 of 6 exist)");
		expect(run.stdout).toContain("(3 conventional folders do not exist; --json lists them)");
		expect(run.stdout).toContain("lint@workspace.2  by lint@workspace");
		expect(run.stdout).toMatch(/Rejected \(1\)\n {2}broken .*\n .*description\.missing/);
		expect(run.stdout).toMatch(/4 skills selected, 1 shadowed, 0 untrusted, 0 disabled, 1 rejected/);
		expect((await cli(["scan", workspace, "--exit-zero"], { env: env() })).exitCode).toBe(0);
	});

	it("prints the report as JSON", async () => {
		const run = await cli(["scan", workspace, "--json"], { env: env() });
		const report = JSON.parse(run.stdout);
		expect(report.counts).toMatchObject({ selected: 4, shadowed: 1, rejected: 1 });
		expect(report.roots.filter((r: { exists: boolean }) => r.exists)).toHaveLength(3);
		expect(report.shadowed[0]).toMatchObject({ qualifiedName: "lint@workspace.2", shadowedBy: "lint@workspace" });
	});

	it("marks an untrusted workspace's skills as such", async () => {
		const run = await cli(["scan", workspace, "--untrusted", "--json"], { env: env() });
		const report = JSON.parse(run.stdout);
		expect(report.selected.map((s: { name: string }) => s.name)).toEqual(["notes"]);
		expect(report.untrusted).toHaveLength(4);
	});
});

describe("skillset list", () => {
	it("lists selected skills with scope and path, and all of them with --all", async () => {
		const run = await cli(["list", workspace], { env: env() });
		expect(
			run.stdout
				.split("\n")
				.filter(Boolean)
				.map((line) => line.split(/\s+/).slice(0, 2)),
		).toEqual([
			["deploy", "workspace"],
			["lint", "workspace"],
			["manual", "workspace"],
			["notes", "user"],
		]);
		const all = JSON.parse((await cli(["list", workspace, "--all", "--json"], { env: env() })).stdout);
		expect(all.map((s: { qualifiedName: string; status: string }) => `${s.qualifiedName} ${s.status}`)).toContain(
			"lint@workspace.2 shadowed",
		);
	});

	it("uses only the given roots with --no-default-roots", async () => {
		const run = await cli(["list", "--no-default-roots", "--root", join(workspace, ".claude/skills")], { env: env() });
		expect(run.stdout).toMatch(/^lint {2}/);
		expect(run.stdout).not.toContain("deploy");
	});
});

describe("skillset catalog", () => {
	it("prints exactly the catalog text, without user-only skills", async () => {
		const run = await cli(["catalog", workspace], { env: env() });
		expect(run.stdout).toBe(
			"- deploy: Deploys the app to staging. Use when asked to ship.\n- lint: Runs the linters.\n- notes: Keeps personal notes.\n",
		);
	});

	it("fits a budget and reports on stderr, or prints text and report as JSON", async () => {
		const run = await cli(["catalog", workspace, "--budget-tokens", "20", "--report"], { env: env() });
		expect(run.stderr).toMatch(/budget 20 tokens, \d+ tokens \(o200k_base\)/);
		const json = JSON.parse(
			(await cli(["catalog", workspace, "--budget-chars", "60", "--json"], { env: env() })).stdout,
		);
		expect(json.report.budget).toEqual({ unit: "chars", limit: 60 });
		expect(json.report.chars).toBeLessThanOrEqual(60);
	});

	it("renders xml with locations and wraps a system-prompt section", async () => {
		const xml = await cli(["catalog", workspace, "--format", "xml"], { env: env() });
		expect(xml.stdout).toContain(`<location>\n${join(workspace, ".agents/skills/deploy/SKILL.md")}\n</location>`);
		const prompt = await cli(["catalog", workspace, "--prompt", "tool"], { env: env() });
		expect(prompt.stdout).toMatch(/^## Skills\n\n.*load_skill tool/);
	});

	it.each([
		[["--format", "yaml"], "--format must be one of"],
		[["--budget-tokens", "lots"], "--budget-tokens must be a positive number"],
		[["--fraction", "0.1"], "--fraction needs a context window (--context-window"],
		[["--prompt", "shout"], "--prompt must be tool or file-read"],
		[["--policy", "random"], "--policy must be one of"],
		[["--preset", "emacs"], "--preset must be one of claude"],
	])("rejects %j as a usage error", async (args, message) => {
		const run = await cli(["catalog", workspace, ...args], { env: env() });
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain(message);
	});
});

describe("skillset doctor", () => {
	it("says a listed skill is in the catalog", async () => {
		const run = await cli(["doctor", "deploy", workspace], { env: env() });
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("deploy: in the catalog");
	});

	it("explains every copy of a shadowed name", async () => {
		const run = await cli(["doctor", "lint", workspace, "--json"], { env: env() });
		const result = JSON.parse(run.stdout);
		expect(result.copies.map((c: { status: string; catalog: string }) => [c.status, c.catalog])).toEqual([
			["selected", "listed"],
			["shadowed", "not-listed"],
		]);
		expect(result.copies[1].reasons[0]).toBe("shadowed by lint@workspace; reachable as lint@workspace.2");
	});

	it.each([
		["broken", "rejected: Missing required field in frontmatter: description (description.missing)"],
		["manual", "disable-model-invocation is set"],
	])("explains why %s is not in the catalog", async (name, reason) => {
		const run = await cli(["doctor", name, workspace], { env: env() });
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toContain(reason);
	});

	it("says when the budget cut a skill, and suggests names for a typo", async () => {
		const cut = await cli(["doctor", "notes", workspace, "--budget-tokens", "12"], { env: env() });
		expect(cut.stdout).toMatch(/left out by the budget|listed by name only|description cut by/);
		const typo = await cli(["doctor", "deplyo", workspace], { env: env() });
		expect(typo.stdout).toContain("No skill is named 'deplyo'. Did you mean 'deploy'?");
	});
});

describe("configuration", () => {
	it("reads skillset.config.json from the workspace, with paths relative to it", async () => {
		await writeTree(workspace, { "extra/special/SKILL.md": skillMd("special") });
		await writeFile(join(workspace, "skillset.config.json"), JSON.stringify({ roots: ["extra"], disabled: ["lint"] }));
		try {
			const names = JSON.parse((await cli(["list", workspace, "--json"], { env: env() })).stdout);
			expect(names.map((s: { name: string }) => s.name)).toEqual(["special", "deploy", "manual", "notes"]);
		} finally {
			await writeFile(join(workspace, "skillset.config.json"), "{}");
		}
	});

	it("reports config mistakes as usage errors naming the key", async () => {
		const file = join(workspace, "bad.json");
		await writeFile(file, JSON.stringify({ rots: [] }));
		const run = await cli(["scan", workspace, "--config", file], { env: env() });
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain(`"rots" in ${file} is not a known setting`);
		await writeFile(file, JSON.stringify({ policy: "first" }));
		expect((await cli(["scan", workspace, "--config", file], { env: env() })).stderr).toContain(
			`"policy" in ${file} must be one of precedence, reject, keep-all, qualify, not 'first'`,
		);
		await writeFile(file, "{ not json");
		expect((await cli(["scan", workspace, "--config", file], { env: env() })).stderr).toContain("is not valid JSON");
	});

	it("takes SKILLSET_* variables, flags winning over them", async () => {
		const vars = { ...env(), SKILLSET_POLICY: "reject", SKILLSET_DEFAULT_ROOTS: "true" };
		const rejected = JSON.parse((await cli(["scan", workspace, "--json"], { env: vars })).stdout);
		expect(rejected.policy).toBe("reject");
		const flag = JSON.parse((await cli(["scan", workspace, "--json", "--policy", "qualify"], { env: vars })).stdout);
		expect(flag.policy).toBe("qualify");
		const bad = await cli(["scan", workspace], { env: { ...env(), SKILLSET_TRUST_WORKSPACE: "maybe" } });
		expect([bad.exitCode, bad.stderr.includes("SKILLSET_TRUST_WORKSPACE must be true or false")]).toEqual([2, true]);
	});
});

describe("skillset catalog --prompt file-read", () => {
	it("includes the locations the instruction needs", async () => {
		const run = await cli(["catalog", workspace, "--prompt", "file-read"], { env: env() });
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("read the SKILL.md at its location");
		expect(run.stdout).toContain(`(file: ${join(workspace, ".agents/skills/deploy/SKILL.md")})`);
	});
});
