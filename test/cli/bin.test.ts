import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "dist", "cli", "bin.js");

function run(...args: string[]) {
	return spawnSync(process.execPath, [BIN, ...args], {
		cwd: ROOT,
		encoding: "utf8",
		env: { ...process.env, NO_COLOR: "1" },
	});
}

describe("the built skillset binary (npm test builds it first)", () => {
	it("exists", () => {
		expect(existsSync(BIN), "run `npm run build` first").toBe(true);
	});

	it("sets the exit status: 0 valid, 1 invalid, 2 usage", () => {
		expect(run("validate", "examples/skills/csv-profile").status).toBe(0);
		expect(run("validate", "examples/broken/duplicate-keys").status).toBe(1);
		const usage = run("validate");
		expect([usage.status, usage.stdout]).toEqual([2, ""]);
		expect(usage.stderr).toContain("Run 'skillset validate --help' for usage.");
	});

	it("writes the JSON result to stdout only", () => {
		const result = run("validate", "--json", "examples/skills/release-notes");
		expect(result.stderr).toBe("");
		expect(JSON.parse(result.stdout)[0].skill.name).toBe("release-notes");
	});
});
