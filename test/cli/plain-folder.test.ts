// Issue 20: a plain folder of skills (a collection checkout, no .agents/skills or other conventional folder) works
// where the user points: scan, list, catalog, publish and mcp use it as a root and say so in one line.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let base: string;
let collection: string;
let home: string;

const NOTE =
	/^skillset: collection holds skill folders and no conventional skills folder \(\.agents\/skills, \.claude\/skills, \.skills\): using it as a skills root\n/;

beforeAll(async () => {
	base = await tempDir();
	collection = join(base, "collection");
	home = join(base, "home");
	await writeTree(home, { ".keep": "" });
	await writeTree(collection, {
		"README.md": "A collection.\n",
		"pdf-forms/SKILL.md": skillMd("pdf-forms", "Fill PDF forms. Use when a user hands over a PDF form to complete."),
		"csv-clean/SKILL.md": skillMd("csv-clean", "Clean CSV files. Use when a CSV has broken quoting or encodings."),
	});
});

const run = (...argv: string[]) => runBuilt(argv, { cwd: base, env: { HOME: home } });

describe("a plain folder of skills", () => {
	it("scan, list and catalog find its skills and say once that it is the root", async () => {
		const scan = await run("scan", "collection", "--json");
		expect(scan.exitCode).toBe(0);
		expect(JSON.parse(scan.stdout).counts.selected).toBe(2);
		expect(scan.stderr).toMatch(NOTE);
		expect(scan.stderr.split("\n").filter(Boolean)).toHaveLength(1);
		const list = await run("list", "collection");
		expect(list.stdout).toContain("pdf-forms");
		expect(list.stdout).toContain("csv-clean");
		expect(list.stderr).toMatch(NOTE);
		const catalog = await run("catalog", "collection");
		expect(catalog.stdout).toContain("- csv-clean: Clean CSV files.");
		expect(catalog.stderr).toMatch(NOTE);
	}, 60_000);

	it("publish writes its skills", async () => {
		const out = join(base, "site");
		const publish = await run("publish", "collection", "--out", out);
		expect(publish.exitCode).toBe(0);
		expect(publish.stderr).toMatch(NOTE);
		expect(publish.stderr).not.toContain("no skills to publish");
		expect(existsSync(join(out, ".well-known"))).toBe(true);
	}, 60_000);

	it("mcp serves its skills", async () => {
		const check = await run("mcp", "collection", "--check");
		expect(check.exitCode).toBe(0);
		expect(check.stdout).toContain("2 skills served");
		expect(check.stderr).toMatch(NOTE);
	}, 60_000);

	it("is not taken for a root when it has a conventional folder, or when its skills are deeper", async () => {
		const project = join(base, "project");
		await writeTree(project, {
			".agents/skills/deploy/SKILL.md": skillMd("deploy", "Ship the service."),
			"vendor/lint-fix/SKILL.md": skillMd("lint-fix", "Fix lint errors."),
		});
		const list = await run("list", "project", "--json");
		expect(JSON.parse(list.stdout).map((skill: { name: string }) => skill.name)).toEqual(["deploy"]);
		expect(list.stderr).toBe("");
		const deep = join(base, "deep");
		await writeTree(deep, { "skills/x/lint-fix/SKILL.md": skillMd("lint-fix", "Fix lint errors.") });
		const scan = await run("scan", "deep");
		expect(scan.stderr).not.toMatch(/using it as a skills root/);
		expect(scan.stderr).toContain("--root");
	}, 60_000);
});
