import { chmodSync, chownSync, readdirSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { discover } from "../../src/index.ts";
import { checkServe, type ServeCheck } from "../../src/mcp/index.ts";
import { folderAttacks, forgePayload, readPayload } from "../discovery/index-helpers.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// The start-up cache of `mcp` (issue 23) is read back as strictly as input: a row of the wrong shape, a listing
// naming anything but an entry of its folder, a row newer than the file it was saved in, or a cache folder someone
// else could have written, and the row or the whole cache is passed over. Each forged row below would change the
// plan if it were taken (the control rows show that), so a plan equal to the truth means it was refused.

let base: string;
let root: string;
let caches = 0;

beforeAll(async () => {
	base = await tempDir();
	root = await writeTree(join(base, "skills"), {
		"plain/SKILL.md": skillMd("plain"),
		"linked/SKILL.md": skillMd("linked"),
		"linked/references/guide.md": "# Guide\n",
		// Never part of a served skill: a verdict that names it as a folder to walk was forged.
		"linked/references/.git/HEAD": "ref: refs/heads/main\n",
		"other/SKILL.md": skillMd("other"),
		// A plain file beside SKILL.md: the folder's verdict spares its lstat, so it is kept.
		"other/notes.md": "# Notes\n",
	});
	symlinkSync("/etc/hostname", join(root, "linked", "references", "escape.md"));
	await pastRacyWindow();
}, 20_000);

async function plan(cacheDir?: string): Promise<ServeCheck> {
	const options = { cwd: base, home: join(base, "no-home"), defaultRoots: false, roots: [root] };
	const { index } = await discover(options);
	return checkServe(index, cacheDir ? { cacheDir } : {});
}

interface Saved {
	key: string;
	value: { files: unknown[][]; dirs: unknown[][] };
}

/** A fresh cache folder with the cache a first start-up saved, and the file it is in. */
async function savedCache(): Promise<{ cacheDir: string; file: string; saved: Saved }> {
	const cacheDir = join(base, `cache-${caches++}`);
	await plan(cacheDir);
	const folder = join(cacheDir, "mcp-frontmatter");
	const [name] = readdirSync(folder).filter((entry) => entry.endsWith(".json"));
	if (!name) throw new Error("no saved start-up cache");
	const file = join(folder, name);
	return { cacheDir, file, saved: readPayload(file) as unknown as Saved };
}

/** `saved` with the row for `path` (first cell) replaced by `edit(row)`. */
function withRow(saved: Saved, part: "files" | "dirs", path: string, edit: (row: unknown[]) => unknown): Saved {
	const rows = saved.value[part];
	if (!rows.some((row) => row[0] === path)) throw new Error(`no saved row for ${path}`);
	const value = { ...saved.value, [part]: rows.map((row) => (row[0] === path ? edit(row) : row)) };
	return { key: saved.key, value };
}

const names = (check: ServeCheck) => check.served.map((skill) => skill.name);

describe("the saved listings of a warm MCP start-up", () => {
	const folder = () => join(root, "linked", "references");
	// The forged listing leaves out the link: taken, it would serve the skill.
	const listed = (row: unknown[], names: unknown, kind = row[6]) => [...row.slice(0, 5), names, kind, row[7]];
	const hidden = (row: unknown[]) => listed(row, ["guide.md"]);

	it("take a well-formed listing as saved (the control every forged row below differs from by one cell)", async () => {
		const truth = await plan();
		expect(names(truth)).toEqual(["other", "plain"]);
		const { cacheDir, file, saved } = await savedCache();
		forgePayload(file, withRow(saved, "dirs", folder(), hidden));
		expect(names(await plan(cacheDir))).toEqual(["linked", "other", "plain"]);
	});

	const defects: [string, (row: unknown[]) => unknown][] = [
		["a name with a separator", (row) => listed(row, ["guide.md", "../plain"])],
		["a name that is ..", (row) => listed(row, ["..", "guide.md"])],
		["a name that is .", (row) => listed(row, [".", "guide.md"])],
		["an empty name", (row) => listed(row, ["", "guide.md"])],
		["a name with a NUL", (row) => listed(row, ["guide.md\0x"])],
		["a name that is not a string", (row) => listed(row, ["guide.md", 7])],
		["names that are not a list", (row) => listed(row, "guide.md")],
		["a regular SKILL.md that is not among the names", (row) => listed(row, ["guide.md"], true)],
		["a SKILL.md kind that is not true or false", (row) => listed(row, ["guide.md"], "false")],
		["a row with a cell more", (row) => [...hidden(row), null]],
		["a row with a cell less", (row) => hidden(row).slice(0, 7)],
	];
	for (const [what, edit] of defects) {
		it(`refuse ${what}`, async () => {
			const truth = await plan();
			const { cacheDir, file, saved } = await savedCache();
			forgePayload(
				file,
				withRow(saved, "dirs", folder(), (row) => edit(hidden(row) as unknown[])),
			);
			expect(await plan(cacheDir)).toEqual(truth);
		});
	}

	it("refuse a listing of a folder that changed no earlier than the cache was written (racy)", async () => {
		const truth = await plan();
		const { cacheDir, file, saved } = await savedCache();
		forgePayload(file, withRow(saved, "dirs", folder(), hidden));
		const changed = statSync(folder()).mtimeMs / 1000;
		utimesSync(file, changed, changed);
		expect(await plan(cacheDir)).toEqual(truth);
	});
});

describe("the saved verdicts of a warm MCP start-up", () => {
	const folder = () => join(root, "linked", "references");
	const CAP = 8 * 1024 * 1024;
	/** When the first start-up's walks began: the time its verdicts were taken at. */
	const takenAt = (saved: Saved) => {
		const verdict = saved.value.dirs.find((dir) => dir[0] === join(root, "other"))?.[7];
		if (!Array.isArray(verdict)) throw new Error("no verdict kept for a skill with a file beside SKILL.md");
		return verdict[5] as number;
	};
	// The forged verdict vouches for the folder's two files, the link among them: taken, it would serve the skill.
	const vouching = (verdict: unknown) => (row: unknown[]) => [...row.slice(0, 7), verdict];

	it("take a well-formed verdict as saved (the control every forged verdict below differs from by one cell)", async () => {
		const { cacheDir, file, saved } = await savedCache();
		expect(saved.value.dirs.find((row) => row[0] === folder())?.[7]).toBeNull();
		forgePayload(file, withRow(saved, "dirs", folder(), vouching([[], 2, 40, CAP, false, takenAt(saved)])));
		expect(names(await plan(cacheDir))).toEqual(["linked", "other", "plain"]);
	});

	it("take a verdict taken a few ms after the cache file's time (the kernel stamps files from a coarser clock)", async () => {
		const { cacheDir, file, saved } = await savedCache();
		const at = takenAt(saved);
		forgePayload(file, withRow(saved, "dirs", folder(), vouching([[], 2, 40, CAP, false, at])));
		// A small tree is planned and saved within one tick of the kernel's clock: the file can be stamped before `at`.
		utimesSync(file, new Date(at - 3), new Date(at - 3));
		expect(names(await plan(cacheDir))).toEqual(["linked", "other", "plain"]);
	});

	const defects: [string, (at: number) => unknown][] = [
		["a folder that is not among the names", (at) => [["elsewhere"], 2, 40, CAP, false, at]],
		["a folder named twice", (at) => [["guide.md", "guide.md"], 0, 0, CAP, false, at]],
		["a skipped folder", (at) => [[".git"], 2, 40, CAP, false, at]],
		["more files than entries", (at) => [[], 4, 40, CAP, false, at]],
		["a negative count", (at) => [[], -1, 40, CAP, false, at]],
		["a fractional count", (at) => [[], 1.5, 40, CAP, false, at]],
		["more bytes than its cap lets its files hold", (at) => [[], 2, 2 * CAP + 1, CAP, false, at]],
		["another cap", (at) => [[], 2, 40, CAP - 1, false, at]],
		["another hard-link rule", (at) => [[], 2, 40, CAP, true, at]],
		["a hard-link rule that is not true or false", (at) => [[], 2, 40, CAP, "false", at]],
		["a time after the cache was written", (at) => [[], 2, 40, CAP, false, at + 3_600_000]],
		["a time the folder had not settled by", () => [[], 2, 40, CAP, false, statSync(folder()).mtimeMs]],
		["a cell more", (at) => [[], 2, 40, CAP, false, at, null]],
		["a verdict that is not a list", () => ({ files: 2 })],
	];
	for (const [what, verdict] of defects) {
		it(`refuse ${what}`, async () => {
			const truth = await plan();
			const { cacheDir, file, saved } = await savedCache();
			const at = takenAt(saved);
			forgePayload(file, withRow(saved, "dirs", folder(), vouching(verdict(at))));
			expect(await plan(cacheDir)).toEqual(truth);
		});
	}
});

describe("the saved reads of a warm MCP start-up", () => {
	const file = () => join(root, "plain", "SKILL.md");
	// The forged frontmatter names another skill: taken, the skill would be left out as a mismatch.
	const renamed = (row: unknown[]) => [...row.slice(0, 7), { name: "impostor", description: "Forged." }];

	it("take a well-formed read as saved (the control)", async () => {
		const { cacheDir, file: cache, saved } = await savedCache();
		forgePayload(cache, withRow(saved, "files", file(), renamed));
		const warm = await plan(cacheDir);
		expect(warm.leftOut).toContainEqual(expect.objectContaining({ name: "plain", code: "mcp.name-mismatch" }));
	});

	const defects: [string, (row: unknown[]) => unknown][] = [
		["a frontmatter that is a list", (row) => [...row.slice(0, 7), ["name", "impostor"]]],
		["a frontmatter that is a number", (row) => [...row.slice(0, 7), 42]],
		["a frontmatter problem we do not know", (row) => [...row.slice(0, 7), "bogus"]],
	];
	for (const [what, edit] of defects) {
		it(`refuse ${what}`, async () => {
			const truth = await plan();
			const { cacheDir, file: cache, saved } = await savedCache();
			forgePayload(
				cache,
				withRow(saved, "files", file(), (row) => edit(renamed(row))),
			);
			expect(await plan(cacheDir)).toEqual(truth);
		});
	}

	it("refuse a read of a file that changed no earlier than the cache was written (racy)", async () => {
		const truth = await plan();
		const { cacheDir, file: cache, saved } = await savedCache();
		forgePayload(cache, withRow(saved, "files", file(), renamed));
		const changed = statSync(file()).mtimeMs / 1000;
		utimesSync(cache, changed, changed);
		expect(await plan(cacheDir)).toEqual(truth);
	});

	const fileAttacks: [string, (path: string) => void][] = [
		["group-writable", (path) => chmodSync(path, 0o660)],
		["world-writable", (path) => chmodSync(path, 0o606)],
	];
	if (process.getuid?.() === 0) fileAttacks.push(["another user's", (path) => chownSync(path, 65534, 65534)]);
	for (const [what, attack] of fileAttacks) {
		it(`ignore the whole cache when its file is ${what}`, async () => {
			const truth = await plan();
			const { cacheDir, file: cache, saved } = await savedCache();
			forgePayload(cache, withRow(saved, "files", file(), renamed));
			attack(cache);
			expect(await plan(cacheDir)).toEqual(truth);
		});
	}

	for (const [what, attack] of folderAttacks()) {
		it(`ignore the whole cache when its folder is ${what}`, async () => {
			const truth = await plan();
			const { cacheDir, file: cache, saved } = await savedCache();
			forgePayload(cache, withRow(saved, "files", file(), renamed));
			attack(join(cacheDir, "mcp-frontmatter"));
			expect(await plan(cacheDir)).toEqual(truth);
		});
	}
});
