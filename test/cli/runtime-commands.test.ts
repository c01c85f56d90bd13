import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let workspace: string;
const env = () => ({ HOME: join(workspace, "no-home") });

beforeAll(async () => {
	workspace = join(await tempDir(), "ws");
	await writeTree(workspace, {
		".agents/skills/guide/SKILL.md": skillMd("guide", "Guides you.", "depends_on: [base]"),
		".agents/skills/guide/references/notes.md": "one\ntwo\nthree\n",
		".agents/skills/base/SKILL.md": skillMd("base", "The basics."),
		".agents/skills/manual/SKILL.md": skillMd("manual", "By hand.", "disable-model-invocation: true"),
	});
});

describe("skillset show", () => {
	it("prints the activation blocks, dependencies first", async () => {
		const run = await cli(["show", "guide", workspace], { env: env() });
		expect(run.exitCode).toBe(0);
		expect(run.stdout.indexOf('<skill_content name="base">')).toBe(0);
		expect(run.stdout).toContain('<skill_content name="guide">\n# guide\n\nSteps.\n\nBase directory for this skill:');
		expect(run.stdout).toContain("<file>references/notes.md</file>");
	});

	it("refuses with exit 1, and shows user-only skills with --as user", async () => {
		const refused = await cli(["show", "manual", workspace], { env: env() });
		expect([refused.exitCode, refused.stdout, refused.stderr]).toEqual([
			1,
			"",
			"'manual' can only be invoked by the user\n",
		]);
		expect((await cli(["show", "manual", workspace, "--as", "user"], { env: env() })).exitCode).toBe(0);
		const unknown = JSON.parse((await cli(["show", "gide", workspace, "--json"], { env: env() })).stdout);
		expect(unknown).toMatchObject({ ok: false, code: "unknown", closest: ["guide"] });
	});
});

describe("skillset read", () => {
	it("reads a page of a file and refuses paths outside the skill", async () => {
		const page = await cli(["read", "guide", "references/notes.md", workspace, "--offset", "2", "--limit", "1"], {
			env: env(),
		});
		expect(page.stdout).toBe("two\n\n[1 more lines: read again with offset=3]\n");
		const outside = await cli(["read", "guide", "../base/SKILL.md", workspace], { env: env() });
		expect(outside.exitCode).toBe(1);
		expect((await cli(["read", "guide", "x", workspace, "--offset", "0"], { env: env() })).exitCode).toBe(2);
	});

	it("cuts a line longer than a page and continues it with --offset and --column", async () => {
		await writeFile(join(workspace, ".agents/skills/guide/references/wide.txt"), `${"a".repeat(60_000)}b\nend\n`);
		const first = await cli(["read", "guide", "references/wide.txt", workspace], { env: env() });
		expect(first.stdout.length).toBeLessThan(50_200);
		expect(first.stdout).toMatch(/\[line 1 is cut after character 49999 of 60001 .*offset=1 column=50000\]\n$/);
		const rest = await cli(["read", "guide", "references/wide.txt", workspace, "--offset", "1", "--column", "50000"], {
			env: env(),
		});
		expect(rest.stdout).toBe(`${"a".repeat(10_001)}b\nend\n`);
	});
});

describe("skillset lock", () => {
	it("writes the lock, verifies it, and catches a changed file, also in show --verify", async () => {
		const written = await cli(["lock", workspace], { env: env() });
		expect(written.exitCode).toBe(0);
		expect(written.stdout).toContain(`3 skills locked in ${join(workspace, "skills.lock.json")}`);
		expect((await cli(["lock", workspace, "--verify"], { env: env() })).exitCode).toBe(0);
		await writeFile(join(workspace, ".agents/skills/guide/references/notes.md"), "tampered\n");
		const verify = await cli(["lock", workspace, "--verify", "--json"], { env: env() });
		expect(verify.exitCode).toBe(1);
		expect(JSON.parse(verify.stdout).skills).toContainEqual({
			name: "guide",
			status: "changed",
			changed: ["references/notes.md"],
			extra: [],
			missing: [],
		});
		const show = await cli(["show", "guide", workspace, "--verify"], { env: env() });
		expect(show.exitCode).toBe(1);
		expect(show.stderr).toContain("does not match");
		expect((await cli(["read", "guide", "references/notes.md", workspace, "--verify"], { env: env() })).exitCode).toBe(
			1,
		);
	});

	it("asks for a lock file that exists", async () => {
		const run = await cli(["show", "guide", workspace, "--verify", "--lock", join(workspace, "none.json")], {
			env: env(),
		});
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain("run 'skillset lock' first");
	});
});
