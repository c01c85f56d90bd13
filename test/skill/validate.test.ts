import fc from "fast-check";
import { checkSkillName, isValidSkillName, normalizeSkillName, splitToolList, validateSkillMd } from "skillset";
import { describe, expect, it } from "vitest";

type Options = Parameters<typeof validateSkillMd>[1];

function skill(frontmatter: string, body = "Do the thing.") {
	return `---\n${frontmatter}\n---\n${body}\n`;
}

function check(frontmatter: string, options: Options = {}) {
	const result = validateSkillMd(skill(frontmatter), { dirName: "my-skill", ...options });
	const byCode = Object.fromEntries(result.diagnostics.map((d) => [d.code, d.severity]));
	return { ...result, byCode };
}

describe("validateSkillMd (strict)", () => {
	it.each([
		["a trailing hyphen", "name: my-skill-", "name.hyphen-edge"],
		["a space", "name: my skill", "name.invalid-chars"],
		["a dot", "name: my.skill", "name.invalid-chars"],
		["an emoji", "name: my-skill-😀", "name.invalid-chars"],
		["a combining mark", "name: नमस्ते", "name.invalid-chars"],
		["a slash", "name: my/skill", "name.unsafe-chars"],
		["a backslash", 'name: "my\\\\skill"', "name.unsafe-chars"],
		["a NUL", 'name: "my\\0skill"', "name.unsafe-chars"],
		["an empty name", "name: ''", "name.empty"],
		["a blank name", "name: '   '", "name.empty"],
		["a list as name", "name:\n  - a", "name.not-string"],
		["a case-only mismatch", "name: my-Skill", "name.uppercase"],
		["a titlecase Cyrillic name", "name: Навык", "name.uppercase"],
	])("rejects a name with %s", (_what, frontmatter, code) => {
		const result = check(`${frontmatter}\ndescription: d`);
		expect(result.valid).toBe(false);
		expect(result.byCode[code]).toBe("error");
	});

	it.each([
		["64 code points", "a".repeat(64), true],
		["65 code points", "a".repeat(65), false],
		["64 CJK characters (192 UTF-8 bytes)", "技".repeat(64), true],
		["64 astral letters (128 UTF-16 units)", "𝒶".repeat(64), true],
	])("counts name length in code points: %s", (_what, name, valid) => {
		const normalized = normalizeSkillName(name);
		const result = check(`name: ${name}\ndescription: d`, { dirName: normalized });
		expect(result.byCode["name.too-long"]).toBe(valid ? undefined : "error");
	});

	it.each([
		[1024, true],
		[1025, false],
	])("counts description length in code points (%i emoji)", (count, valid) => {
		const result = check(`name: my-skill\ndescription: ${"😀".repeat(count)}`);
		expect(result.valid).toBe(valid);
		if (!valid) expect(result.byCode["description.too-long"]).toBe("error");
	});

	it.each([
		["é", 500, undefined],
		["é", 501, "error"],
		// Two UTF-16 units each: 500 of them are 1,000 units and still within the limit.
		["😀", 500, undefined],
		["😀", 501, "error"],
	])("limits compatibility to 500 code points (%s × %i)", (char, count, severity) => {
		const result = check(`name: my-skill\ndescription: d\ncompatibility: ${char.repeat(count)}`);
		expect(result.byCode["compatibility.too-long"]).toBe(severity);
		const message = result.diagnostics.find((d) => d.code === "compatibility.too-long")?.message;
		expect(message).toBe(severity && `Compatibility exceeds 500 character limit (${count} chars)`);
	});

	it("matches names to directories after trim and NFKC", () => {
		expect(check("name: ｍｙ-ｓｋｉｌｌ\ndescription: d").valid).toBe(true);
		expect(check("name: '  my-skill  '\ndescription: d").valid).toBe(true);
		expect(check("name: a²\ndescription: d", { dirName: "a2" }).valid).toBe(true);
		expect(check("name: café\ndescription: d", { dirName: "café" }).valid).toBe(true);
	});

	it("accepts Unicode lowercase names with an info note about portability", () => {
		const result = check("name: 技能-审查\ndescription: d", { dirName: "技能-审查" });
		expect(result.valid).toBe(true);
		expect(result.byCode["name.non-ascii"]).toBe("info");
	});

	it("reads scalars as the reference validator does: as their source text", () => {
		expect(check("name: 123\ndescription: 1.0", { dirName: "123" }).properties).toMatchObject({
			name: "123",
			description: "1.0",
		});
		const metadata = check('name: my-skill\ndescription: d\nmetadata:\n  version: 1.0\n  beta: true\n  n: "2"')
			.properties?.metadata;
		expect({ ...metadata }).toEqual({ version: "1.0", beta: "true", n: "2" });
	});

	it("rejects fields outside the spec unless allowed", () => {
		const frontmatter = "name: my-skill\ndescription: d\nmodel: opus\ncustom: x";
		expect(
			check(frontmatter)
				.diagnostics.filter((d) => d.code === "field.unknown")
				.map((d) => d.field),
		).toEqual(["model", "custom"]);
		expect(check(frontmatter, { allowExtensions: ["claude-code"], allowFields: ["custom"] }).valid).toBe(true);
		expect(check(frontmatter, { allowExtensions: ["workbuddy"] }).valid).toBe(false);
	});

	it("type-checks allowed extension fields", () => {
		const result = check("name: my-skill\ndescription: d\ndisable-model-invocation: sometimes", {
			allowExtensions: ["claude-code"],
		});
		expect(result.byCode["field.type"]).toBe("error");
		const ok = check("name: my-skill\ndescription: d\ndisable-model-invocation: true", {
			allowExtensions: ["claude-code"],
		});
		expect(ok.properties?.disableModelInvocation).toBe(true);
	});

	it("warns, without failing, where the reference validator is looser than the spec", () => {
		const result = check(
			"name: my-skill\ndescription: d\nlicense:\n  - MIT\nmetadata:\n  tags:\n    - a\ncompatibility: ''\nallowed-tools:\n  - Read",
		);
		expect(result.valid).toBe(true);
		expect(result.byCode).toMatchObject({
			"license.not-string": "warning",
			"metadata.not-string-map": "warning",
			"compatibility.empty": "warning",
			"allowed-tools.list": "warning",
		});
	});

	it("reports every problem at the offending field's line and column", () => {
		const result = validateSkillMd(skill("description: d\nlicense: MIT\nname: Bad_Name\nextra: 1"), {
			dirName: "bad-name",
		});
		const places = result.diagnostics.map((d) => `${d.code}@${d.line}:${d.column}`);
		expect(places).toEqual([
			"name.uppercase@4:7",
			"name.invalid-chars@4:7",
			"name.dir-mismatch@4:7",
			"field.unknown@5:1",
		]);
	});

	it("warns about an empty body", () => {
		expect(validateSkillMd("---\nname: a\ndescription: d\n---\n\n", { dirName: "a" }).diagnostics).toMatchObject([
			{ code: "body.empty", severity: "warning", line: 5 },
		]);
	});
});

describe("validateSkillMd (lenient)", () => {
	const lenient = (frontmatter: string, options: Options = {}) =>
		check(frontmatter, { profile: "lenient", ...options });

	it("loads a skill whose name breaks the rules, under its directory name", () => {
		const result = lenient("name: My Skill\ndescription: d");
		expect(result.valid).toBe(true);
		expect(result.properties).toMatchObject({ name: "my-skill", declaredName: "My Skill" });
		expect(result.byCode).toMatchObject({ "name.uppercase": "warning", "name.fallback": "warning" });
	});

	it("keeps a valid declared name that differs from the directory, with a warning", () => {
		const result = lenient("name: other-name\ndescription: d");
		expect(result.properties?.name).toBe("other-name");
		expect(result.byCode["name.dir-mismatch"]).toBe("warning");
	});

	it("falls back to the directory name when the name is missing", () => {
		const result = lenient("description: d");
		expect(result.valid).toBe(true);
		expect(result.properties?.name).toBe("my-skill");
	});

	it.each([
		["missing", "name: my-skill", "description.missing"],
		["empty", "name: my-skill\ndescription: ''", "description.empty"],
		["a mapping", "name: my-skill\ndescription:\n  a: b", "description.not-string"],
	])("skips a skill whose description is %s", (_what, frontmatter, code) => {
		const result = lenient(frontmatter);
		expect(result.valid).toBe(false);
		expect(result.byCode[code]).toBe("error");
		expect(result.properties).toBeNull();
	});

	it("loads a long description with a warning", () => {
		expect(lenient(`name: my-skill\ndescription: ${"x".repeat(2000)}`).byCode["description.too-long"]).toBe("warning");
	});

	it("maps WorkBuddy title and summary, keeping a non-name title as display text", () => {
		const result = lenient(
			"title: My Skill\nsummary: Summarises things.\nread_when:\n  - asked to summarise\nagent_created: true\npermissions:\n  network: false\ndepends_on: other-skill",
		);
		expect(result.valid).toBe(true);
		expect(result.properties).toMatchObject({
			name: "my-skill",
			declaredName: "My Skill",
			description: "Summarises things.",
			readWhen: ["asked to summarise"],
			agentCreated: true,
			dependsOn: ["other-skill"],
			permissions: { network: false },
		});
		expect(result.byCode["field.mapped"]).toBe("info");
	});

	it("understands Claude Code fields, including yes/no booleans", () => {
		const result = lenient(
			"name: my-skill\ndescription: d\ndisable-model-invocation: yes\nuser-invocable: off\nargument-hint: '[file]'\nwhen_to_use: On Mondays.\nmodel: sonnet\nhooks:\n  PreToolUse: []",
		);
		expect(result.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
		expect(result.properties).toMatchObject({
			disableModelInvocation: true,
			userInvocable: false,
			argumentHint: "[file]",
			whenToUse: "On Mondays.",
			model: "sonnet",
		});
		expect(result.properties?.extra.hooks).toEqual({ PreToolUse: [] });
	});

	it("ignores an extension field of the wrong type with a warning", () => {
		const result = lenient("name: my-skill\ndescription: d\nuser-invocable: maybe");
		expect(result.valid).toBe(true);
		expect(result.byCode["field.type"]).toBe("warning");
		expect(result.properties?.userInvocable).toBeUndefined();
	});

	it("notes unknown fields as info and keeps them", () => {
		const result = lenient("name: my-skill\ndescription: d\nversion: 2");
		expect(result.byCode["field.unknown"]).toBe("info");
		expect(result.properties?.extra.version).toBe(2);
	});
});

describe("name helpers", () => {
	it.each([
		["pdf-processing", true],
		["data-analysis2", true],
		["PDF-Processing", false],
		["-pdf", false],
		["pdf--processing", false],
		["", false],
		[" padded", false],
	])("isValidSkillName(%j) is %s", (name, valid) => {
		expect(isValidSkillName(name)).toBe(valid);
	});

	it("reports the directory mismatch with the raw directory name", () => {
		expect(checkSkillName("a", "B")).toEqual([
			{ code: "name.dir-mismatch", message: "Directory name 'B' must match skill name 'a'" },
		]);
	});

	it("normalises as trim + NFKC and matches the folder by its NFKC form, ASCII or not", () => {
		const chars = [..."ab-Z09 \t_/\\\u0000\u007f\u00a0ﬁＡé\u0301Ⅸ①😀"];
		const text = fc.array(fc.constantFrom(...chars), { maxLength: 70 }).map((c) => c.join(""));
		fc.assert(
			fc.property(fc.oneof(text, fc.string({ unit: "binary", maxLength: 70 })), text, (raw, dir) => {
				const name = normalizeSkillName(raw);
				expect(name).toBe(raw.trim().normalize("NFKC"));
				const mismatch = checkSkillName(name, dir).some((p) => p.code === "name.dir-mismatch");
				expect(mismatch).toBe(dir.normalize("NFKC") !== name);
			}),
		);
	});

	it.each([
		["64 ASCII letters", "a".repeat(64), []],
		["65 ASCII letters", "a".repeat(65), ["name.too-long"]],
		["a letter outside ASCII", "café", []],
		["a symbol", "a_b", ["name.invalid-chars"]],
		["a slash", "a/b", ["name.unsafe-chars"]],
	])("checks %s", (_, name, codes) => {
		expect(checkSkillName(name).map((p) => p.code)).toEqual(codes);
	});
});

describe("splitToolList", () => {
	it.each([
		["Read Grep", ["Read", "Grep"]],
		["Bash(git commit:*) Read", ["Bash(git commit:*)", "Read"]],
		["Read, Write,Edit", ["Read", "Write", "Edit"]],
		["  Bash(jq:*)\n  Bash(git:*) ", ["Bash(jq:*)", "Bash(git:*)"]],
		["", []],
		["Bash(a, b) ) Read(", ["Bash(a, b)", ")", "Read("]],
		["A\u00a0B\u2003C\u3000D\ufeffE\u200bF", ["A", "B", "C", "D", "E\u200bF"]],
		["😀,Read ((x y) z)w", ["😀", "Read", "((x y) z)w"]],
	])("splits %j", (text, tools) => {
		expect(splitToolList(text)).toEqual(tools);
	});

	it("splits like the rule says: at commas and whitespace outside parentheses, empty entries dropped", () => {
		// The rule written the plainest way, one code point at a time, as the model to agree with.
		const model = (text: string): string[] => {
			const tools: string[] = [];
			let depth = 0;
			let current = "";
			for (const char of text) {
				if (char === "(") depth++;
				else if (char === ")") depth = Math.max(0, depth - 1);
				if (depth === 0 && (char === "," || /\s/.test(char))) {
					if (current) tools.push(current);
					current = "";
				} else current += char;
			}
			if (current) tools.push(current);
			return tools;
		};
		const chars = [..."ab(),: \t\n\r\v\f\u00a0\u1680\u2000\u200a\u2028\u202f\u205f\u3000\ufeff\u200b*😀"];
		const text = fc.array(fc.constantFrom(...chars), { maxLength: 30 }).map((c) => c.join(""));
		fc.assert(
			fc.property(fc.oneof(text, fc.string({ unit: "binary" })), (t) => {
				expect(splitToolList(t)).toEqual(model(t));
			}),
		);
	});
});
