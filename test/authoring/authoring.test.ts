import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createSkill, estimateTokenizer, lintSkills, validateSkillPath } from "skillset";
import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

describe("createSkill", () => {
	it("writes a strictly valid skill, marking agent-created ones", async () => {
		const root = join(await tempDir(), "skills");
		const made = await createSkill({
			root,
			name: "report-digest",
			description: "Summarises weekly reports. Use when asked for a digest.",
			agentCreated: true,
		});
		expect(made).toMatchObject({ ok: true, dir: join(root, "report-digest") });
		const text = await readFile(join(root, "report-digest", "SKILL.md"), "utf8");
		expect(text).toContain("agent_created: true");
		expect((await validateSkillPath(join(root, "report-digest"), { allowExtensions: ["workbuddy"] })).valid).toBe(true);
		expect((await readdir(root)).filter((name) => name.startsWith("."))).toEqual([]);
	});

	it("never overwrites an existing skill and refuses invalid names", async () => {
		const root = join(await tempDir(), "skills");
		await writeTree(root, { "taken/SKILL.md": "mine" });
		const description = "Takes a name. Use when testing.";
		expect(await createSkill({ root, name: "taken", description })).toMatchObject({ ok: false, code: "exists" });
		expect(await readFile(join(root, "taken", "SKILL.md"), "utf8")).toBe("mine");
		expect(await createSkill({ root, name: "Bad Name" })).toMatchObject({ ok: false, code: "invalid-name" });
	});

	it("creates one skill when two callers race for the same name", async () => {
		const root = join(await tempDir(), "skills");
		const results = await Promise.all(
			Array.from({ length: 4 }, () => createSkill({ root, name: "racy", description: "Races. Use when testing." })),
		);
		expect(results.filter((r) => r.ok)).toHaveLength(1);
		expect(await readdir(root)).toEqual(["racy"]);
	});
});

describe("lintSkills", () => {
	const tokenizer = estimateTokenizer;

	it("checks body length, the description's when, the reference graph and overlaps", async () => {
		const root = await tempDir();
		await writeTree(root, {
			"long/SKILL.md": `---\nname: long\ndescription: Formats quarterly finance tables. Use when the user shares a finance table.\n---\n${"step\n".repeat(600)}See [x](references/missing.md).\n`,
			"vague/SKILL.md": skillMd("vague", "Handles documents and files in many formats for the team every day."),
			"tiny/SKILL.md": skillMd("tiny", "Helps."),
			"twin-a/SKILL.md": skillMd(
				"twin-a",
				"Deploys the web application to the staging cluster. Use when asked to ship to staging.",
			),
			"twin-b/SKILL.md": skillMd(
				"twin-b",
				"Deploys the web application to the staging cluster. Use when asked to ship it to staging.",
			),
		});
		const results = await lintSkills(
			["long", "vague", "tiny", "twin-a", "twin-b"].map((d) => join(root, d)),
			{ tokenizer },
		);
		const codes = Object.fromEntries(results.map((r) => [r.name, r.diagnostics.map((d) => d.code)]));
		expect(codes.long).toEqual(expect.arrayContaining(["lint.body-lines", "refs.missing"]));
		expect(codes.vague).toEqual(["lint.description-when"]);
		expect(codes.tiny).toEqual(["lint.description-short"]);
		// Each pair once: on the second skill of the pair, naming the first and where it is.
		const overlaps = results.flatMap((r) => r.diagnostics.filter((d) => d.code === "lint.overlap"));
		expect(overlaps).toHaveLength(1);
		expect(codes["twin-a"]).toEqual([]);
		expect(overlaps[0]?.file).toBe(join(root, "twin-b", "SKILL.md"));
		expect(overlaps[0]?.message).toMatch(/^'twin-b' and 'twin-a' \(.*twin-a.SKILL\.md\) have descriptions \d+% alike/);
	});

	it("lints the examples without a spec error, the WorkBuddy-style one included", async () => {
		const examples = join(import.meta.dirname, "..", "..", "examples", "skills");
		const results = await lintSkills(
			["csv-profile", "meeting-brief", "pr-review", "release-notes"].map((d) => join(examples, d)),
			{ tokenizer },
		);
		const errors = Object.fromEntries(
			results.map((r) => [
				r.path.split("/").at(-1),
				r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code),
			]),
		);
		expect(errors).toEqual({
			"csv-profile": [],
			"meeting-brief": [],
			"pr-review": [],
			"release-notes": [],
		});
	});
});
