import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadDefaultTokenizer } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 9: defaults < config file < SKILLSET_* < flags, for every setting; messages name what the user set.
let workspace: string;
const config = (settings: object) => writeFile(join(workspace, "skillset.config.json"), JSON.stringify(settings));

beforeAll(async () => {
	workspace = join(await tempDir(), "project");
	const skills: Record<string, string> = { ".git/HEAD": "ref: refs/heads/main\n" };
	for (const name of ["alpha", "bravo", "charlie", "delta", "echo"]) {
		skills[`.agents/skills/${name}/SKILL.md`] = skillMd(
			name,
			`Handles ${name} requests end to end, with checks and a report. Use when the user mentions ${name}.`,
		);
	}
	await writeTree(workspace, skills);
});

async function budgetOf(args: string[], env: Record<string, string> = {}) {
	const run = await cli(["catalog", workspace, "--json", ...args], { env: { HOME: workspace, ...env } });
	expect(run.stderr).toBe("");
	return JSON.parse(run.stdout).report.budget;
}

describe("settings precedence", () => {
	it("lets a budget flag win over a config file budget of another unit", async () => {
		await config({ catalog: { tokens: 30 } });
		expect(await budgetOf([])).toEqual({ unit: "tokens", limit: 30 });
		expect(await budgetOf(["--budget-chars", "200"])).toEqual({ unit: "chars", limit: 200 });
		expect(await budgetOf(["--context-window", "10000"])).toEqual({ unit: "tokens", limit: 200 });
	});

	it("puts SKILLSET_* between the config file and the flags", async () => {
		await config({ catalog: { chars: 300, format: "json" } });
		const env = { SKILLSET_BUDGET_TOKENS: "40", SKILLSET_FORMAT: "xml" };
		expect(await budgetOf([], env)).toEqual({ unit: "tokens", limit: 40 });
		expect(await budgetOf(["--budget-chars", "250"], env)).toEqual({ unit: "chars", limit: 250 });
		expect(await budgetOf([], { SKILLSET_BUDGET_CHARS: "120" })).toEqual({ unit: "chars", limit: 120 });
		const xml = await cli(["catalog", workspace], { env: { HOME: workspace, ...env } });
		expect(xml.stdout).toMatch(/^<available_skills>/);
		const flag = await cli(["catalog", workspace, "--format", "markdown"], { env: { HOME: workspace, ...env } });
		expect(flag.stdout).toMatch(/^- /);
		expect(flag.stdout).not.toContain("<available_skills>");
		await config({});
	});

	it("rejects two budgets from one source as a usage error naming both", async () => {
		const run = await cli(["catalog", workspace, "--budget-tokens", "50", "--budget-chars", "200"]);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain("--budget-tokens and --budget-chars cannot be used together");
		await config({ catalog: { tokens: 10, chars: 10 } });
		const file = await cli(["catalog", workspace]);
		expect([file.exitCode, file.stderr]).toEqual([
			2,
			expect.stringContaining(`"catalog.tokens" in ${join(workspace, "skillset.config.json")} and "catalog.chars"`),
		]);
		await config({});
	});

	it.each([
		[["--budget-tokens", "200"], "tokens"],
		[["--budget-chars", "700"], "chars"],
	])("counts the --prompt instruction against the budget (%j)", async (args, unit) => {
		const run = await cli(["catalog", workspace, "--prompt", "tool", ...args], { env: { HOME: workspace } });
		expect([run.exitCode, run.stderr]).toEqual([0, ""]);
		expect(run.stdout).toContain("## Skills");
		const limit = Number(args[1]);
		const used =
			unit === "tokens" ? (await loadDefaultTokenizer()).count(run.stdout.trimEnd()) : [...run.stdout.trimEnd()].length;
		expect(used).toBeLessThanOrEqual(limit);
		expect(run.stdout).toContain("- alpha");
	});
});

describe("--config", () => {
	it("is read relative to the working folder, not the workspace DIR", async () => {
		const root = join(workspace, "..");
		await writeFile(join(root, "mine.json"), JSON.stringify({ catalog: { format: "xml" } }));
		const run = await cli(["catalog", "project", "--config", "mine.json"], { cwd: root, env: { HOME: workspace } });
		expect([run.exitCode, run.stdout.startsWith("<available_skills>")]).toEqual([0, true]);
	});
});

describe("messages name the user's flag, key or variable", () => {
	it("names the config key when a config file's fraction has no context window", async () => {
		await config({ catalog: { fraction: 0.1 } });
		const run = await cli(["catalog", workspace], { env: { HOME: workspace } });
		expect([run.exitCode, run.stderr.split("\n")[0]]).toEqual([
			2,
			'skillset: "catalog.fraction" in the config file needs a context window (--context-window or "catalog.contextWindow")',
		]);
		await config({});
	});

	it.each([
		[["--preset", "nope"], {}, "--preset must be one of claude"],
		[["--policy", "first"], {}, "--policy must be one of precedence"],
		[["--budget-tokens", "lots"], {}, "--budget-tokens must be a positive number, not 'lots'"],
		[["--budget-chars", "0.5"], {}, "--budget-chars must be at least 1"],
		[[], { SKILLSET_BUDGET_TOKENS: "lots" }, "SKILLSET_BUDGET_TOKENS must be a positive number, not 'lots'"],
		[[], { SKILLSET_PRESETS: "claude,emacs" }, "SKILLSET_PRESETS must be one of claude"],
		[[], { SKILLSET_FORMAT: "yaml" }, "SKILLSET_FORMAT must be one of"],
	])("%j %j", async (args, env, message) => {
		const run = await cli(["catalog", workspace, ...args], { env: { HOME: workspace, ...env } });
		expect(run.exitCode).toBe(2);
		expect(run.stderr.split("\n")[0]).toMatch(/^skillset: /);
		expect(run.stderr).toContain(message);
		expect(run.stderr).not.toMatch(/option\.|\[\d+\]/);
	});
});
