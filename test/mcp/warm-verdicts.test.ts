import { spawnSync } from "node:child_process";
import {
	linkSync,
	mkdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	symlinkSync,
	truncateSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createLock, discover } from "skillset";
import { createSkillServer, type SkillServerOptions } from "skillset/mcp";
import { beforeAll, describe, expect, it } from "vitest";
import { ListingCache } from "../../src/mcp/listings.ts";
import { walkSkill } from "../../src/mcp/walk.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";
import { BIN } from "./mcp-helpers.ts";
import { attackFiles, expectRefused, firstUse, rootOptions, SECRET, warmStartups } from "./warm-attacks.ts";

// Issue 23: a warm `mcp` start-up takes a served folder's last full verdict (every file servable) instead of an
// `lstat` of each of its files while the folder's own `lstat` matches its kept listing. What a folder cannot show, a
// file grown past the cap in place or a hard link made from elsewhere, is caught at first use: skills/list, skills/get,
// resources/read and directory reads each look at the files themselves, and a cold `--check` reports it. What a folder
// does show (a file swapped for a link or a FIFO, a subfolder swapped for a link, a new entry) voids the verdict, so the
// warm start-up itself leaves the skill out. Every attack comes after a warm run, as an attacker would time it.

const CAP = 8 * 1024 * 1024;
const ATTACKS = ["grown", "hard-link", "file-link", "fifo", "folder-link", "added", "racy", "verified"] as const;
type Attack = (typeof ATTACKS)[number];

let base: string;
let root: string;

beforeAll(async () => {
	base = realpathSync(await tempDir());
	root = await writeTree(join(base, "skills"), attackFiles(ATTACKS));
	await pastRacyWindow();
}, 20_000);

function optionsFor(cacheDir?: string): SkillServerOptions {
	return rootOptions(base, root, cacheDir);
}

/** Two start-ups with the cache on: the first walks every file and keeps its verdicts, the second takes them. */
async function warmRuns(attack: Attack): Promise<string> {
	const cacheDir = join(base, `cache-${attack}`);
	await warmStartups(optionsFor(cacheDir));
	return cacheDir;
}

/** `skillset mcp --check --json` through the built CLI with the cache off (the flag, or the variable). */
function coldCheck(cacheDir: string, how: "flag" | "env"): { name: string; code: string }[] {
	const args = [BIN, "mcp", root, "--no-default-roots", "--root", root, "--check", "--json"];
	const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: base, SKILLSET_CACHE_DIR: cacheDir };
	if (how === "flag") args.push("--no-cache");
	else env.SKILLSET_NO_CACHE = "1";
	const run = spawnSync(process.execPath, args, { cwd: base, env, encoding: "utf8", timeout: 60_000 });
	expect(run.status, run.stderr).toBe(1);
	return (JSON.parse(run.stdout) as { leftOut: { name: string; code: string }[] }).leftOut;
}

describe("a warm start-up that takes kept folder verdicts", () => {
	it("serves what a cold one serves when nothing changed", async () => {
		const cacheDir = await warmRuns("added");
		const cold = await createSkillServer(optionsFor());
		const warm = await createSkillServer(optionsFor(cacheDir));
		try {
			expect(warm.served).toEqual(cold.served);
			expect(warm.leftOut).toEqual(cold.leftOut);
		} finally {
			await cold.close();
			await warm.close();
		}
	});

	it("catches a file grown past the cap in place at first use, and a cold check reports it", async () => {
		const cacheDir = await warmRuns("grown");
		const file = join(root, "grown", "notes.md");
		truncateSync(file, CAP + 1);
		try {
			const use = await firstUse(optionsFor(cacheDir), "grown", "notes.md");
			// The folder cannot show an edit in place: start-up still names the skill (the documented window).
			expect(use.served).toBe(true);
			expectRefused(use, "grown");
			expect(use.read.data).toEqual({ code: "mcp.too-large" });
			expect(coldCheck(cacheDir, "flag")).toContainEqual(
				expect.objectContaining({ name: "grown", code: "mcp.too-large" }),
			);
			expect(coldCheck(cacheDir, "env")).toContainEqual(
				expect.objectContaining({ name: "grown", code: "mcp.too-large" }),
			);
		} finally {
			writeFileSync(file, `# Notes ${SECRET}\n`);
		}
	}, 60_000);

	it("catches a hard link made to a served file from outside at first use, and a cold check reports it", async () => {
		const cacheDir = await warmRuns("hard-link");
		const outside = join(base, "hard-link-from-outside.md");
		linkSync(join(root, "hard-link", "notes.md"), outside);
		try {
			const use = await firstUse(optionsFor(cacheDir), "hard-link", "notes.md");
			expect(use.served).toBe(true);
			expectRefused(use, "hard-link");
			expect(coldCheck(cacheDir, "flag")).toContainEqual(
				expect.objectContaining({ name: "hard-link", code: "mcp.link" }),
			);
		} finally {
			rmSync(outside);
		}
	}, 60_000);

	const visible: [Attack, string, (dir: string) => void][] = [
		[
			"file-link",
			"notes.md",
			(dir) => {
				renameSync(join(dir, "notes.md"), join(base, "file-link-notes.md"));
				symlinkSync(join(base, "file-link-notes.md"), join(dir, "notes.md"));
			},
		],
		[
			"fifo",
			"notes.md",
			(dir) => {
				rmSync(join(dir, "notes.md"));
				expect(spawnSync("mkfifo", [join(dir, "notes.md")]).status).toBe(0);
			},
		],
		[
			"folder-link",
			"references/guide.md",
			(dir) => {
				renameSync(join(dir, "references"), join(base, "folder-link-references"));
				symlinkSync(join(base, "folder-link-references"), join(dir, "references"));
			},
		],
		["added", "secret.md", (dir) => symlinkSync(join(dir, "notes.md"), join(dir, "secret.md"))],
	];
	for (const [attack, file, act] of visible) {
		it(`leaves out at start-up a skill whose folder shows the attack: ${attack}`, async () => {
			const cacheDir = await warmRuns(attack);
			act(join(root, attack));
			const use = await firstUse(optionsFor(cacheDir), attack, file);
			expect(use.served).toBe(false);
			expectRefused(use, attack);
			expect(coldCheck(cacheDir, "flag")).toContainEqual(expect.objectContaining({ name: attack, code: "mcp.link" }));
		}, 60_000);
	}

	it("takes no kept verdict in verify mode: a file grown in place is left out at start-up", async () => {
		const cacheDir = await warmRuns("verified");
		const { lock } = createLock((await discover(optionsFor())).index.selected, base);
		const verifying = { ...optionsFor(cacheDir), integrity: { lock, root: base } };
		await (await createSkillServer(verifying)).close();
		const file = join(root, "verified", "notes.md");
		truncateSync(file, CAP + 1);
		try {
			const server = await createSkillServer(verifying);
			await server.close();
			expect(server.leftOut).toContainEqual(expect.objectContaining({ name: "verified", code: "mcp.too-large" }));
		} finally {
			writeFileSync(file, `# Notes ${SECRET}\n`);
		}
	}, 60_000);

	it("keeps no verdict from a walk that met a file changed within the racy margin", async () => {
		const cacheDir = join(base, "cache-racy");
		const file = join(root, "racy", "notes.md");
		// Rewritten in place (same size) just before the run that walks it: that run's verdict cannot stand.
		writeFileSync(file, readFileSync(file, "utf8").toLowerCase());
		await (await createSkillServer(optionsFor(cacheDir))).close();
		truncateSync(file, CAP + 1);
		try {
			const warm = await createSkillServer(optionsFor(cacheDir));
			await warm.close();
			expect(warm.leftOut).toContainEqual(expect.objectContaining({ name: "racy", code: "mcp.too-large" }));
		} finally {
			writeFileSync(file, `# Notes ${SECRET}\n`);
		}
	}, 60_000);
});

describe("walkSkill with kept verdicts", () => {
	const rules = { maxBytes: 64, allowHardLinks: false };

	it("takes no verdict of a folder that changed within the racy margin of when the verdict was taken", async () => {
		const dir = join(await tempDir(), "fresh");
		mkdirSync(join(dir, "references"), { recursive: true });
		writeFileSync(join(dir, "SKILL.md"), "---\nname: fresh\n---\n");
		writeFileSync(join(dir, "references", "a.md"), "# A\n");
		const listings = new ListingCache();
		expect(walkSkill(dir, rules, listings, { verdicts: true })).toMatchObject({ dirs: ["", "references"] });
		writeFileSync(join(dir, "references", "a.md"), "x".repeat(100));
		expect(walkSkill(dir, rules, listings, { verdicts: true })).toMatchObject({ code: "mcp.too-large" });
	});

	it("takes no verdict kept under other rules", async () => {
		await pastRacyWindow();
		const dir = join(await tempDir(), "ruled");
		mkdirSync(dir);
		writeFileSync(join(dir, "SKILL.md"), "---\nname: ruled\n---\n");
		writeFileSync(join(dir, "data.md"), "x".repeat(100));
		await pastRacyWindow();
		const listings = new ListingCache();
		expect(walkSkill(dir, { maxBytes: 1000, allowHardLinks: false }, listings, { verdicts: true })).toHaveProperty(
			"dirs",
		);
		expect(walkSkill(dir, rules, listings, { verdicts: true })).toMatchObject({ code: "mcp.too-large" });
	}, 20_000);
});
