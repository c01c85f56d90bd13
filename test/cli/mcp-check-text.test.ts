// `skillset mcp --check` prints what a skill's files are called (a left-out skill's message names the entry that
// broke a rule, and its SKILL.md path): names an attacker chose reach the terminal only as visible text.
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

const TITLE = "\u001b]0;PWNED\u0007";
let base: string;

beforeAll(async () => {
	base = await tempDir();
	await writeTree(join(base, "home"), { ".keep": "" });
	await writeTree(join(base, "skills"), {
		"planted/SKILL.md": skillMd("planted", "Plants a link. Use when testing what --check prints."),
	});
	// A link in the skill folder leaves the skill out, and the message names the link as it is called.
	symlinkSync("/etc/passwd", join(base, "skills", "planted", `x${TITLE}y`));
});

describe("mcp --check output", () => {
	it("shows control characters in a left-out skill's message as visible escapes", async () => {
		const root = join(base, "skills");
		const check = await runBuilt(["mcp", root, "--no-default-roots", "--root", root, "--check"], {
			cwd: base,
			env: { HOME: join(base, "home"), SKILLSET_NO_CACHE: "1" },
		});
		expect(check.stdout).toContain("left out");
		expect(check.stdout).toContain("planted");
		expect(check.stdout).not.toContain("\u001b");
		expect(check.stdout).not.toContain("\u0007");
		expect(check.stdout).toContain("\\x1b]0;PWNED");
	});
});
