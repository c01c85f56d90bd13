// Whole-process discovery numbers (issue 10): cold `skillset scan` against a Node process that only walks the tree
// and reads every SKILL.md, start-up against a bare `node -e 0`, peak RSS of each, and `skillset list` against
// `openskills list` on a flat collection. Every pair runs interleaved in the same run, so load on the machine
// hits both sides alike; ratios are what to read.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateTree } from "./generate.ts";

/** One row of the bench table (the shape bench/run.ts prints). */
export interface FastRow {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

const RUNS = 5;
const STARTS = 15;
const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = join(REPO, "dist", "cli", "bin.js");
const FLOOR = fileURLToPath(new URL("./discovery-floor.js", import.meta.url));

interface Usage {
	wallMs: number;
	cpuMs: number;
	maxRssMiB: number;
}

/** Runs `node ...args` once; wall time from here, CPU and peak RSS reported by the child at exit. */
function runNode(args: string[], options: { cwd: string; home: string; usageFile: string; reporter: string }): Usage {
	const started = performance.now();
	const child = spawnSync(process.execPath, ["-r", options.reporter, ...args], {
		cwd: options.cwd,
		env: { ...process.env, HOME: options.home, NO_COLOR: "1", SKILLSET_BENCH_USAGE: options.usageFile },
		stdio: ["ignore", "ignore", "inherit"],
	});
	const wallMs = performance.now() - started;
	if (child.error) throw child.error;
	const usage = JSON.parse(readFileSync(options.usageFile, "utf8")) as {
		userCPUTime: number;
		systemCPUTime: number;
		maxRSS: number;
	};
	return {
		wallMs,
		cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
		maxRssMiB: usage.maxRSS / 1024,
	};
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 10) / 10;
}

/** Runs each command `runs` times, interleaved, and returns the median wall, CPU and peak RSS of each. */
function interleaved(commands: string[][], runs: number, context: Parameters<typeof runNode>[1]): Usage[] {
	const samples: Usage[][] = commands.map(() => []);
	for (let run = 0; run < runs; run++) {
		for (const [index, args] of commands.entries()) samples[index]?.push(runNode(args, context));
	}
	return samples.map((list) => ({
		wallMs: median(list.map((u) => u.wallMs)),
		cpuMs: median(list.map((u) => u.cpuMs)),
		maxRssMiB: median(list.map((u) => u.maxRssMiB)),
	}));
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/** Cold scan and catalog of `count` generated skills against the walk-and-read floor. */
async function scanRows(work: string, count: number, context: Parameters<typeof runNode>[1]): Promise<FastRow[]> {
	const root = join(work, `tree-${count}`);
	await generateTree(root, count);
	const roots = ["--no-default-roots", "--root", root];
	const scan = ["scan", root, ...roots, "--exit-zero"];
	interleaved(
		[
			[FLOOR, root],
			[BIN, ...scan],
		],
		1,
		context,
	); // warm the page cache for both
	const [floor, skillset] = interleaved(
		[
			[FLOOR, root],
			[BIN, ...scan],
		],
		RUNS,
		context,
	);
	if (!floor || !skillset) return [];
	const rows: FastRow[] = [
		{
			skills: count,
			measure: "cold `skillset scan` process vs walk-and-read floor",
			medianMs: skillset.wallMs,
			baselineMs: floor.wallMs,
			note: `${ratio(skillset.wallMs, floor.wallMs)} wall, ${ratio(skillset.cpuMs, floor.cpuMs)} CPU (${skillset.cpuMs} vs ${floor.cpuMs} ms)`,
		},
		{
			skills: count,
			measure: "peak RSS MiB of that scan vs the floor",
			medianMs: skillset.maxRssMiB,
			baselineMs: floor.maxRssMiB,
			note: ratio(skillset.maxRssMiB, floor.maxRssMiB),
		},
	];
	if (count >= 10_000) {
		const [catalog] = interleaved([[BIN, "catalog", root, ...roots]], 3, context);
		if (catalog) {
			rows.push({
				skills: count,
				measure: "`skillset catalog` process: peak RSS MiB",
				medianMs: catalog.maxRssMiB,
				note: `${catalog.wallMs} ms wall; target ≤ 150 MiB`,
			});
		}
	}
	await rm(root, { recursive: true, force: true });
	return rows;
}

/** Start-up: an empty workspace's scan and `--version` against a bare Node start. */
function startupRows(empty: string, context: Parameters<typeof runNode>[1]): FastRow[] {
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

/** `skillset list` against `openskills list` on one flat `.claude/skills` folder of `count` skills. */
async function listRow(work: string, count: number, context: Parameters<typeof runNode>[1]): Promise<FastRow> {
	let openskills: string;
	try {
		openskills = createRequire(join(REPO, "package.json")).resolve("openskills/dist/cli.js");
	} catch {
		return {
			skills: count,
			measure: "`skillset list` vs `openskills list`",
			medianMs: 0,
			note: "skipped: openskills is not installed",
		};
	}
	const generated = join(work, "list-source");
	const workspace = join(work, "list-workspace");
	const tree = await generateTree(generated, count, 7);
	for (const file of tree.files) {
		const target = join(workspace, ".claude", "skills", basename(dirname(file)));
		await mkdir(target, { recursive: true });
		await copyFile(file, join(target, "SKILL.md"));
	}
	const ctx = { ...context, cwd: workspace };
	interleaved(
		[
			[openskills, "list"],
			[BIN, "list"],
		],
		1,
		ctx,
	);
	const [theirs, ours] = interleaved(
		[
			[openskills, "list"],
			[BIN, "list"],
		],
		RUNS,
		ctx,
	);
	await rm(generated, { recursive: true, force: true });
	await rm(workspace, { recursive: true, force: true });
	if (!theirs || !ours) return { skills: count, measure: "`skillset list` vs `openskills list`", medianMs: 0 };
	return {
		skills: count,
		measure: "`skillset list` vs `openskills list` (baseline)",
		medianMs: ours.wallMs,
		baselineMs: theirs.wallMs,
		note: `${ratio(ours.wallMs, theirs.wallMs)} wall, ${ratio(ours.cpuMs, theirs.cpuMs)} CPU; flat generated collection`,
	};
}

/** All rows of this bench; the trees live under the system temp folder and are removed afterwards. */
export async function benchDiscoveryFast(sizes: readonly number[] = [1000, 10_000]): Promise<FastRow[]> {
	const work = join(tmpdir(), `skillset-bench-fast-${process.pid}`);
	const empty = join(work, "empty");
	await mkdir(empty, { recursive: true });
	const reporter = join(work, "usage.cjs");
	// A CommonJS preload (it does not start the ES module loader): the child writes its own CPU time and peak RSS.
	// Peak RSS comes from /proc/self/status (VmHWM) where there is one: `ru_maxrss` survives exec on Linux, so a
	// child of this large process would report the parent's peak.
	await writeFile(
		reporter,
		`const fs = require("node:fs");
process.on("exit", () => {
	const usage = process.resourceUsage();
	let status = "";
	try { status = fs.readFileSync("/proc/self/status", "utf8"); } catch {}
	const hwm = /VmHWM:\\s+(\\d+) kB/.exec(status);
	if (hwm) usage.maxRSS = Number(hwm[1]);
	fs.writeFileSync(process.env.SKILLSET_BENCH_USAGE, JSON.stringify(usage));
});
`,
	);
	const context = { cwd: work, home: empty, usageFile: join(work, "usage.json"), reporter };
	try {
		const rows = startupRows(empty, context);
		for (const count of sizes) rows.push(...(await scanRows(work, count, context)));
		rows.push(await listRow(work, 548, context));
		return rows;
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}
