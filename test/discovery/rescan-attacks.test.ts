import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createDiscovery, type DiscoverOptions, type DiscoveryResult, discover } from "skillset";
import { beforeEach, describe, expect, it } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { comparable } from "./index-helpers.ts";

// A rescan of an in-memory discovery trusts signatures (dev, ino, size, mtime, ctime) of folders and SKILL.md
// files. Someone who can change the tree between two scans tries to make a rescan hand back what is no longer
// there: times put back with `touch -r`, files renamed over, folders swapped for links, files that block or loop.
// Each rescan must give exactly what a fresh scan of the tree gives now.

let base: string;
let root: string;

beforeEach(async () => {
	base = await tempDir();
	root = join(base, "skills");
	await writeTree(root, {
		"alpha/SKILL.md": skillMd("alpha"),
		"alpha/notes/todo.txt": "later\n",
		"group/beta/SKILL.md": skillMd("beta"),
		"group/deep/er/keep.txt": "x\n",
	});
});

function options(roots: string[] = [root]): DiscoverOptions {
	return { cwd: base, home: join(base, "no-home"), defaultRoots: false, roots };
}

function expectSame(got: DiscoveryResult, want: DiscoveryResult): void {
	expect(got.index.skills).toStrictEqual(want.index.skills);
	expect(comparable(got.report)).toStrictEqual(comparable(want.report));
}

/** Rescans and checks the result against a fresh scan (no cache at all) of the tree as it is now. */
async function rescanIsFresh(discovery: ReturnType<typeof createDiscovery>): Promise<DiscoveryResult> {
	const rescan = await discovery.scan();
	expectSame(rescan, await discover(discovery.options));
	return rescan;
}

/** Gives `target` the times of `reference` to the nanosecond (a link itself, not what it points at). */
function copyTimes(reference: string, target: string): void {
	expect(spawnSync("touch", ["-h", "-r", reference, target]).status).toBe(0);
}

/** A copy of `path`'s times, kept in a file of its own (so they survive `path` being replaced). */
function keepTimes(path: string): string {
	const keeper = join(base, `times-${Math.random().toString(36).slice(2)}`);
	writeFileSync(keeper, "");
	copyTimes(path, keeper);
	return keeper;
}

const description = (result: DiscoveryResult, name: string) => result.index.get(name)?.description;
const codes = (result: DiscoveryResult) => result.report.diagnostics.map((d) => d.code);
const rejectedCodes = (result: DiscoveryResult) =>
	result.report.rejected.flatMap((rejected) => rejected.diagnostics.map((d) => d.code));

describe("a rescan after the tree was changed to fool it", { timeout: 60_000 }, () => {
	it("re-reads what changed too close to the last scan (racy), even with its size and times put back", async () => {
		// No wait: the first scan reads files and folders written moments ago, so their signatures cannot vouch. No
		// skill has a subfolder, so nothing but the rule itself makes the rescan read them again.
		const flat = await writeTree(join(base, "flat"), {
			"alpha/SKILL.md": skillMd("alpha"),
			"b/SKILL.md": skillMd("b"),
		});
		const discovery = createDiscovery(options([flat]));
		await discovery.scan();
		const rescan = await rescanIsFresh(discovery);
		expect(rescan.report.reused.files).toBe(0);
		const file = join(flat, "alpha", "SKILL.md");
		const times = keepTimes(file);
		const size = statSync(file).size;
		writeFileSync(file, skillMd("alpha", "A".repeat(size - skillMd("alpha", "").length)));
		copyTimes(times, file);
		expect(statSync(file).size).toBe(size);
		expect(description(await rescanIsFresh(discovery), "alpha")).toMatch(/^A+$/);
	});

	it("sees a SKILL.md renamed over by another file of the same size, with file and folder times put back", async () => {
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		await discovery.scan();
		const file = join(root, "alpha", "SKILL.md");
		const folder = join(root, "alpha");
		const [fileTimes, folderTimes] = [keepTimes(file), keepTimes(folder)];
		const size = statSync(file).size;
		const other = join(folder, "other.tmp");
		writeFileSync(other, skillMd("alpha", "B".repeat(size - skillMd("alpha", "").length)));
		copyTimes(fileTimes, other);
		renameSync(other, file);
		copyTimes(folderTimes, folder);
		expect([statSync(file).size, statSync(file).mtimeMs]).toEqual([size, statSync(fileTimes).mtimeMs]);
		expect(description(await rescanIsFresh(discovery), "alpha")).toMatch(/^B+$/);
	});

	it("follows a skill folder swapped for a link, and a group folder swapped for a link, as a fresh scan does", async () => {
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		await discovery.scan();
		const rootTimes = keepTimes(root);
		await writeTree(base, { "elsewhere/alpha/SKILL.md": skillMd("alpha", "From the link.") });
		renameSync(join(root, "alpha"), join(base, "old-alpha"));
		symlinkSync(join(base, "elsewhere", "alpha"), join(root, "alpha"));
		copyTimes(rootTimes, root);
		expect(description(await rescanIsFresh(discovery), "alpha")).toBe("From the link.");
		await writeTree(base, { "other-group/gamma/SKILL.md": skillMd("gamma") });
		renameSync(join(root, "group"), join(base, "old-group"));
		symlinkSync(join(base, "other-group"), join(root, "group"));
		copyTimes(rootTimes, root);
		const rescan = await rescanIsFresh(discovery);
		expect(rescan.index.names().sort()).toEqual(["alpha", "gamma"]);
	});

	it("never blocks on a SKILL.md turned into a FIFO, and reports a SKILL.md turned into a link loop", async () => {
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		await discovery.scan();
		const file = join(root, "alpha", "SKILL.md");
		rmSync(file);
		expect(spawnSync("mkfifo", [file]).status).toBe(0);
		const fifo = await rescanIsFresh(discovery);
		expect(fifo.index.get("alpha")).toBeUndefined();
		expect(rejectedCodes(fifo).length).toBeGreaterThan(0);
		rmSync(file);
		symlinkSync(file, file);
		const loop = await rescanIsFresh(discovery);
		expect(loop.index.get("alpha")).toBeUndefined();
		expect(rejectedCodes(loop)).toContain("entry.symlink");
	});

	it("sees a skill nested one level in a skill's subfolder, ignores one deeper, and finds a new deep skill", async () => {
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		await discovery.scan();
		await writeTree(root, { "alpha/notes/deeper/SKILL.md": skillMd("deeper") });
		expect(codes(await rescanIsFresh(discovery))).not.toContain("entry.nested");
		await writeTree(root, { "alpha/notes/SKILL.md": skillMd("notes") });
		expect(codes(await rescanIsFresh(discovery))).toContain("entry.nested");
		await writeTree(root, { "group/deep/er/delta/SKILL.md": skillMd("delta") });
		expect((await rescanIsFresh(discovery)).index.get("delta")).toBeDefined();
	});

	it("gives a fresh scan's result after the root was removed, made a file, and replaced by another folder", async () => {
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		await discovery.scan();
		const rootTimes = keepTimes(root);
		renameSync(root, join(base, "old-root"));
		expect(codes(await rescanIsFresh(discovery))).toContain("root.missing");
		writeFileSync(root, "a file where the root was");
		expect(codes(await rescanIsFresh(discovery))).toContain("root.not-directory");
		rmSync(root);
		await writeTree(base, { "new-root/alpha/SKILL.md": skillMd("alpha", "Another root."), "new-root/group/x": "" });
		mkdirSync(join(base, "new-root", "alpha", "notes"));
		renameSync(join(base, "new-root"), root);
		copyTimes(rootTimes, root);
		expect(description(await rescanIsFresh(discovery), "alpha")).toBe("Another root.");
		rmSync(root, { recursive: true });
		symlinkSync(join(base, "old-root"), root);
		expect(description(await rescanIsFresh(discovery), "alpha")).toBe("Does alpha things.");
	});

	it("follows a dangling link once its target appears, and a link to a file once the file becomes a folder", async () => {
		symlinkSync(join(base, "later"), join(root, "dangling"));
		writeFileSync(join(base, "plain"), "a file\n");
		symlinkSync(join(base, "plain"), join(root, "to-file"));
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		expect(codes(await discovery.scan())).toContain("entry.dangling-link");
		// Nothing under the root changes: only where its links lead.
		await writeTree(base, { "later/delta/SKILL.md": skillMd("delta") });
		expect((await rescanIsFresh(discovery)).index.get("delta")).toBeDefined();
		rmSync(join(base, "plain"));
		await writeTree(base, { "plain/gamma/SKILL.md": skillMd("gamma") });
		expect((await rescanIsFresh(discovery)).index.get("gamma")).toBeDefined();
	});
});

describe("a rescan of a tree with a link that leads nowhere", { timeout: 60_000 }, () => {
	it("keeps its index while nothing changed, and still follows the link once its target appears", async () => {
		symlinkSync(join(base, "later"), join(root, "dangling"));
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		const first = await discovery.scan();
		expect(codes(first)).toContain("entry.dangling-link");
		// Nothing changed: the same index object, so no full walk ran.
		expect((await discovery.scan()).index).toBe(first.index);
		expect((await discovery.scan()).index).toBe(first.index);
		await writeTree(base, { "later/delta/SKILL.md": skillMd("delta") });
		expect((await rescanIsFresh(discovery)).index.get("delta")).toBeDefined();
	});

	it("keeps its index while nothing changed with links not followed, and sees a new skill", async () => {
		symlinkSync(join(base, "later"), join(root, "dangling"));
		symlinkSync(join(root, "loop"), join(root, "loop"));
		await pastRacyWindow();
		const discovery = createDiscovery({ ...options(), followSymlinks: false });
		const first = await discovery.scan();
		expect((await discovery.scan()).index).toBe(first.index);
		await writeTree(base, { "later/delta/SKILL.md": skillMd("delta") });
		expect((await discovery.scan()).index).toBe(first.index);
		await writeTree(root, { "epsilon/SKILL.md": skillMd("epsilon") });
		expect((await rescanIsFresh(discovery)).index.get("epsilon")).toBeDefined();
	});

	it("keeps its index with a link that loops on itself, and sees it replaced by a link to a skill group", async () => {
		const loop = join(root, "loop");
		symlinkSync(loop, loop);
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		const first = await discovery.scan();
		expect((await discovery.scan()).index).toBe(first.index);
		await writeTree(base, { "target/zeta/SKILL.md": skillMd("zeta") });
		const rootTimes = keepTimes(root);
		rmSync(loop);
		symlinkSync(join(base, "target"), loop);
		copyTimes(rootTimes, root);
		expect((await rescanIsFresh(discovery)).index.get("zeta")).toBeDefined();
	});
});

describe("a rescan of a tree with times set in the future", { timeout: 60_000 }, () => {
	it("keeps its index while nothing changed, and still sees an edit to the folder and to its SKILL.md", async () => {
		const future = new Date("2099-01-01T00:00:00Z");
		const group = join(root, "group");
		const file = join(group, "beta", "SKILL.md");
		utimesSync(group, future, future);
		utimesSync(file, future, future);
		await pastRacyWindow();
		const discovery = createDiscovery(options());
		const first = await discovery.scan();
		expect((await discovery.scan()).index).toBe(first.index);
		expect((await discovery.scan()).index).toBe(first.index);
		await writeTree(group, { "gamma/SKILL.md": skillMd("gamma") });
		expect((await rescanIsFresh(discovery)).index.get("gamma")).toBeDefined();
		writeFileSync(file, skillMd("beta", "Edited in the present."));
		utimesSync(file, future, future);
		expect(description(await rescanIsFresh(discovery), "beta")).toBe("Edited in the present.");
	});
});

describe("a rescan of a tree big enough to share its stats with a helper thread", { timeout: 120_000 }, () => {
	it("sees an edit, a new file in a skill folder and a new skill anywhere in the list, as a fresh scan does", async () => {
		const big = join(base, "big");
		const files: Record<string, string> = {};
		// 2,100 skills in 30 groups: over 4,096 folders and SKILL.md files to check.
		for (let i = 0; i < 2100; i++) files[`g${i % 30}/s${i}/SKILL.md`] = skillMd(`s${i}`);
		await writeTree(big, files);
		await pastRacyWindow();
		const discovery = createDiscovery(options([big]));
		const first = await discovery.scan();
		// Unchanged, several times over (the helper starts at the second of these): the same index each time.
		for (let i = 0; i < 4; i++) expect((await discovery.scan()).index).toBe(first.index);
		for (const i of [3, 1050, 2097]) {
			writeFileSync(join(big, `g${i % 30}`, `s${i}`, "SKILL.md"), skillMd(`s${i}`, `Edited ${i}.`));
		}
		const edited = await rescanIsFresh(discovery);
		expect([3, 1050, 2097].map((i) => description(edited, `s${i}`))).toEqual([
			"Edited 3.",
			"Edited 1050.",
			"Edited 2097.",
		]);
		await pastRacyWindow();
		await discovery.scan();
		writeFileSync(join(big, "g29", "s2099", "extra.txt"), "one more entry\n");
		await rescanIsFresh(discovery);
		await writeTree(big, { "g28/new/SKILL.md": skillMd("new") });
		expect((await rescanIsFresh(discovery)).index.get("new")).toBeDefined();
	});
});

// Run by a child process (as root, and as `nobody`, for whom a folder of mode 000 cannot be listed): scans a tree
// whose `locked` folder cannot be listed, opens it up, rescans, and says whether the rescan is what a fresh scan gives.
const UNLISTABLE = `
import { chmodSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
const { createDiscovery, discover } = await import(process.env.DIST);
const root = process.env.ROOT;
const options = { cwd: root, home: root, defaultRoots: false, roots: [root] };
const plain = ({ report: { timings, reused, ...report }, index }) => ({ report, skills: index.skills });
const discovery = createDiscovery(options);
const before = await discovery.scan();
chmodSync(root + "/locked", 0o755);
const after = await discovery.scan();
const fresh = await discover(options);
const names = (result) => result.index.skills.map((skill) => skill.name).sort();
console.log(JSON.stringify({ before: names(before), after: names(after), same: isDeepStrictEqual(plain(after), plain(fresh)) }));
`;

describe("a rescan after a folder that could not be listed became listable", { timeout: 60_000 }, () => {
	const asRoot = process.getuid?.() === 0;
	for (const user of asRoot ? ["root", "nobody"] : ["this user"]) {
		it(`lists it again, as a fresh scan does (as ${user})`, async () => {
			const tree = await writeTree(join(base, "unlistable"), {
				"open/SKILL.md": skillMd("open"),
				"locked/hidden-one/SKILL.md": skillMd("hidden-one"),
			});
			chmodSync(base, 0o755);
			if (asRoot) spawnSync("chown", ["-R", "65534:65534", tree]);
			chmodSync(join(tree, "locked"), 0o000);
			await pastRacyWindow();
			const dist = pathToFileURL(join(import.meta.dirname, "..", "..", "dist", "index.js")).href;
			const prefix = user === "nobody" ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
			const [command, ...args] = [...prefix, process.execPath, "--input-type=module", "-e", UNLISTABLE];
			const child = spawnSync(command as string, args, {
				encoding: "utf8",
				timeout: 30_000,
				env: { PATH: process.env.PATH ?? "", DIST: dist, ROOT: tree },
			});
			expect(child.stderr).toBe("");
			const result = JSON.parse(child.stdout) as { before: string[]; after: string[]; same: boolean };
			expect(result.before).toEqual(user === "nobody" ? ["open"] : ["hidden-one", "open"]);
			expect(result.after).toEqual(["hidden-one", "open"]);
			expect(result.same).toBe(true);
		});
	}
});
