// Whole-process discovery numbers (issue 10): cold `skillset scan` against a Node process that only walks the tree
// and reads every SKILL.md, start-up against a bare `node -e 0`, peak RSS of each, and `skillset list` against
// `openskills list` on a flat collection. Every pair runs interleaved in the same run, so load on the machine
// hits both sides alike; ratios are what to read.
import { readFileSync } from "node:fs";
import { copyFile, mkdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_WALK_LIMITS } from "skillset";
import { generateTree } from "./generate.ts";
import {
	BIN,
	type FastRow,
	interleaved,
	type ProcessContext,
	processContext,
	REPO,
	ratio,
	runNode,
	type Usage,
	versus,
} from "./process.ts";
import { startupPeerRows } from "./startup-peers.ts";

export type { FastRow } from "./process.ts";

const RUNS = 5;
/**
 * Runs per `list` pair: the ratios there are read against a bar (2×), so their medians take more samples; the small
 * collections, where a pair takes a second and the machine's noise is the largest part of a run, take the most.
 */
const listRuns = (count: number) => (count <= 1000 ? 21 : 11);
const STARTS = 15;
/** Flat collections `skillset list` is measured on against `openskills list`. */
const LIST_SIZES = [548, 1000, 10_000];
const FLOOR = fileURLToPath(new URL("./discovery-floor.js", import.meta.url));
/** Cold means no persistent index: neither read nor written. */
const COLD = { SKILLSET_NO_CACHE: "1" };

/** Cold scan (`--json` to a file) and catalog of `count` generated skills against the walk-and-read floor. */
async function scanRows(work: string, count: number, context: ProcessContext): Promise<FastRow[]> {
	const root = join(work, `tree-${count}`);
	await generateTree(root, count);
	const roots = ["--no-default-roots", "--root", root];
	const scan = ["scan", root, ...roots, "--json", "--exit-zero"];
	const cold = { ...context, env: COLD };
	const commands = [[FLOOR, root], [BIN, ...scan], ...(count >= 10_000 ? [[BIN, "catalog", root, ...roots]] : [])];
	interleaved(commands, 1, cold); // warm the page cache for all
	const [floor, skillset, catalog] = interleaved(commands, RUNS, cold);
	if (!floor || !skillset) return [];
	const rows: FastRow[] = [
		versus(count, "cold `skillset scan --json` (to a file) vs walk-and-read floor", skillset, floor, "≤ 2×"),
		{
			skills: count,
			measure: "peak RSS MiB of that scan vs the floor",
			medianMs: skillset.maxRssMiB,
			baselineMs: floor.maxRssMiB,
			note: ratio(skillset.maxRssMiB, floor.maxRssMiB),
		},
	];
	if (catalog) {
		rows.push({
			skills: count,
			measure: "cold `skillset catalog` process: peak RSS MiB vs the floor",
			medianMs: catalog.maxRssMiB,
			baselineMs: floor.maxRssMiB,
			note: `${ratio(catalog.maxRssMiB, floor.maxRssMiB)}; target ≤ 1.5×; ${catalog.wallMs} ms wall`,
		});
	}
	await rm(root, { recursive: true, force: true });
	return rows;
}

/** Start-up: an empty workspace's scan and `--version` against a bare Node start. */
function startupRows(empty: string, context: ProcessContext): FastRow[] {
	const [bare, scan, version] = interleaved(
		[
			["-e", "0"],
			[BIN, "scan", empty, "--exit-zero"],
			[BIN, "--version"],
		],
		STARTS,
		{ ...context, cwd: empty },
	);
	if (!bare || !scan || !version) return [];
	const row = (measure: string, usage: Usage, target: string): FastRow => ({
		skills: 0,
		measure,
		medianMs: usage.wallMs,
		baselineMs: bare.wallMs,
		note: `${ratio(usage.wallMs, bare.wallMs)} wall, ${ratio(usage.cpuMs, bare.cpuMs)} CPU vs \`node -e 0\`; target ${target}`,
	});
	return [row("start-up: `scan` of an empty workspace", scan, "≤ 1.5×"), row("start-up: `--version`", version, "≤ 2×")];
}

/** `skillset list`, cold and warm, against `openskills list` on one flat `.claude/skills` folder of `count` skills. */
async function listRows(work: string, count: number, context: ProcessContext): Promise<FastRow[]> {
	let openskills: string;
	try {
		openskills = createRequire(join(REPO, "package.json")).resolve("openskills/dist/cli.js");
	} catch {
		return [
			{
				skills: count,
				measure: "`skillset list` vs `openskills list`",
				medianMs: 0,
				note: "skipped: openskills is not installed",
			},
		];
	}
	const generated = join(work, "list-source");
	const workspace = join(work, "list-workspace");
	const tree = await generateTree(generated, count, 7);
	for (const file of tree.files) {
		const target = join(workspace, ".claude", "skills", basename(dirname(file)));
		await mkdir(target, { recursive: true });
		await copyFile(file, join(target, "SKILL.md"));
	}
	await settle();
	const ctx = { ...context, cwd: workspace, env: { SKILLSET_CACHE_DIR: join(work, "list-cache") } };
	// A conventional folder is walked within the default bounds (2,000 folders): past them `skillset list` stops
	// early and says so, and would list a fifth of what openskills lists. There it is named as the one root, whose
	// bounds are larger (what the warning tells the user to do).
	const named = count >= DEFAULT_WALK_LIMITS.maxDirs ? ["--no-default-roots", "--root", join(".claude", "skills")] : [];
	const commands = [
		[openskills, "list"],
		[BIN, "list", "--no-cache", ...named],
		[BIN, "list", ...named],
	];
	interleaved(commands, 1, ctx);
	// Both sides list every skill (with --all, the ones skillset rejects too), or the row would compare less work.
	runNode([BIN, "list", "--all", ...named], ctx);
	const listed = readFileSync(ctx.stdoutFile, "utf8").split("\n").filter(Boolean).length;
	if (listed !== count) throw new Error(`skillset list --all listed ${listed} of ${count} skills`);
	const [theirs, cold, warm] = interleaved(commands, listRuns(count), ctx);
	await rm(generated, { recursive: true, force: true });
	await rm(workspace, { recursive: true, force: true });
	if (!theirs || !cold || !warm) return [];
	const row = (measure: string, ours: typeof cold, target: string): FastRow => ({
		skills: count,
		measure,
		medianMs: ours.wallMs,
		baselineMs: theirs.wallMs,
		note: `${ratio(ours.wallMs, theirs.wallMs)} wall, ${ratio(ours.cpuMs, theirs.cpuMs)} CPU; flat generated collection${named.length ? " named with --root" : ""}, median of ${listRuns(count)} runs; target ${target}`,
	});
	return [
		row("cold `skillset list` vs `openskills list` (baseline)", cold, "≤ 1.0×"),
		row("warm `skillset list` vs `openskills list` (baseline)", warm, "≤ 0.5×"),
	];
}

/**
 * Waits out the racy window after writing a tree: a file that changed less than two seconds before a scan is not
 * kept in the index, so the first (warming) run would leave the newest files to be read again.
 */
export function settle(): Promise<void> {
	return new Promise((done) => setTimeout(done, 2500));
}

/** All rows of this bench; the trees live under the system temp folder and are removed afterwards. */
export async function benchDiscoveryFast(sizes: readonly number[] = [1000, 10_000]): Promise<FastRow[]> {
	const work = join(tmpdir(), `skillset-bench-fast-${process.pid}`);
	const empty = join(work, "empty");
	await mkdir(empty, { recursive: true });
	const context = await processContext(work, empty);
	try {
		const rows = startupRows(empty, context);
		rows.push(...(await startupPeerRows(work, context)));
		for (const count of sizes) rows.push(...(await scanRows(work, count, context)));
		// The sizes: the real collection's count, then 1k and 10k (openskills is faster than no size).
		for (const count of LIST_SIZES) rows.push(...(await listRows(work, count, context)));
		return rows;
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}
