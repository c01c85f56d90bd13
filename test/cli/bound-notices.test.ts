// Issue 18: every command that discovers says when a walk bound cut a root short, as `scan` does; before, `mcp
// --check` (and list, catalog, show, ...) over more folders than the bound reported nothing of it.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { stdioClient, waitFor } from "../mcp/mcp-helpers.ts";

let ws: string;
let collection: string;
let notice: string;

beforeAll(async () => {
	ws = await tempDir();
	collection = join(ws, ".claude", "skills");
	const files: Record<string, string> = {};
	for (let i = 0; i < 12; i++) files[`s-${i}/SKILL.md`] = skillMd(`s-${i}`);
	files["s-0/references/guide.md"] = "# Guide\n";
	await writeTree(collection, files);
	await writeFile(join(ws, "skillset.config.json"), JSON.stringify({ limits: { maxDirs: 5 } }));
	notice = `Incomplete: the walk of ${collection} stopped at its folders bound.`;
});

const run = (args: string[]) => cli(args, { cwd: ws, env: { HOME: join(ws, "home") } });

describe("a walk bound hit is announced", () => {
	it("by mcp --check, first in its report, and in its JSON; the check fails", async () => {
		const text = await run(["mcp", "--check"]);
		expect(text.stdout.split("\n")[0]).toBe(notice);
		expect(text.exitCode).toBe(1);
		const json = await run(["mcp", "--check", "--json"]);
		expect(JSON.parse(json.stdout).incomplete).toEqual([{ root: collection, bounds: ["dirs"], named: false }]);
		expect(json.exitCode).toBe(1);
	});

	it.each([
		["list", ["list"]],
		["list --json", ["list", "--json"]],
		["catalog", ["catalog"]],
		["show", ["show", "s-0"]],
		["read", ["read", "s-0", "references/guide.md"]],
		["doctor", ["doctor", "s-0"]],
		["lock", ["lock", "--json"]],
		["sources", ["sources"]],
		["lint", ["lint"]],
		["audit", ["audit"]],
	])("by %s, on stderr (stdout keeps its contract)", async (_name, args) => {
		const result = await run(args);
		expect(result.stderr).toContain(notice);
		expect(result.stdout).not.toContain("Incomplete:");
	});

	it("by scan once, at the top of its report", async () => {
		const result = await run(["scan", "--exit-zero"]);
		expect(result.stdout.split("\n")[0]).toBe(notice);
		expect(result.stderr).not.toContain("Incomplete:");
	});

	it.each([["validate"], ["lint"], ["audit"]])("by %s of a folder of skills, on stderr", async (command) => {
		const deep = await writeTree(await tempDir(), {
			"top/SKILL.md": skillMd("top"),
			"a/b/c/d/e/f/g/deep/SKILL.md": skillMd("deep"),
		});
		const result = await run([command, deep]);
		expect(result.stderr).toContain(`Incomplete: the walk of ${deep} stopped at its depth bound.`);
		expect(result.stdout).not.toContain("Incomplete:");
	});

	it("by the serving MCP server (the built CLI, watching), in its log on stderr", async () => {
		const served = await stdioClient(ws, []);
		expect(await waitFor(() => served.stderr().includes("Incomplete:"), 10_000)).toBe(true);
		expect(served.stderr()).toContain(
			`skillset mcp: warning: Incomplete: the walk of ${collection} stopped at its folders bound`,
		);
	}, 30_000);
});
