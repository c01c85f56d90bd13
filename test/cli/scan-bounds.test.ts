import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 10: a root the user names is walked up to 100,000 folders; a conventional one keeps the 2,000-folder
// bound, and when a bound is hit the human output says so first, with the key that lifts it.
const SKILLS = 2010;
let workspace: string;
let collection: string;

beforeAll(async () => {
	workspace = await tempDir();
	collection = join(workspace, ".claude", "skills");
	const files: Record<string, string> = {};
	for (let i = 0; i < SKILLS; i++) files[`s-${i}/SKILL.md`] = skillMd(`s-${i}`);
	await writeTree(collection, files);
});

describe("scan walk bounds", () => {
	it("walks a root named with --root whole, past the conventional bound", async () => {
		const run = await cli(["scan", workspace, "--no-default-roots", "--root", collection, "--json"], {
			env: { HOME: join(workspace, "home") },
		});
		const report = JSON.parse(run.stdout);
		expect(report.counts.selected).toBe(SKILLS);
		expect(report.roots[0].bounds).toEqual({ depth: false, dirs: false, entries: false });
	});

	it("says in its first lines that a conventional root was cut short, and how to lift the bound", async () => {
		const run = await cli(["scan", workspace, "--exit-zero"], { env: { HOME: join(workspace, "home") } });
		const [first, second] = run.stdout.split("\n");
		expect(first).toBe(`Incomplete: the walk of ${collection} stopped at its folders bound.`);
		expect(second).toContain('"limits": { "maxDirs": N } in skillset.config.json');
		expect(second).toContain("--root");
	});

	it("honours a config limit for named roots too, and says which key to raise", async () => {
		const config = join(workspace, "small.config.json");
		await writeFile(config, JSON.stringify({ limits: { maxDirs: 10 } }));
		const args = ["scan", workspace, "--no-default-roots", "--root", collection, "--config", config, "--exit-zero"];
		const run = await cli(args, { env: { HOME: join(workspace, "home") } });
		const lines = run.stdout.split("\n");
		expect(lines[0]).toBe(`Incomplete: the walk of ${collection} stopped at its folders bound.`);
		expect(lines[1]).toBe('  Set "limits": { "maxDirs": N } in skillset.config.json to scan it all.');
	});
});
