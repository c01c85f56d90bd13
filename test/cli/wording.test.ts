// Issue 20 §3: wording seen in real output. Through the built CLI, as a user reads it.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let cwd: string;
const run = (...argv: string[]) => runBuilt(argv, { cwd, env: { HOME: cwd } });

beforeAll(async () => {
	cwd = await tempDir();
	await writeTree(cwd, {
		".agents/skills/solo/SKILL.md": skillMd("solo", "Does solo things. Use when a solo thing must be done well."),
	});
});

describe("counts of one", () => {
	it("say '1 skill', never '1 skills' or 'skill(s)'", async () => {
		const check = await run("mcp", ".", "--check");
		expect(check.stdout).toContain("1 skill served");
		const report = await run("catalog", ".", "--report", "--budget-tokens", "40");
		const all = `${check.stdout}${check.stderr}${report.stdout}${report.stderr}`;
		expect(all).not.toMatch(/\b1 skills\b|skill\(s\)/);
	}, 60_000);
});

describe("remove of a name that is not there", () => {
	it("says it is not installed and does not suggest --force for a folder that does not exist", async () => {
		for (const extra of [[], ["--dir", "vendor"]]) {
			const removed = await run("remove", "nothere", ...extra);
			expect(removed.exitCode).toBe(1);
			expect(removed.stdout).toMatch(/nothere is not installed/);
			expect(`${removed.stdout}${removed.stderr}`).not.toContain("--force");
		}
	}, 60_000);
});

describe("lint of two alike skills", () => {
	it("reports the pair once", async () => {
		const dir = await tempDir();
		const text = "Deploys the web application to the staging cluster. Use when asked to ship to staging.";
		await writeTree(dir, {
			"twin-a/SKILL.md": skillMd("twin-a", text),
			"twin-b/SKILL.md": skillMd("twin-b", text.replace("ship", "ship it")),
		});
		const lint = await run("lint", join(dir, "twin-a"), join(dir, "twin-b"));
		expect(lint.stdout.match(/lint\.overlap/g)).toHaveLength(1);
	}, 60_000);
});
