import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let workspace: string;
let home: string;
const env = () => ({ HOME: home });
const FILLER = "helps with many related tasks across the whole project and answers questions about them";

beforeAll(async () => {
	const root = await tempDir();
	workspace = join(root, "project");
	home = join(root, "home");
	const files: Record<string, string> = { ".git/HEAD": "ref: refs/heads/main\n" };
	for (let i = 0; i < 40; i++) {
		const name = `area-${String(i).padStart(2, "0")}`;
		files[`.agents/skills/${name}/SKILL.md`] = skillMd(name, `Expert for area ${i} that ${FILLER}.`);
	}
	files[".agents/skills/zz-terraform/SKILL.md"] = skillMd(
		"zz-terraform",
		"Plans and applies Terraform changes safely.",
	);
	await writeTree(workspace, files);
	await writeTree(home, {});
});

describe("skillset catalog --query", () => {
	it("describes the skills relevant to the query when not every description fits, and names the rest", async () => {
		const plain = await cli(["catalog", workspace, "--budget-tokens", "200"], { env: env() });
		expect(plain.stdout).not.toContain("- zz-terraform:");
		expect(plain.stdout).toMatch(/\n- Also available — load by name or search_skills: area-00, .*, zz-terraform\n$/);
		const run = await cli(["catalog", workspace, "--budget-tokens", "200", "--query", "terraform plan"], {
			env: env(),
		});
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("- zz-terraform: Plans and applies Terraform changes safely.");
		expect(run.stdout).not.toMatch(/available — .*zz-terraform/);
	});

	it("describes the skills used recently (--recent, most recent first) next", async () => {
		const catalog = async (...args: string[]) =>
			JSON.parse(
				(await cli(["catalog", workspace, "--budget-tokens", "200", "--json", ...args], { env: env() })).stdout,
			).report;
		const plain = await catalog();
		const [first, second] = plain.named.slice(-2);
		expect(plain.kept).not.toContain(first);
		for (const args of [
			["--recent", `${first},${second}`],
			["--recent", first, "--recent", second],
		]) {
			const report = await catalog(...args);
			expect(report.kept).toContain(first);
			expect(report.tokens).toBeLessThanOrEqual(200);
		}
	});

	it("summarises long name lists in the report: counts and the first few names", async () => {
		const run = await cli(["catalog", workspace, "--budget-tokens", "200", "--report"], { env: env() });
		const named = run.stderr.split("\n").find((line) => line.startsWith("by name only:")) ?? "";
		expect(named).toMatch(/^by name only: (\d+) skills: (area-\d\d, ){4}area-\d\d and \d+ more \(--json lists all\)$/);
		const [, total = "0"] = named.match(/^by name only: (\d+)/) ?? [];
		const [, rest = "0"] = named.match(/and (\d+) more/) ?? [];
		expect(Number(rest)).toBe(Number(total) - 5);
		expect(run.stderr).toMatch(/^skills: 41 of 41 listed \(\d+ described, \d+ by name only\)/m);
	});
});
