import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { DiscoveryReport } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { comparable, indexFiles } from "./index-helpers.ts";

// Issue 23: warm runs read the persistent index instead of every SKILL.md. Every test runs the built CLI in a
// workspace and cache folder of its own, and checks what a user sees: the same report warm as cold, every change
// seen, and a bad index ignored with a warning rather than believed.
const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");
const SCAN = ["scan", "--json", "--no-default-roots", "--root", "skills", "--exit-zero"];
const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];
const asRoot = process.getuid?.() === 0;

interface Workspace {
	dir: string;
	cache: string;
}

let base: string;
const workspaces = new Map<string, Workspace>();

/** The workspace made for one test (its skills were written before the racy window passed). */
function ws(name: string): Workspace {
	const found = workspaces.get(name);
	if (!found) throw new Error(`no workspace ${name}`);
	return found;
}

const SKILLS: Record<string, string> = {
	"skills/alpha/SKILL.md": skillMd("alpha", "Alpha does the first thing."),
	"skills/beta/SKILL.md": skillMd("beta", "Beta does the second thing."),
	"skills/tools/gamma/SKILL.md": skillMd("gamma", "Gamma has metadata.", "metadata:\n  version: 1.0\n  owner: ops"),
	"skills/odd/SKILL.md": "---\nname: Odd Name\ndescription: A name with capitals: and a colon\n---\nBody.\n",
	"skills/broken/SKILL.md": "---\nname: broken\n---\nNo description.\n",
};

beforeAll(async () => {
	base = await tempDir();
	chmodSync(base, 0o755);
	const names = ["equal", "same-second", "same-size", "same-inode", "bytes", "owner", "mode", "no-cache", "env"];
	names.push("link-file", "link-folder", "concurrent", "shared", "fresh");
	for (const name of names) {
		const dir = join(base, name);
		await writeTree(dir, SKILLS);
		workspaces.set(name, { dir, cache: join(dir, "cache") });
	}
	await pastRacyWindow();
}, 30_000);

function run(
	w: Workspace,
	args: string[],
	env: Record<string, string> = {},
	prefix: string[] = [],
): SpawnSyncReturns<string> {
	const command = prefix.length > 0 ? "setpriv" : process.execPath;
	const argv = prefix.length > 0 ? [...prefix, process.execPath, BIN, ...args] : [BIN, ...args];
	return spawnSync(command, argv, {
		cwd: w.dir,
		encoding: "utf8",
		timeout: 60_000,
		env: { PATH: process.env.PATH ?? "", HOME: w.dir, NO_COLOR: "1", SKILLSET_CACHE_DIR: w.cache, ...env },
	});
}

function scan(w: Workspace, env: Record<string, string> = {}, prefix: string[] = []): DiscoveryReport {
	const result = run(w, SCAN, env, prefix);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return JSON.parse(result.stdout) as DiscoveryReport;
}

/** Runs `edit` on `file`, then puts its atime and mtime back to the nanosecond (`touch -r`), as a same-tick edit would. */
function keepingTimes(file: string, edit: () => void): void {
	const reference = `${file}.times`;
	expect(spawnSync("touch", ["-r", file, reference]).status).toBe(0);
	edit();
	expect(spawnSync("touch", ["-r", reference, file]).status).toBe(0);
	rmSync(reference);
}

const codes = (report: DiscoveryReport) => report.diagnostics.map((d) => d.code);
const descriptionOf = (report: DiscoveryReport, name: string) =>
	report.selected.find((s) => s.name === name)?.description;
const onlyIndex = (w: Workspace) => {
	const files = indexFiles(w.cache);
	expect(files).toHaveLength(1);
	return files[0] as string;
};

describe("the persistent discovery index (built CLI)", { timeout: 120_000 }, () => {
	it("gives a warm `scan --json` equal to the cold one except timings, without reading any SKILL.md", () => {
		const w = ws("equal");
		const cold = scan(w);
		expect(cold.reused).toEqual({ dirs: 0, files: 0 });
		const file = onlyIndex(w);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(statSync(join(w.cache, "discovery")).mode & 0o777).toBe(0o700);
		const warm = scan(w);
		expect(warm.reused).toEqual({ dirs: 7, files: 5 });
		expect(comparable(warm)).toEqual(comparable(cold));
		expect(comparable(scan(w, { SKILLSET_NO_CACHE: "1" }))).toEqual(comparable(cold));
		// `list` shares the index (same roots and settings) and prints what a run without it prints.
		const list = run(w, ["list", "--json", "--no-default-roots", "--root", "skills"]);
		const uncached = run(w, ["list", "--json", "--no-default-roots", "--root", "skills", "--no-cache"]);
		expect(list.stdout).toBe(uncached.stdout);
		expect(indexFiles(w.cache)).toEqual([file]);
	});

	it("sees an edit within the same second that keeps the size and the mtime", () => {
		const w = ws("same-second");
		const file = join(w.dir, "skills", "alpha", "SKILL.md");
		scan(w);
		const before = statSync(file);
		keepingTimes(file, () => writeFileSync(file, skillMd("alpha", "Alpha does the FIRST thing.")));
		expect(statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs, ino: before.ino });
		expect(descriptionOf(scan(w), "alpha")).toBe("Alpha does the FIRST thing.");
	});

	it("reads again, next run, a file that changed just before it was read (the racy-git rule)", async () => {
		const w = ws("fresh");
		const file = join(w.dir, "skills", "delta", "SKILL.md");
		await writeTree(w.dir, { "skills/delta/SKILL.md": skillMd("delta", "Delta, version one.") });
		const cold = scan(w);
		expect(descriptionOf(cold, "delta")).toBe("Delta, version one.");
		// Written moments before the scan: a change in the same clock tick as the read would leave its signature
		// as recorded, so its read is not kept, and the next run reads it again...
		expect(scan(w).reused.files).toBe(5);
		// ...and so sees it rewritten within the same second, same size, mtime put back.
		keepingTimes(file, () => writeFileSync(file, skillMd("delta", "Delta, version two.")));
		expect(descriptionOf(scan(w), "delta")).toBe("Delta, version two.");
		await pastRacyWindow();
		expect(scan(w).reused.files).toBe(5);
		expect(scan(w).reused.files).toBe(6);
	});

	it("sees a SKILL.md replaced by another file of the same size and mtime (a new inode)", () => {
		const w = ws("same-size");
		const file = join(w.dir, "skills", "beta", "SKILL.md");
		scan(w);
		const before = statSync(file);
		const replacement = join(w.dir, "skills", "beta", "next.tmp");
		writeFileSync(replacement, skillMd("beta", "Beta does the SECOND thing."));
		expect(spawnSync("touch", ["-r", file, replacement]).status).toBe(0);
		renameSync(replacement, file);
		expect(statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs });
		expect(statSync(file).ino).not.toBe(before.ino);
		expect(descriptionOf(scan(w), "beta")).toBe("Beta does the SECOND thing.");
	});

	it("sees a SKILL.md rewritten in place (same inode, size and mtime)", () => {
		const w = ws("same-inode");
		const file = join(w.dir, "skills", "tools", "gamma", "SKILL.md");
		scan(w);
		const before = statSync(file);
		const text = readFileSync(file, "utf8");
		keepingTimes(file, () => writeFileSync(file, text.replace("Gamma has metadata.", "Gamma has METADATA.")));
		expect(statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs, ino: before.ino });
		expect(descriptionOf(scan(w), "gamma")).toBe("Gamma has METADATA.");
	});

	it("ignores an index whose bytes were changed, with a warning, and writes a good one", () => {
		const w = ws("bytes");
		const cold = scan(w);
		const file = onlyIndex(w);
		const text = readFileSync(file, "utf8");
		writeFileSync(file, text.replace("Alpha does the first thing.", "Alpha does the worst thing."));
		const tampered = scan(w);
		expect(codes(tampered)).toEqual(["index.ignored", ...codes(cold)]);
		expect(tampered.reused.files).toBe(0);
		expect(descriptionOf(tampered, "alpha")).toBe("Alpha does the first thing.");
		const { diagnostics: _d, ...rest } = comparable(tampered);
		const { diagnostics: _c, ...coldRest } = comparable(cold);
		expect(rest).toEqual(coldRest);
		const next = scan(w);
		expect(codes(next)).toEqual(codes(cold));
		expect(next.reused.files).toBe(5);
	});

	it.skipIf(!asRoot)("ignores an index owned by another user, and replaces it with one of ours", () => {
		const w = ws("owner");
		scan(w);
		const file = onlyIndex(w);
		chownSync(file, 65534, 65534);
		const foreign = scan(w);
		expect(foreign.diagnostics[0]).toMatchObject({ code: "index.ignored", file });
		expect(foreign.diagnostics[0]?.message).toContain("belongs to user 65534");
		expect(foreign.reused.files).toBe(0);
		expect(statSync(file).uid).toBe(0);
		expect(scan(w).reused.files).toBe(5);
	});

	it("ignores an index its group or everyone may write, and replaces it with a private one", () => {
		const w = ws("mode");
		scan(w);
		const file = onlyIndex(w);
		chmodSync(file, 0o620);
		const writable = scan(w);
		expect(writable.diagnostics[0]).toMatchObject({ code: "index.ignored", file });
		expect(writable.reused.files).toBe(0);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(scan(w).reused.files).toBe(5);
	});

	it("is neither read nor written with --no-cache", () => {
		const w = ws("no-cache");
		for (let i = 0; i < 2; i++) {
			const result = run(w, [...SCAN, "--no-cache"]);
			expect((JSON.parse(result.stdout) as DiscoveryReport).reused).toEqual({ dirs: 0, files: 0 });
		}
		expect(existsSync(w.cache)).toBe(false);
	});

	it("is neither read nor written with SKILLSET_NO_CACHE=1, and a bad value is a usage error", () => {
		const w = ws("env");
		for (let i = 0; i < 2; i++) expect(scan(w, { SKILLSET_NO_CACHE: "1" }).reused).toEqual({ dirs: 0, files: 0 });
		expect(existsSync(w.cache)).toBe(false);
		const bad = run(w, SCAN, { SKILLSET_NO_CACHE: "maybe" });
		expect(bad.status).toBe(2);
		expect(bad.stderr).toContain("SKILLSET_NO_CACHE must be true or false");
		expect(scan(w, { SKILLSET_NO_CACHE: "0" }).reused.files).toBe(0);
		expect(indexFiles(w.cache)).toHaveLength(1);
	});

	it("never reads or writes through a link planted at the index path", () => {
		const w = ws("link-file");
		scan(w);
		const file = onlyIndex(w);
		const target = join(w.dir, "target.json");
		renameSync(file, target);
		const saved = readFileSync(target, "utf8");
		symlinkSync(target, file);
		const linked = scan(w);
		expect(linked.diagnostics[0]).toMatchObject({ code: "index.ignored", file });
		expect(linked.diagnostics[0]?.message).toContain("symbolic link");
		expect(linked.reused.files).toBe(0);
		expect(readFileSync(target, "utf8")).toBe(saved);
		expect(lstatSync(file).isFile()).toBe(true);
	});

	it("is off, with a warning, when its folder is a planted link, and writes nothing there", () => {
		const w = ws("link-folder");
		const elsewhere = join(w.dir, "elsewhere");
		mkdirSync(elsewhere, { mode: 0o700 });
		mkdirSync(w.cache, { mode: 0o700 });
		symlinkSync(elsewhere, join(w.cache, "discovery"));
		for (let i = 0; i < 2; i++) {
			const report = scan(w);
			expect(report.diagnostics[0]).toMatchObject({ code: "index.unavailable" });
			expect(report.reused.files).toBe(0);
		}
		expect(readdirSync(elsewhere)).toEqual([]);
	});

	it("stays whole when several processes write it at once", async () => {
		const w = ws("concurrent");
		const env = { PATH: process.env.PATH ?? "", HOME: w.dir, NO_COLOR: "1", SKILLSET_CACHE_DIR: w.cache };
		const runs = Array.from(
			{ length: 4 },
			() =>
				new Promise<number | null>((done) => {
					const child = spawn(process.execPath, [BIN, ...SCAN], { cwd: w.dir, env, stdio: "ignore" });
					child.on("close", done);
				}),
		);
		expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
		expect(readdirSync(join(w.cache, "discovery")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
		const warm = scan(w);
		expect(codes(warm)).not.toContain("index.ignored");
		expect(warm.reused.files).toBe(5);
	});

	it.skipIf(!asRoot)("never uses or writes another user's index folder in a shared cache folder", () => {
		const w = ws("shared");
		const shared = join(base, "shared-cache");
		mkdirSync(shared, { mode: 0o777 });
		chmodSync(shared, 0o1777);
		chmodSync(w.dir, 0o755);
		const env = { SKILLSET_CACHE_DIR: shared };
		const ours = scan(w, env);
		const file = onlyIndex({ ...w, cache: shared });
		const written = statSync(file).mtimeMs;
		const theirs = scan(w, env, NOBODY);
		expect(theirs.diagnostics[0]).toMatchObject({ code: "index.unavailable" });
		expect(theirs.diagnostics[0]?.message).toContain("belongs to user 0");
		expect(theirs.selected.map((s) => s.name)).toEqual(ours.selected.map((s) => s.name));
		expect(statSync(file).mtimeMs).toBe(written);
		// The other way round: a folder the other user made first is not ours to read or fill.
		const second = join(base, "shared-cache-2");
		mkdirSync(second, { mode: 0o777 });
		chmodSync(second, 0o1777);
		scan(w, { SKILLSET_CACHE_DIR: second }, NOBODY);
		const made = join(second, "discovery");
		expect(statSync(made).uid).toBe(65534);
		const mine = scan(w, { SKILLSET_CACHE_DIR: second });
		expect(mine.diagnostics[0]).toMatchObject({ code: "index.unavailable" });
		expect(indexFiles(second).every((path) => statSync(path).uid === 65534)).toBe(true);
	});
});
