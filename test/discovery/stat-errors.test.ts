import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDiscovery, type DiscoverOptions, type DiscoveryResult, discover } from "skillset";
import { beforeEach, describe, expect, it } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { comparable } from "./index-helpers.ts";

// A stat with `throwIfNoEntry: false` still throws for a path whose parent is a file (ENOTDIR) or for a link loop
// (ELOOP). An attacker who can shape a skill tree, or anything that changes it between two runs, must not be able
// to fail a whole scan, rescan or warm run that way: each run must give what a fresh scan of the tree gives now.

let base: string;
let root: string;

beforeEach(async () => {
	base = await tempDir();
	root = join(base, "skills");
	await writeTree(root, { "alpha/SKILL.md": skillMd("alpha"), "outer/SKILL.md": skillMd("outer") });
	mkdirSync(join(root, "outer", "sub"));
});

function options(roots: string[], cacheDir?: string): DiscoverOptions {
	return { cwd: base, home: join(base, "no-home"), defaultRoots: false, roots, ...(cacheDir ? { cacheDir } : {}) };
}

/** What a fresh scan (no cache at all) gives for `roots` now. */
async function fresh(roots: string[]): Promise<DiscoveryResult> {
	return discover(options(roots));
}

function expectSame(got: DiscoveryResult, want: DiscoveryResult): void {
	expect(got.index.skills).toStrictEqual(want.index.skills);
	expect(comparable(got.report)).toStrictEqual(comparable(want.report));
}

const codes = (result: DiscoveryResult) => result.report.diagnostics.map((d) => d.code);

/** Makes `path` a link to itself: every stat through it fails with ELOOP. */
function linkLoop(path: string): void {
	rmSync(path, { recursive: true, force: true });
	symlinkSync(path, path);
}

describe("a scan that meets ENOTDIR or ELOOP", { timeout: 60_000 }, () => {
	it("a link loop named SKILL.md in a skill's subfolder is not a nested skill, and fails nothing", async () => {
		linkLoop(join(root, "outer", "sub", "SKILL.md"));
		const result = await fresh([root]);
		expect(result.index.skills.map((s) => s.name)).toEqual(["alpha", "outer"]);
		expect(codes(result)).not.toContain("entry.nested");
	});

	it("a rescan after the root became a link loop gives what a fresh scan gives", async () => {
		await pastRacyWindow();
		const discovery = createDiscovery(options([root]));
		await discovery.scan();
		renameSync(root, join(base, "moved"));
		linkLoop(root);
		const rescan = await discovery.scan();
		expectSame(rescan, await fresh([root]));
		expect(codes(rescan)).toContain("root.unreadable");
	});

	it("a rescan after an absent root's parent became a file, or the root a link loop, gives a fresh scan's result", async () => {
		const parented = join(base, "parent", "root");
		const looped = join(base, "looped");
		const discovery = createDiscovery(options([root, parented, looped]));
		await discovery.scan();
		writeFileSync(join(base, "parent"), "a file where a folder was");
		expectSame(await discovery.scan(), await fresh([root, parented, looped]));
		linkLoop(looped);
		const rescan = await discovery.scan();
		expectSame(rescan, await fresh([root, parented, looped]));
		expect(codes(rescan)).toContain("root.unreadable");
	});

	it("a warm run whose absent root's parent became a file, or whose root became a link loop, is a fresh scan", async () => {
		const parented = join(base, "parent", "root");
		const looped = join(base, "looped");
		const roots = [root, parented, looped];
		await pastRacyWindow();
		const cacheDir = join(base, "cache");
		await discover(options(roots, cacheDir));
		expectSame(await discover(options(roots, cacheDir)), await fresh(roots));
		writeFileSync(join(base, "parent"), "a file where a folder was");
		expectSame(await discover(options(roots, cacheDir)), await fresh(roots));
		expectSame(await discover(options(roots, cacheDir)), await fresh(roots));
		linkLoop(looped);
		const warm = await discover(options(roots, cacheDir));
		expectSame(warm, await fresh(roots));
		expect(codes(warm)).toContain("root.unreadable");
		// Saved again with the loop in place: the next warm run must still say the root cannot be read.
		expect(codes(await discover(options(roots, cacheDir)))).toContain("root.unreadable");
	});

	it("a warm run whose kept root became a link loop, or whose skill folder's parent became a file, is a fresh scan", async () => {
		await pastRacyWindow();
		const cacheDir = join(base, "cache");
		await discover(options([root], cacheDir));
		await discover(options([root], cacheDir));
		rmSync(join(root, "alpha"), { recursive: true });
		writeFileSync(join(root, "alpha"), "a file where a skill folder was");
		expectSame(await discover(options([root], cacheDir)), await fresh([root]));
		renameSync(root, join(base, "moved"));
		linkLoop(root);
		const warm = await discover(options([root], cacheDir));
		expectSame(warm, await fresh([root]));
		expect(codes(warm)).toContain("root.unreadable");
	});
});
