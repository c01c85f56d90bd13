import { describe, expect, it } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";

// Issue 20 §3: a mistyped flag or command gets "did you mean" and one usage line, not Node's parseArgs text.

async function built(argv: string[]) {
	return runBuilt(argv, { cwd: await tempDir() });
}

describe("mistyped flags and commands (issue 20)", () => {
	it.each([
		[["list", "--al"], "unknown option '--al'; did you mean '--all'?", "Usage: skillset list [DIR] [options]"],
		[["serach", "pdf"], "unknown command 'serach'; did you mean 'search'?", "Usage: skillset COMMAND [options]"],
		[["lst"], "unknown command 'lst'; did you mean 'list'?", "Usage: skillset COMMAND [options]"],
		[["help", "serach"], "unknown command 'serach'; did you mean 'search'?", "Usage: skillset COMMAND [options]"],
		[["catalog", "--budget-token", "9"], "did you mean '--budget-tokens'?", "Usage: skillset catalog [DIR]"],
		[["chat", "--base-ur", "x"], "did you mean '--base-url'?", "Usage: skillset chat [DIR] [options]"],
	])("skillset %j: the closest name and the usage line, exit 2", async (argv, first, usage) => {
		const run = await built(argv);
		expect(run.exitCode).toBe(2);
		expect(run.stdout).toBe("");
		const lines = run.stderr.trimEnd().split("\n");
		expect(lines).toHaveLength(2);
		expect(lines[0]).toContain(first);
		expect(lines[1]).toContain(usage);
		expect(run.stderr).not.toContain("To specify a positional argument");
	});

	it("names no command when none is close, and still shows the usage line", async () => {
		const run = await built(["frobnicate"]);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toBe(
			"skillset: unknown command 'frobnicate'\nUsage: skillset COMMAND [options] (see 'skillset --help')\n",
		);
	});

	it("says a flag needs a value, or takes none, in its own words", async () => {
		const missing = await built(["list", "--root"]);
		expect([missing.exitCode, missing.stderr.split("\n")[0]]).toEqual([2, "skillset: --root needs a value"]);
		const extra = await built(["list", "--all=yes"]);
		expect([extra.exitCode, extra.stderr.split("\n")[0]]).toEqual([2, "skillset: --all takes no value"]);
	});
});
