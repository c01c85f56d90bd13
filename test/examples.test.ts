import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type SkillCode, validateSkillPath } from "skillset";
import { describe, expect, it } from "vitest";

const EXAMPLES = join(import.meta.dirname, "..", "examples");
const dirs = (folder: string) => readdirSync(join(EXAMPLES, folder)).map((name) => join(EXAMPLES, folder, name));

// What each broken example demonstrates: the error under strict, and under lenient (null: it loads).
const BROKEN: Readonly<Record<string, [SkillCode, SkillCode | null]>> = {
	"Uppercase-Name": ["name.uppercase", null],
	"unclosed-frontmatter": ["frontmatter.unclosed", "frontmatter.unclosed"],
	"colon-in-description": ["yaml.invalid", null],
	"missing-description": ["description.missing", "description.missing"],
	"duplicate-keys": ["yaml.duplicate-key", "yaml.duplicate-key"],
	"yaml-anchors": ["yaml.alias", "yaml.alias"],
	"name-mismatch-dir": ["name.dir-mismatch", null],
};

describe("examples", () => {
	it.each(dirs("skills"))("%s loads cleanly under the lenient profile", async (dir) => {
		const result = await validateSkillPath(dir, { profile: "lenient" });
		expect(result.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
	});

	it("are strictly valid with the extension sets allowed, the WorkBuddy one included", async () => {
		const verdicts: Record<string, boolean> = {};
		for (const dir of dirs("skills")) {
			const result = await validateSkillPath(dir, { allowExtensions: ["claude-code", "workbuddy"] });
			verdicts[dir.split("/").at(-1) ?? dir] = result.valid;
		}
		expect(verdicts).toEqual({ "csv-profile": true, "meeting-brief": true, "pr-review": true, "release-notes": true });
	});

	it("include a skill with scripts, references and assets", () => {
		const names = readdirSync(join(EXAMPLES, "skills", "release-notes"));
		expect(names).toEqual(expect.arrayContaining(["scripts", "references", "assets", "SKILL.md"]));
	});

	it("has a documented expectation for every broken example", () => {
		expect(readdirSync(join(EXAMPLES, "broken")).sort()).toEqual(Object.keys(BROKEN).sort());
	});

	it.each(Object.entries(BROKEN))("broken/%s shows its diagnostic", async (name, [strictCode, lenientCode]) => {
		const dir = join(EXAMPLES, "broken", name);
		const strict = await validateSkillPath(dir);
		expect(strict.valid).toBe(false);
		expect(strict.diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toContain(strictCode);
		const lenient = await validateSkillPath(dir, { profile: "lenient" });
		expect(lenient.valid).toBe(lenientCode === null);
		if (lenientCode) expect(lenient.diagnostics.map((d) => d.code)).toContain(lenientCode);
	});
});
