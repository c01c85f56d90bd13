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
	it("keeps the skills relevant to the query when the budget drops skills", async () => {
		const plain = await cli(["catalog", workspace, "--budget-tokens", "200"], { env: env() });
		expect(plain.stdout).not.toContain("zz-terraform");
		expect(plain.stdout).toMatch(/- \d+ more skills are not listed: use search_skills to find them\.\n$/);
		const run = await cli(["catalog", workspace, "--budget-tokens", "200", "--query", "terraform plan"], {
			env: env(),
		});
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("- zz-terraform: Plans and applies Terraform changes safely.");
	});

	it("summarises long name lists in the report: counts and the first few names", async () => {
		const run = await cli(["catalog", workspace, "--budget-tokens", "200", "--report"], { env: env() });
		const omitted = run.stderr.split("\n").find((line) => line.startsWith("omitted:")) ?? "";
		expect(omitted).toMatch(/^omitted: (\d+) skills: (area-\d\d, ){4}area-\d\d and \d+ more \(--json lists all\)$/);
		const [, total = "0"] = omitted.match(/^omitted: (\d+)/) ?? [];
		const [, rest = "0"] = omitted.match(/and (\d+) more/) ?? [];
		expect(Number(rest)).toBe(Number(total) - 5);
	});
});
