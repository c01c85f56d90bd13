import { join } from "node:path";
import { type SkillCode, validateSkillPath } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const GOOD = "---\nname: NAME\ndescription: A skill that is fine.\n---\nSteps.\n";
const aliasBomb = [
	"---",
	"name: NAME",
	"description: d",
	"a: &a [x, x, x, x, x, x, x, x, x]",
	"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
	"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
	"d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
	"---",
	"",
].join("\n");

// One row per single-file row of DESIGN.md "Bad input": the file's bytes and the diagnostic it must produce.
const ROWS: ReadonlyArray<[string, string | Uint8Array, SkillCode]> = [
	[
		"invalid UTF-8",
		new Uint8Array([...encode("---\nname: NAME\ndescription: caf"), 0xc3, 0x28, ...encode("\n---\nx")]),
		"encoding.invalid-utf8",
	],
	["a BOM", `\uFEFF${GOOD}`, "encoding.bom"],
	["CRLF line endings", GOOD.replaceAll("\n", "\r\n"), "encoding.crlf"],
	["an empty file", "", "file.empty"],
	["no frontmatter", "# Just markdown\n", "frontmatter.missing"],
	["an unclosed frontmatter", "---\nname: NAME\ndescription: d\n# Body\n", "frontmatter.unclosed"],
	["a file over the cap", `${GOOD}${"x".repeat(257 * 1024)}`, "file.too-large"],
	[
		"frontmatter over the cap",
		`---\nname: NAME\ndescription: ${"d".repeat(65 * 1024)}\n---\n`,
		"frontmatter.too-large",
	],
	["deep flow nesting", `---\nname: NAME\ndescription: d\nx: ${"[".repeat(3000)}\n---\n`, "yaml.too-deep"],
	[
		"deep flow nesting, a second time",
		`---\nname: NAME\ndescription: d\ny: ${"{a: ".repeat(3000)}\n---\n`,
		"yaml.too-deep",
	],
	["an alias bomb", aliasBomb, "yaml.alias"],
	["duplicate keys", "---\nname: NAME\nname: other\ndescription: d\n---\n", "yaml.duplicate-key"],
	["a __proto__ key", "---\nname: NAME\ndescription: d\n__proto__:\n  admin: true\n---\n", "yaml.forbidden-key"],
	["non-mapping frontmatter", "---\n- name\n- description\n---\n", "frontmatter.not-mapping"],
	["several documents", "---\nname: NAME\n...\ndescription: d\n---\n", "yaml.multiple-documents"],
	["binary content", new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]), "file.binary"],
	["a name with a slash", "---\nname: a/b\ndescription: d\n---\nx\n", "name.unsafe-chars"],
	["a name with a backslash", '---\nname: "a\\\\b"\ndescription: d\n---\nx\n', "name.unsafe-chars"],
	["a name with NUL", '---\nname: "a\\0b"\ndescription: d\n---\nx\n', "name.unsafe-chars"],
];

describe("bad input", () => {
	let root: string;
	const dirs: string[] = [];
	beforeAll(async () => {
		root = await tempDir();
		for (const [index, [, content]] of ROWS.entries()) {
			const name = `bad-${index}`;
			const text = typeof content === "string" ? content.replaceAll("NAME", name) : content;
			await writeTree(join(root, name), { "SKILL.md": text });
			dirs.push(join(root, name));
		}
		await writeTree(join(root, "good"), { "SKILL.md": GOOD.replace("NAME", "good") });
	});

	it.each(ROWS.map(([what, , code], index) => [what, code, index] as const))(
		"%s gives %s under both profiles",
		async (_what, code, index) => {
			for (const profile of ["strict", "lenient"] as const) {
				const result = await validateSkillPath(dirs[index] ?? "", { profile });
				expect(result.diagnostics.map((d) => d.code)).toContain(code);
				for (const d of result.diagnostics) expect(d.message.length).toBeGreaterThan(0);
			}
		},
	);

	it("keeps --- inside a value, which never ends the frontmatter", async () => {
		await writeTree(join(root, "dashes"), { "SKILL.md": "---\nname: dashes\ndescription: a --- b\n---\nBody\n" });
		const result = await validateSkillPath(join(root, "dashes"));
		expect([result.valid, result.properties?.description]).toEqual([true, "a --- b"]);
	});

	it("reports every bad file and still validates the good one in the same run", async () => {
		const run = await cli(["validate", "--json", ...dirs, join(root, "good")]);
		expect(run.exitCode).toBe(1);
		const results = JSON.parse(run.stdout) as { path: string; valid: boolean }[];
		expect(results).toHaveLength(ROWS.length + 1);
		expect(results.at(-1)).toMatchObject({ path: join(root, "good"), valid: true });
	});
});
