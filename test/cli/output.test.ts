import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 9, "Output a person can read on 500 skills".
let collection: string;
let orphaned: string;
const COUNT = 40;
const description = "Formats tables for weekly reports. Use when the user shares a table to tidy up.";

beforeAll(async () => {
	const root = await tempDir();
	collection = join(root, "skills");
	const files: Record<string, string> = {};
	for (let i = 0; i < COUNT; i++) {
		const name = `skill-${String(i).padStart(2, "0")}`;
		files[`${name}/SKILL.md`] = skillMd(name.toUpperCase(), `${description} Number ${i}.`);
	}
	files["clean/SKILL.md"] = skillMd("clean", description);
	await writeTree(collection, files);
	orphaned = join(root, "orphaned");
	await writeTree(orphaned, {
		"SKILL.md": skillMd("orphaned", description, "license: MIT"),
		"assets/unused.txt": "nobody mentions me\n",
	});
});

describe("human output on many skills", () => {
	it("groups by skill and by code, with every diagnostic only under --verbose", async () => {
		const run = await cli(["validate", collection]);
		expect(run.exitCode).toBe(1);
		const lines = run.stdout.trimEnd().split("\n");
		expect(lines.filter((line) => /skill-\d\d {2}error {2}/.test(line))).toHaveLength(COUNT);
		expect(lines.find((line) => line.includes(join(collection, "skill-07")))).toBe(
			`${join(collection, "skill-07")}  error  name.uppercase, name.dir-mismatch`,
		);
		expect(run.stdout).toContain(`  name.uppercase × ${COUNT}\n`);
		expect(run.stdout).not.toContain("hint:");
		expect(lines.length).toBeLessThan(COUNT + 10);
		expect(lines.at(-1)).toBe(`${COUNT + 1} skills checked: 1 valid, ${COUNT} invalid (${COUNT * 2} errors)`);
		const verbose = await cli(["validate", collection, "--verbose"]);
		expect(verbose.stdout.match(/SKILL\.md:2:7 {2}error {2}name\.uppercase/g)).toHaveLength(COUNT);
		expect(verbose.stdout).toContain(`${join(collection, "clean", "SKILL.md")}  ok`);
	});

	it("cuts scan's long lists to the first few names unless --verbose", async () => {
		const args = ["scan", "--no-default-roots", "--root", collection];
		const run = await cli(args, { env: { HOME: collection } });
		expect(run.stdout).toContain(`Selected (${COUNT + 1})\n`);
		expect(run.stdout).toContain(`  ... and ${COUNT + 1 - 10} more (--verbose or 'skillset list --all' lists them)\n`);
		expect(run.stdout).toMatch(/ {2}skill-05 {2}workspace/);
		expect(run.stdout).not.toMatch(/ {2}skill-39 {2}workspace/);
		const verbose = await cli([...args, "--verbose"], { env: { HOME: collection } });
		expect(verbose.stdout).toMatch(/ {2}skill-39 {2}workspace/);
	});

	it("prints only the summary line with --quiet", async () => {
		const run = await cli(["validate", collection, "--quiet"]);
		expect(run.stdout).toBe(`${COUNT + 1} skills checked: 1 valid, ${COUNT} invalid (${COUNT * 2} errors)\n`);
		const lint = await cli(["lint", collection, "--quiet"]);
		expect(lint.stdout.split("\n").filter(Boolean)).toHaveLength(1);
		const scan = await cli(["scan", "--no-default-roots", "--root", collection, "--quiet"], {
			env: { HOME: collection },
		});
		expect(scan.stdout).toMatch(
			/^41 skills selected, 0 shadowed, 0 untrusted, 0 disabled, 0 rejected \([\d.]+ ms\)\n$/,
		);
	});

	it("rejects --verbose with --quiet", async () => {
		const run = await cli(["validate", collection, "--verbose", "--quiet"]);
		expect([run.exitCode, run.stderr.split("\n")[0]]).toEqual([
			2,
			"skillset: --verbose and --quiet cannot be used together",
		]);
	});

	it("keeps --json exactly one document", async () => {
		for (const args of [
			["validate", collection],
			["lint", collection],
			["scan", "--root", collection],
		]) {
			const run = await cli([...args, "--json", "--verbose"], { env: { HOME: collection } });
			expect(() => JSON.parse(run.stdout)).not.toThrow();
		}
	});

	it("says when lint or audit found no skill in the workspace at all", async () => {
		const empty = join(orphaned, "assets");
		const lint = await cli(["lint"], { cwd: empty, env: { HOME: empty } });
		expect(lint.stdout).toBe(
			"0 skills linted, no findings: no skill was found ('skillset scan' shows where skillset looked)\n",
		);
		const audit = await cli(["audit"], { cwd: empty, env: { HOME: empty } });
		expect(audit.stdout).toContain("No skill was found: 'skillset scan' shows where skillset looked.");
	});

	it("lint hides info notes such as orphan files unless --verbose", async () => {
		const run = await cli(["lint", orphaned]);
		expect(run.stdout).not.toContain("refs.orphan");
		expect(run.stdout).toBe("1 skill linted, no findings (1 info note hidden; --verbose shows them)\n");
		const verbose = await cli(["lint", orphaned, "--verbose"]);
		expect(verbose.stdout).toContain("refs.orphan");
	});

	it("summarises long name lists in the budget report", async () => {
		const run = await cli(
			["catalog", "--no-default-roots", "--root", collection, "--budget-tokens", "900", "--report"],
			{
				env: { HOME: collection },
			},
		);
		const truncated = run.stderr.split("\n").find((line) => line.startsWith("truncated:")) ?? "";
		expect(truncated).toMatch(/ and \d+ more \(--json lists all\)$/);
		expect(truncated.split(", ").length).toBeLessThanOrEqual(6);
	});
});
