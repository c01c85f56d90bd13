import { existsSync } from "node:fs";
import { chmod, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { serveFolder } from "../helpers/index-site.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 21, items 1 and 8: what peers found when they read skillset's own published index.

/** A workspace with skills under .agents/skills; `run` runs the CLI in it with its own HOME. */
async function workspace(files: Record<string, string>) {
	const cwd = await writeTree(await tempDir(), files);
	const run = async (...argv: string[]) => {
		const result = await cli(argv, { cwd, env: { HOME: cwd } });
		return { ...result, data: argv.includes("--json") && result.stdout ? JSON.parse(result.stdout) : undefined };
	};
	return { cwd, run };
}

const LONG = `Handles the long case. ${"x".repeat(1024)}`;

describe("issue 21.1: a description over 1,024 characters is left out of publish, as mcp leaves it out", () => {
	it("publishes the others, leaves the long one out with a warning that says why, and the index never lists it", async () => {
		const ws = await workspace({
			".agents/skills/long-one/SKILL.md": skillMd("long-one", LONG),
			".agents/skills/short/SKILL.md": skillMd("short"),
		});
		const out = join(await tempDir(), "site");
		const run = await ws.run("publish", "--out", out, "--json");
		expect(run.exitCode).toBe(0);
		expect(run.data.entries.map((e: { name: string }) => e.name)).toEqual(["short"]);
		expect(run.data.leftOut).toEqual([expect.objectContaining({ skill: "long-one", code: "publish.description" })]);
		const index = JSON.parse(await readFile(join(out, ".well-known/agent-skills/index.json"), "utf8"));
		expect(index.skills.map((s: { name: string }) => s.name)).toEqual(["short"]);
		const text = await ws.run("publish", "--out", out);
		expect(text.stderr).toMatch(/left out long-one: .*1047 characters, over the 1024/);
		expect(text.exitCode).toBe(0);
	});

	it("publish --check and mcp --check both list the skill that would be left out, and write nothing", async () => {
		const ws = await workspace({
			".agents/skills/long-one/SKILL.md": skillMd("long-one", LONG),
			".agents/skills/short/SKILL.md": skillMd("short"),
		});
		const out = join(await tempDir(), "site");
		const check = await ws.run("publish", "--check", "--out", out, "--json");
		expect(check.exitCode).toBe(1);
		expect(check.data.entries.map((e: { name: string }) => e.name)).toEqual(["short"]);
		expect(check.data.leftOut.map((l: { skill: string }) => l.skill)).toEqual(["long-one"]);
		expect(existsSync(out)).toBe(false);
		const text = await ws.run("publish", "--check");
		expect(text.stderr).toMatch(/left out long-one/);
		const mcp = await ws.run("mcp", "--check", "--json");
		expect(mcp.exitCode).toBe(1);
		expect(mcp.data.leftOut).toEqual([expect.objectContaining({ name: "long-one" })]);
		expect(mcp.data.leftOut[0].message).toMatch(/description/);
		const clean = await workspace({ ".agents/skills/short/SKILL.md": skillMd("short") });
		expect((await clean.run("publish", "--check")).exitCode).toBe(0);
	});

	it("counts characters, not UTF-16 units: 1,024 emoji are published and add reads them back", async () => {
		const emoji = "\u{1F600}".repeat(1024);
		const ws = await workspace({ ".agents/skills/smiles/SKILL.md": skillMd("smiles", emoji) });
		const site = join(await tempDir(), "site");
		const run = await ws.run("publish", "--out", site, "--json");
		expect(run.data.leftOut).toEqual([]);
		expect(run.exitCode).toBe(0);
		const target = await workspace({});
		const add = await target.run("add", `file://${site}`, "--all", "--json");
		expect(add.stderr).not.toMatch(/lacks a description/);
		expect(add.exitCode).toBe(0);
		expect(existsSync(join(target.cwd, ".agents/skills/smiles/SKILL.md"))).toBe(true);
	});
});

describe("issue 21.8: add from skillset's own published index keeps a script's executable bit", () => {
	it("an executable script stays executable, a plain file stays plain, over loopback HTTP", async () => {
		const ws = await workspace({
			".agents/skills/runner/SKILL.md": skillMd("runner"),
			".agents/skills/runner/scripts/run.sh": "#!/bin/sh\necho ran\n",
			".agents/skills/runner/notes.md": "notes\n",
		});
		await chmod(join(ws.cwd, ".agents/skills/runner/scripts/run.sh"), 0o755);
		const site = join(await tempDir(), "site");
		expect((await ws.run("publish", "--out", site)).exitCode).toBe(0);
		const base = await serveFolder(site);
		const target = await workspace({});
		const add = await target.run("add", base, "--skill", "runner", "--yes");
		expect(add.stderr).toBe("");
		expect(add.exitCode).toBe(0);
		const installed = join(target.cwd, ".agents/skills/runner");
		expect((await stat(join(installed, "scripts/run.sh"))).mode & 0o777).toBe(0o755);
		expect((await stat(join(installed, "notes.md"))).mode & 0o111).toBe(0);
	});
});
