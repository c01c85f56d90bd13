import {
	linkSync,
	mkdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ScanStats } from "../../src/discovery/scan-stats.ts";
import { type DiscoveryResult, discover, SkillIndex } from "../../src/index.ts";
import { checkServe } from "../../src/mcp/index.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 23: the plan of a warm `mcp --check` takes each SKILL.md's stat from the scan that just made the index
// instead of taking it again. A folder or SKILL.md swapped for a link, replaced or renamed after that scan and
// before the plan must be planned exactly as a plan that takes every stat itself plans it.

let base: string;
const ATTACKS = ["file-link", "folder-link", "replaced", "renamed", "swapped", "hard-link-swap", "added-link"] as const;
type Attack = (typeof ATTACKS)[number];

beforeAll(async () => {
	base = realpathSync(await tempDir());
	for (const attack of ATTACKS) {
		await writeTree(join(base, attack), {
			"victim/SKILL.md": skillMd("victim", "Does victim things."),
			"victim/references/guide.md": "# Guide\n",
			"bystander/SKILL.md": skillMd("bystander"),
		});
	}
	await pastRacyWindow();
}, 20_000);

/** A warm scan of the attack's root (the second one, read from the saved result), with the plan cache warm. */
async function warmScan(attack: Attack): Promise<{ result: DiscoveryResult; cacheDir: string }> {
	const root = join(base, attack);
	const cacheDir = join(base, `cache-${attack}`);
	const options = { cwd: base, home: join(base, "no-home"), defaultRoots: false, roots: [root], cacheDir };
	const cold = await discover(options);
	await checkServe(cold.index, { cacheDir });
	const result = await discover(options);
	// The plan saved for this result (saved-plan.test.ts) would stand for the plan: these attacks are on a plan that
	// is made, so it goes.
	rmSync(join(cacheDir, "mcp-plan"), { recursive: true, force: true });
	// The attack must meet the path it is about: a warm scan that stat'ed the real paths the plan walks.
	expect(result.report.reused.files).toBeGreaterThan(0);
	expect(result.index.get("victim")?.realFile).toBe(join(root, "victim", "SKILL.md"));
	return { result, cacheDir };
}

/** The plan of the scanned index (which may use the scan's stats) and of a copy (which takes every stat itself). */
async function plans(result: DiscoveryResult, cacheDir: string) {
	const reused = await checkServe(result.index, { cacheDir });
	const fresh = await checkServe(new SkillIndex(result.index.skills), { cacheDir });
	return { reused, fresh };
}

const served = (check: { served: { name: string }[] }) => check.served.map((skill) => skill.name);

describe("a plan that reuses the scan's stats", () => {
	it("serves what a plan taking its own stats serves when nothing changed", async () => {
		const { result, cacheDir } = await warmScan("added-link");
		const { reused, fresh } = await plans(result, cacheDir);
		expect(served(reused)).toEqual(["bystander", "victim"]);
		expect(reused).toEqual(fresh);
	});

	it("leaves out a SKILL.md swapped for a link to itself after the scan", async () => {
		const { result, cacheDir } = await warmScan("file-link");
		const dir = join(base, "file-link", "victim");
		renameSync(join(dir, "SKILL.md"), join(base, "moved-SKILL.md"));
		symlinkSync(join(base, "moved-SKILL.md"), join(dir, "SKILL.md"));
		const { reused, fresh } = await plans(result, cacheDir);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim", code: "mcp.unreadable" }));
		expect(reused).toEqual(fresh);
	});

	it("leaves out a skill folder swapped for a link to itself after the scan", async () => {
		const { result, cacheDir } = await warmScan("folder-link");
		const dir = join(base, "folder-link", "victim");
		renameSync(dir, join(base, "moved-folder"));
		symlinkSync(join(base, "moved-folder"), dir);
		const { reused, fresh } = await plans(result, cacheDir);
		expect(served(reused)).toEqual(["bystander"]);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim", code: "mcp.unreadable" }));
		expect(reused).toEqual(fresh);
	});

	it("reads a SKILL.md replaced by another file after the scan, not what the old one said", async () => {
		const { result, cacheDir } = await warmScan("replaced");
		const file = join(base, "replaced", "victim", "SKILL.md");
		writeFileSync(join(base, "replacement.md"), readFileSync(file, "utf8").replace("name: victim", "name: impostor"));
		renameSync(join(base, "replacement.md"), file);
		const { reused, fresh } = await plans(result, cacheDir);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim", code: "mcp.name-mismatch" }));
		expect(reused).toEqual(fresh);
	});

	it("leaves out a SKILL.md renamed away after the scan", async () => {
		const { result, cacheDir } = await warmScan("renamed");
		const dir = join(base, "renamed", "victim");
		renameSync(join(dir, "SKILL.md"), join(dir, "skill.md"));
		const { reused, fresh } = await plans(result, cacheDir);
		expect(served(reused)).toEqual(["bystander"]);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim" }));
		expect(reused).toEqual(fresh);
	});

	it("reads the SKILL.md of two skill folders that swapped names after the scan", async () => {
		const { result, cacheDir } = await warmScan("swapped");
		const at = (name: string) => join(base, "swapped", name);
		renameSync(at("victim"), at("swap"));
		renameSync(at("bystander"), at("victim"));
		renameSync(at("swap"), at("bystander"));
		const { reused, fresh } = await plans(result, cacheDir);
		expect(served(reused)).toEqual([]);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim", code: "mcp.name-mismatch" }));
		expect(reused).toEqual(fresh);
	});

	it("leaves out a SKILL.md replaced by a hard link to a file elsewhere after the scan", async () => {
		const { result, cacheDir } = await warmScan("hard-link-swap");
		const file = join(base, "hard-link-swap", "victim", "SKILL.md");
		writeFileSync(join(base, "elsewhere.md"), readFileSync(file));
		renameSync(file, join(base, "old-SKILL.md"));
		linkSync(join(base, "elsewhere.md"), file);
		const { reused, fresh } = await plans(result, cacheDir);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim", code: "mcp.unreadable" }));
		expect(reused).toEqual(fresh);
	});

	it("leaves out a skill whose folder gained a link after the scan", async () => {
		const { result, cacheDir } = await warmScan("added-link");
		mkdirSync(join(base, "added-link", "victim", "more"));
		symlinkSync("/etc/hostname", join(base, "added-link", "victim", "more", "escape.md"));
		symlinkSync("/etc/hostname", join(base, "added-link", "victim", "escape.md"));
		const { reused, fresh } = await plans(result, cacheDir);
		expect(reused.leftOut).toContainEqual(expect.objectContaining({ name: "victim", code: "mcp.link" }));
		expect(reused).toEqual(fresh);
	});
});

describe("the scan's stats kept for the plan", () => {
	it("keep each path's own stat when a path is met twice (nested roots), not the next path's", async () => {
		const dir = await tempDir();
		await writeTree(dir, { "a/SKILL.md": "a\n", "b/SKILL.md": "bb\n" });
		const a = join(dir, "a", "SKILL.md");
		const b = join(dir, "b", "SKILL.md");
		const stats = new ScanStats(Date.now());
		stats.add(a, statSync(a));
		stats.add(a, statSync(a));
		stats.add(b, statSync(b));
		expect(stats.get(a)?.ino).toBe(statSync(a).ino);
		expect(stats.get(b)?.ino).toBe(statSync(b).ino);
		expect(stats.get(a)?.size).toBe(2);
		expect(stats.get(b)?.size).toBe(3);
	});
});
