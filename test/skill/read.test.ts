import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import {
	pickSkillFileName,
	type ReadSkill,
	type ReadSkillOptions,
	readSkillBody,
	readSkillFrontmatter,
	readSkillMd,
	validateSkillPath,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { readSkillFrontmatterSync } from "../../src/skill/index.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

const SKILL = "---\nname: NAME\ndescription: A test skill.\n---\n# Body\n";
const skillText = (name: string) => SKILL.replace("NAME", name);

let root: string;
beforeAll(async () => {
	root = await tempDir();
});

describe("pickSkillFileName", () => {
	it.each([
		[["README.md", "SKILL.md", "skill.md"], { name: "SKILL.md", exact: true }],
		[["skill.md", "Skill.md"], { name: "skill.md", exact: false }],
		[["Skill.md", "SKILL.MD"], { name: "SKILL.MD", exact: false }],
		[["README.md", "skills.md"], undefined],
	])("picks from %j", (names, picked) => {
		expect(pickSkillFileName(names)).toEqual(picked);
	});
});

describe("validateSkillPath", () => {
	it("accepts a skill directory or the SKILL.md inside it", async () => {
		const dir = join(root, "by-path", "my-skill");
		await writeTree(dir, { "SKILL.md": skillText("my-skill") });
		expect((await validateSkillPath(dir)).valid).toBe(true);
		const byFile = await validateSkillPath(join(dir, "SKILL.md"));
		expect([byFile.valid, byFile.file]).toEqual([true, join(dir, "SKILL.md")]);
	});

	it("accepts other spellings of SKILL.md with an entry.case warning", async () => {
		const dir = join(root, "cases", "my-skill");
		await writeTree(dir, { "Skill.md": skillText("my-skill") });
		const result = await validateSkillPath(dir);
		expect(result.valid).toBe(true);
		expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([["entry.case", "warning"]]);
	});

	it("reports a missing path, a non-skill file, and a directory without SKILL.md", async () => {
		await writeTree(root, { "notes.txt": "hello", "empty/.keep": "" });
		const codes = async (path: string) => (await validateSkillPath(path)).diagnostics.map((d) => d.code);
		expect(await codes(join(root, "nope"))).toEqual(["path.not-found"]);
		expect(await codes(join(root, "notes.txt"))).toEqual(["path.not-directory"]);
		expect(await codes(join(root, "empty"))).toEqual(["file.missing"]);
	});

	it("reports a SKILL.md that is not a regular file", async () => {
		await mkdir(join(root, "dir-file", "SKILL.md"), { recursive: true });
		const result = await validateSkillPath(join(root, "dir-file"));
		expect(result.diagnostics.map((d) => d.code)).toEqual(["file.unreadable"]);
	});

	it("follows a symlinked SKILL.md when validating one skill by hand", async () => {
		const dir = join(root, "linked", "my-skill");
		await writeTree(dir, { "real.md": skillText("my-skill") });
		await symlink(join(dir, "real.md"), join(dir, "SKILL.md"));
		expect((await validateSkillPath(dir)).valid).toBe(true);
	});

	it("checks the size from the file system before reading", async () => {
		const dir = join(root, "huge", "my-skill");
		await writeTree(dir, { "SKILL.md": `${skillText("my-skill")}${"x".repeat(300 * 1024)}` });
		expect((await validateSkillPath(dir)).diagnostics.map((d) => d.code)).toEqual(["file.too-large"]);
		expect((await validateSkillPath(dir, { maxFileBytes: 1 << 20 })).valid).toBe(true);
	});
});

describe("readSkillFrontmatter", () => {
	it("reads only up to the closing fence, leaving the body on disk", async () => {
		const file = join(root, "prefix", "SKILL.md");
		// A NUL deep in the body would make a whole-file parse call this a binary file.
		const body = `${"Instructions.\n".repeat(2000)}\u0000`;
		await writeTree(join(root, "prefix"), { "SKILL.md": `${skillText("prefix")}${body}` });
		const head = await readSkillFrontmatter(file);
		expect(head.diagnostics).toEqual([]);
		expect(head.frontmatter?.data.name).toBe("prefix");
		expect(head.body).toBeUndefined();
		expect((await readSkillMd(file)).diagnostics.map((d) => d.code)).toEqual(["file.binary"]);
	});

	it("reads frontmatter larger than the first chunk", async () => {
		const description = "word ".repeat(3000).trim();
		await writeTree(join(root, "long"), { "SKILL.md": `---\nname: long\ndescription: ${description}\n---\nBody\n` });
		const head = await readSkillFrontmatter(join(root, "long", "SKILL.md"), { profile: "lenient" });
		expect(head.frontmatter?.data.description).toBe(description);
	});

	it("takes a closing fence at the very end of the file after several chunks, read either way", async () => {
		// No newline after the closing fence: it counts only once the read knows it has the whole file.
		const description = "word ".repeat(3000).trim();
		await writeTree(join(root, "tail"), { "SKILL.md": `---\nname: tail\ndescription: ${description}\n---` });
		const file = join(root, "tail", "SKILL.md");
		for (const head of [await readSkillFrontmatter(file), readSkillFrontmatterSync(file)]) {
			expect(head.diagnostics.map((d) => d.code)).toEqual([]);
			expect(head.frontmatter?.data.description).toBe(description);
			expect(head.signature?.size).toBe(head.size);
		}
	});
});

// Discovery reads with the synchronous driver, `skillset validate` with the asynchronous one: every refusal is
// checked through both, so neither can drift from the rule the other keeps.
const DRIVERS: [string, (file: string, options?: ReadSkillOptions) => Promise<ReadSkill>][] = [
	["async", readSkillFrontmatter],
	["sync", async (file, options) => readSkillFrontmatterSync(file, options)],
];

describe.each(DRIVERS)("readSkillFrontmatter's refusals (%s driver)", (driver, readHead) => {
	const codes = (head: ReadSkill) => head.diagnostics.map((d) => d.code);

	it("refuses a SKILL.md that is not a regular file", async () => {
		await mkdir(join(root, `not-a-file-${driver}`, "SKILL.md"), { recursive: true });
		const head = await readHead(join(root, `not-a-file-${driver}`, "SKILL.md"));
		expect([codes(head), head.frontmatter]).toEqual([["file.unreadable"], null]);
	});

	it("refuses a file over the size cap from its size on disk", async () => {
		const dir = join(root, `huge-${driver}`);
		await writeTree(dir, { "SKILL.md": `${skillText("huge")}${"x".repeat(300 * 1024)}` });
		const head = await readHead(join(dir, "SKILL.md"));
		expect([codes(head), head.frontmatter, head.size]).toEqual([["file.too-large"], null, 300 * 1024 + 53]);
		expect(codes(await readHead(join(dir, "SKILL.md"), { maxFileBytes: 1 << 20 }))).toEqual([]);
	});

	it("stops at the frontmatter cap when no closing fence comes", async () => {
		const dir = join(root, `endless-${driver}`);
		await writeTree(dir, { "SKILL.md": `---\nname: x\n${"k: v\n".repeat(30000)}` });
		const head = await readHead(join(dir, "SKILL.md"), { maxFileBytes: 1 << 20 });
		expect([codes(head), head.frontmatter]).toEqual([["frontmatter.too-large"], null]);
	});

	it("reports I/O errors as diagnostics", async () => {
		const head = await readHead(join(root, "absent", "SKILL.md"));
		expect([codes(head), head.frontmatter, head.signature]).toEqual([["file.unreadable"], null, undefined]);
	});

	it("with noFollow, refuses a SKILL.md that is a link instead of reading where it leads", async () => {
		const dir = join(root, `linked-${driver}`);
		await writeTree(dir, { "elsewhere.md": skillText("elsewhere") });
		await symlink(join(dir, "elsewhere.md"), join(dir, "SKILL.md"));
		const refused = await readHead(join(dir, "SKILL.md"), { noFollow: true });
		expect([codes(refused), refused.frontmatter, refused.symlink]).toEqual([["file.unreadable"], null, true]);
		expect(refused.diagnostics[0]?.message).toContain("symbolic link");
		// Without it the link is followed, as `skillset validate` of one skill by hand does.
		expect((await readHead(join(dir, "SKILL.md"))).frontmatter?.data.name).toBe("elsewhere");
	});
});

describe("readSkillBody", () => {
	it("reads the body from the offset the frontmatter read gave", async () => {
		const file = join(root, "body", "SKILL.md");
		await writeTree(join(root, "body"), {
			"SKILL.md": "---\nname: body\ndescription: d\n---\n\n# Steps ✓\n\n1. Go.\n",
		});
		const head = await readSkillFrontmatter(file);
		const location = { bodyOffset: head.bodyOffset ?? 0, bodyLine: head.bodyLine ?? 1 };
		expect(await readSkillBody(file, location)).toEqual({ body: "# Steps ✓\n\n1. Go.", diagnostics: [] });
	});
});
