import { mkdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { type DiscoverOptions, discover } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let root: string;
const only = (path: string, extra: DiscoverOptions = {}): Promise<Awaited<ReturnType<typeof discover>>> =>
	discover({ cwd: root, home: join(root, "no-home"), defaultRoots: false, roots: [path], ...extra });
const codes = (diagnostics: readonly { code: string }[]) => diagnostics.map((d) => d.code);

beforeAll(async () => {
	root = await tempDir();
});

describe("the bounded walk", () => {
	it("finds skills in category folders and stops at a skill folder", async () => {
		const dir = join(root, "categories");
		await writeTree(dir, {
			"devops/deploy/SKILL.md": skillMd("deploy"),
			"devops/deploy/references/inner/SKILL.md": skillMd("inner"),
			"writing/docs/blog/SKILL.md": skillMd("blog"),
			"README.md": "# Not a skill",
		});
		const { index } = await only(dir);
		expect(index.names()).toEqual(["blog", "deploy"]);
	});

	it("reports a SKILL.md nested in a skill's own subfolder as info", async () => {
		const dir = join(root, "nested");
		await writeTree(dir, { "outer/SKILL.md": skillMd("outer"), "outer/sub/SKILL.md": skillMd("sub") });
		const { index, report } = await only(dir);
		expect(index.names()).toEqual(["outer"]);
		expect(report.diagnostics.map((d) => [d.code, d.severity])).toEqual([["entry.nested", "info"]]);
	});

	it("scans six levels below the root and reports what is deeper", async () => {
		const dir = join(root, "deep");
		await writeTree(dir, {
			"d1/d2/d3/d4/d5/six/SKILL.md": skillMd("six"),
			"d1/d2/d3/d4/d5/d6/seven/SKILL.md": skillMd("seven"),
		});
		const { index, report } = await only(dir);
		expect(index.names()).toEqual(["six"]);
		expect(codes(report.diagnostics)).toEqual(["walk.depth-limit"]);
		expect(report.roots[0]?.bounds.depth).toBe(true);
		expect((await only(dir, { limits: { maxDepth: 7 } })).index.names()).toEqual(["seven", "six"]);
	});

	it("stops at the folder and entry bounds with a diagnostic, the same way every time", async () => {
		const dir = join(root, "wide");
		const files: Record<string, string> = {};
		for (let i = 0; i < 30; i++)
			files[`s${String(i).padStart(2, "0")}/SKILL.md`] = skillMd(`s${String(i).padStart(2, "0")}`);
		await writeTree(dir, files);
		const dirs = await only(dir, { limits: { maxDirs: 11 } });
		expect(dirs.index.names()).toEqual(Array.from({ length: 10 }, (_, i) => `s${String(i).padStart(2, "0")}`));
		expect(codes(dirs.report.diagnostics)).toEqual(["walk.dir-limit"]);
		const entries = await only(dir, { limits: { maxEntries: 20 } });
		expect(codes(entries.report.diagnostics)).toEqual(["walk.entry-limit"]);
		expect(entries.report.roots[0]?.bounds.entries).toBe(true);
	});

	it("skips .git, node_modules and hidden folders, saying which hidden ones", async () => {
		const dir = join(root, "hidden");
		await writeTree(dir, {
			"visible/SKILL.md": skillMd("visible"),
			".curated/secret/SKILL.md": skillMd("secret"),
			"node_modules/pkg/SKILL.md": skillMd("pkg"),
			".git/hooks/SKILL.md": skillMd("hooks"),
		});
		const { index, report } = await only(dir);
		expect(index.names()).toEqual(["visible"]);
		expect(report.diagnostics.map((d) => [d.code, d.message])).toEqual([
			["walk.hidden-skipped", "Hidden folders were not scanned: .curated"],
		]);
		expect((await only(join(dir, ".curated"))).index.names()).toEqual(["secret"]);
	});

	it("accepts other spellings of SKILL.md with a warning", async () => {
		const dir = join(root, "case");
		await writeTree(dir, { "lower/skill.md": skillMd("lower"), "mixed/Skill.md": skillMd("mixed") });
		const { index } = await only(dir);
		expect(index.names()).toEqual(["lower", "mixed"]);
		expect(index.skills.map((s) => codes(s.diagnostics))).toEqual([["entry.case"], ["entry.case"]]);
	});

	it("treats a root that is itself a skill folder as that one skill", async () => {
		const dir = join(root, "single", "solo");
		await writeTree(dir, { "SKILL.md": skillMd("solo") });
		expect((await only(dir)).index.names()).toEqual(["solo"]);
	});

	it("reports an explicit root that does not exist, and one that is a file", async () => {
		await writeTree(root, { "plain-file": "x" });
		expect(codes((await only(join(root, "absent"))).report.diagnostics)).toEqual(["root.missing"]);
		expect(codes((await only(join(root, "plain-file"))).report.diagnostics)).toEqual(["root.not-directory"]);
	});
});

describe("links", () => {
	it("follows a folder link to outside the root and records the real path", async () => {
		const outside = join(root, "elsewhere", "linked");
		await writeTree(outside, { "SKILL.md": skillMd("linked") });
		const dir = join(root, "with-link");
		await mkdir(dir, { recursive: true });
		await symlink(outside, join(dir, "linked"));
		const [skill] = (await only(dir)).index.skills;
		expect([skill?.name, skill?.file, skill?.realFile]).toEqual([
			"linked",
			join(dir, "linked", "SKILL.md"),
			join(outside, "SKILL.md"),
		]);
	});

	it("loads a skill reached through a sibling link once, by its real folder", async () => {
		const dir = join(root, "siblings");
		await writeTree(dir, { "real/SKILL.md": skillMd("real") });
		await symlink(join(dir, "real"), join(dir, "alias"));
		const { index, report } = await only(dir);
		expect(index.skills.map((s) => s.file)).toEqual([join(dir, "real", "SKILL.md")]);
		expect(codes(report.diagnostics)).toEqual(["entry.duplicate-path"]);
	});

	it("does not loop on a link cycle", async () => {
		const dir = join(root, "loop");
		await writeTree(dir, { "a/b/SKILL.md": skillMd("b") });
		await symlink(dir, join(dir, "a", "back"));
		const { index, report } = await only(dir);
		expect(index.names()).toEqual(["b"]);
		expect(codes(report.diagnostics)).toEqual(["walk.symlink-loop"]);
	});

	it("reports a dangling link and keeps going", async () => {
		const dir = join(root, "dangling");
		await writeTree(dir, { "ok/SKILL.md": skillMd("ok") });
		await symlink(join(root, "nowhere"), join(dir, "broken"));
		const { index, report } = await only(dir);
		expect(index.names()).toEqual(["ok"]);
		expect(codes(report.diagnostics)).toEqual(["entry.dangling-link"]);
	});

	it("rejects a symlinked SKILL.md unless allowed", async () => {
		const dir = join(root, "file-link");
		await writeTree(dir, { "target.md": skillMd("via-link"), "via-link/.keep": "" });
		await symlink(join(dir, "target.md"), join(dir, "via-link", "SKILL.md"));
		const refused = await only(dir);
		expect(refused.index.size).toBe(0);
		expect(refused.report.rejected.map((r) => codes(r.diagnostics))).toEqual([["entry.symlink"]]);
		const allowed = await only(dir, { allowSymlinkedSkillFile: true });
		expect(allowed.index.skills.map((s) => s.realFile)).toEqual([join(dir, "target.md")]);
	});

	it("loads the same real file once when two roots reach it, owned by the higher root", async () => {
		const shared = join(root, "shared-real");
		await writeTree(shared, { "both/SKILL.md": skillMd("both") });
		const second = join(root, "shared-second");
		await mkdir(second, { recursive: true });
		await symlink(join(shared, "both"), join(second, "both"));
		const { index, report } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [second, shared] });
		expect(index.skills.map((s) => [s.name, s.root])).toEqual([["both", second]]);
		expect(codes(report.diagnostics)).toEqual(["entry.duplicate-path"]);
	});
});

describe("bad trees", () => {
	it("keeps the rest of the catalog when one SKILL.md is broken, binary or empty", async () => {
		const dir = join(root, "mixed-bad");
		await writeTree(dir, {
			"good/SKILL.md": skillMd("good"),
			"binary/SKILL.md": new Uint8Array([0, 1, 2, 3, 0xff]),
			"empty/SKILL.md": "",
			"noclose/SKILL.md": "---\nname: noclose\n",
		});
		const { index, report } = await only(dir);
		expect(index.names()).toEqual(["good"]);
		expect(report.rejected.map((r) => codes(r.diagnostics))).toEqual([
			["file.binary"],
			["file.empty"],
			["frontmatter.unclosed"],
		]);
	});

	it("reports a skill whose file vanished between the walk and the read", async () => {
		const dir = join(root, "vanishing");
		await writeTree(dir, { "stays/SKILL.md": skillMd("stays"), "goes/SKILL.md": skillMd("goes") });
		const { walkRootForTest } = await import("../helpers/walk.ts");
		const { candidates } = await walkRootForTest(dir);
		await rm(join(dir, "goes"), { recursive: true });
		const loaded = candidates.map((c) => c.load());
		expect(loaded.map((l) => [l.name, l.codes])).toEqual([
			["goes", ["file.unreadable"]],
			["stays", []],
		]);
	});

	it("reports a folder it cannot list and scans the others", async () => {
		const dir = join(root, "unreadable");
		await writeTree(dir, { "locked/inner/SKILL.md": skillMd("inner"), "open/SKILL.md": skillMd("open") });
		const { listDir } = await import("../../src/discovery/index.ts");
		const denied = (path: string) => {
			if (path.endsWith("locked")) throw Object.assign(new Error("denied"), { code: "EACCES" });
			return listDir(path);
		};
		const { walkRootForTest } = await import("../helpers/walk.ts");
		const { walk } = await walkRootForTest(dir, denied);
		expect(walk.candidates.map((c) => c.relDir)).toEqual(["open"]);
		expect(walk.diagnostics.map((d) => [d.code, d.file])).toEqual([["walk.unreadable", join(dir, "locked")]]);
	});
});
