import { spawn } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILT_BIN } from "../helpers/cli.ts";
import { generateSkills, writeSkillCollection } from "../helpers/skill-collection.ts";
import { tempDir } from "../helpers/temp.ts";

// Issue 20 §3: `skillset list … | head -1` died with an EPIPE stack trace. A reader that goes away is no crash.

let workspace: string;
beforeAll(async () => {
	workspace = await tempDir();
	// Large enough that the output is many pipe buffers (64 KiB each), so writes go on after the reader left.
	await writeSkillCollection(join(workspace, ".agents", "skills"), generateSkills(500));
}, 120_000);

interface Closed {
	code: number | null;
	signal: NodeJS.Signals | null;
	stderr: string;
	firstChunk: string;
}

/**
 * Runs the built CLI with stdout on a real pipe, and closes the reading end: right away (`now`), or after the first
 * chunk arrived, as `head -1` does.
 */
function runAndClose(argv: readonly string[], when: "now" | "after-first-chunk"): Promise<Closed> {
	return new Promise((done, fail) => {
		const child = spawn(process.execPath, [BUILT_BIN, ...argv], {
			cwd: workspace,
			env: { PATH: process.env.PATH ?? "", HOME: workspace },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stderr = "";
		let firstChunk = "";
		const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
		child.stderr.setEncoding("utf8").on("data", (text: string) => {
			stderr += text;
		});
		if (when === "now") child.stdout.destroy();
		else
			child.stdout.once("data", (chunk: Buffer) => {
				firstChunk = chunk.toString("utf8");
				child.stdout.destroy();
			});
		child.on("error", fail);
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			done({ code, signal, stderr, firstChunk });
		});
	});
}

describe("a closed stdout ends the command quietly with status 0 (issue 20)", () => {
	it.each([
		[["list", "--all"]],
		[["list", "--json"]],
		[["scan"]],
		[["catalog", "--budget-chars", "200000"]],
		[["search", "database"]],
		[["lint", ".agents/skills"]],
		[["--help"]],
	])("skillset %j with its reader gone before it writes", async (argv) => {
		const run = await runAndClose(argv, "now");
		expect(run.stderr).not.toMatch(/EPIPE|at .*\.js|internal error/);
		expect(run).toMatchObject({ code: 0, signal: null });
	});

	it.each([[["list", "--all"]], [["catalog", "--budget-chars", "200000"]], [["list", "--json"]]])(
		"skillset %j | head -1: the reader takes the first chunk of a large output and leaves",
		async (argv) => {
			const run = await runAndClose(argv, "after-first-chunk");
			expect(run.firstChunk.length).toBeGreaterThan(0);
			expect(run.stderr).not.toMatch(/EPIPE|at .*\.js|internal error/);
			expect(run).toMatchObject({ code: 0, signal: null });
		},
	);
});
