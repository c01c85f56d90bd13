import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

let root: string;
let good: string;
let bad: string;
let workbuddy: string;

beforeAll(async () => {
	root = await tempDir();
	good = join(root, "good-skill");
	bad = join(root, "bad-skill");
	workbuddy = join(root, "wb-skill");
	await writeTree(good, { "SKILL.md": "---\nname: good-skill\ndescription: Fine.\nmodel: opus\n---\nSteps.\n" });
	await writeTree(bad, { "SKILL.md": "---\nname: Bad-Skill\ndescription: Broken name.\n---\nSteps.\n" });
	await writeTree(workbuddy, { "SKILL.md": "---\ntitle: WB\nsummary: Works.\nread_when: [asked]\n---\nSteps.\n" });
});

describe("skillset validate", () => {
	it("prints path:line:col  severity  code  message, and a summary", async () => {
		const run = await cli(["validate", bad]);
		expect(run.exitCode).toBe(1);
		const lines = run.stdout.trimEnd().split("\n");
		expect(lines[0]).toBe(
			`${join(bad, "SKILL.md")}:2:7  error  name.uppercase  Skill name 'Bad-Skill' must be lowercase`,
		);
		expect(lines[1]).toMatch(/^ {4}hint: /);
		expect(lines.at(-1)).toBe("1 skill checked: 0 valid, 1 invalid (2 errors)");
		expect(run.stderr).toBe("");
	});

	it("exits 0 when every path is valid and says ok for clean skills", async () => {
		const run = await cli(["validate", "--allow-field", "model", good]);
		expect([run.exitCode, run.stdout]).toEqual([
			0,
			`${join(good, "SKILL.md")}  ok\n1 skill checked: 1 valid, 0 invalid\n`,
		]);
	});

	it("exits 1 when any path is invalid, reporting all of them", async () => {
		const run = await cli(["validate", good, bad, join(root, "missing")]);
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toContain("field.unknown");
		expect(run.stdout).toContain("path.not-found");
		expect(run.stdout).toMatch(/2 skills checked: 0 valid, 2 invalid; 1 path named no skill/);
	});

	it("reports without failing with --exit-zero", async () => {
		const run = await cli(["validate", "--exit-zero", bad]);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("name.uppercase");
	});

	it("understands extension sets and the lenient profile", async () => {
		expect((await cli(["validate", "--allow-fields", "claude-code", good])).exitCode).toBe(0);
		expect((await cli(["validate", "--allow-fields", "workbuddy", workbuddy])).exitCode).toBe(1);
		expect((await cli(["validate", "--profile", "lenient", workbuddy, bad, good])).exitCode).toBe(0);
	});

	it("prints one JSON array with --json", async () => {
		const run = await cli(["validate", "--json", "--profile", "lenient", bad]);
		const [result] = JSON.parse(run.stdout);
		expect(result).toMatchObject({
			path: bad,
			file: join(bad, "SKILL.md"),
			valid: true,
			profile: "lenient",
			skill: { name: "bad-skill", declaredName: "Bad-Skill", description: "Broken name." },
		});
		expect(result.diagnostics[0]).toEqual({
			code: "name.uppercase",
			severity: "warning",
			message: "Skill name 'Bad-Skill' must be lowercase",
			file: join(bad, "SKILL.md"),
			line: 2,
			column: 7,
			field: "name",
			hint: expect.any(String),
		});
	});

	it.each([
		[["validate"], "validate needs at least one PATH"],
		[["validate", "--profile", "loose", "x"], "--profile must be strict or lenient"],
		[["validate", "--allow-fields", "cursor", "x"], "--allow-fields takes"],
		// A mistyped flag or command gets its usage line instead (issue 20): test/cli/usage-hints.test.ts.
		[[], "no command given"],
	])("exits 2 with one line naming the mistake and a pointer to --help for %j (issue 9)", async (argv, message) => {
		const run = await cli(argv);
		expect(run.exitCode).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).not.toContain("Usage: skillset");
		const [first, second, ...rest] = run.stderr.split("\n");
		expect(first).toMatch(/^skillset: /);
		expect(first).toContain(message);
		expect(second).toMatch(/^Run 'skillset (validate )?--help' for usage\.$/);
		expect(rest.join("")).toBe("");
	});

	it("prints a command's help with 'skillset help COMMAND' and the version with -V (issue 9)", async () => {
		const help = await cli(["help", "validate"]);
		expect([help.exitCode, help.stdout]).toEqual([0, (await cli(["validate", "--help"])).stdout]);
		expect(help.stdout).toContain("Usage: skillset validate");
		expect((await cli(["-V"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
		expect((await cli(["help", "nope"])).exitCode).toBe(2);
	});

	it("prints help on stdout and exits 0", async () => {
		const run = await cli(["validate", "--help"]);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("--allow-fields SET");
		expect((await cli(["--help"])).stdout).toContain("validate");
		expect((await cli(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
	});

	it("colours only on a terminal and never with NO_COLOR", async () => {
		const tty = await cli(["validate", bad], { isTTY: true });
		expect(tty.stdout).toContain("\u001b[31merror\u001b[39m");
		const noColor = await cli(["validate", bad], { isTTY: true, env: { NO_COLOR: "1" } });
		expect(noColor.stdout).not.toContain("\u001b[");
		expect((await cli(["validate", bad])).stdout).not.toContain("\u001b[");
	});
});
