import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { validateSkillMd } from "skillset";
import { describe, expect, it } from "vitest";
import { docsText } from "./helpers/docs-pages.ts";

// The documentation's samples (README and docs/) are checked against what the project itself says of them.
const ROOT = join(import.meta.dirname, "..");
const readme = docsText();

function fenced(language: string): string[] {
	return [...readme.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1] ?? "");
}

/** JSON with `//` comments (outside strings) removed. */
function stripJsonComments(text: string): string {
	return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*/g, (_, string: string | undefined) => string ?? "");
}

describe("README samples", () => {
	it("has a permissions example that parses as a manifest without diagnostics", () => {
		const [block] = fenced("yaml").filter((text) => text.startsWith("permissions:"));
		expect(block).toBeDefined();
		const source = `---\nname: demo\ndescription: Demo.\n${block}---\nBody.\n`;
		const checked = validateSkillMd(source, { profile: "strict", allowExtensions: ["workbuddy"] });
		expect(checked.diagnostics).toEqual([]);
		expect(checked.properties?.manifest?.paths?.write).toEqual(["out/"]);
	});

	it("shows `validate --json` output exactly as the command prints it", () => {
		const [sample] = fenced("jsonc").filter((text) => text.includes('"profile": "strict"'));
		const documented = JSON.parse(stripJsonComments(sample ?? ""));
		const printed = execFileSync(
			process.execPath,
			[
				join(ROOT, "dist/cli/bin.cjs"),
				"validate",
				"examples/skills/pr-review",
				"--allow-fields",
				"claude-code",
				"--json",
			],
			{ cwd: ROOT, encoding: "utf8" },
		);
		expect(documented).toEqual(JSON.parse(printed));
	});
});
