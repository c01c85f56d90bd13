// Whole-process measurements for the discovery benches: each command runs as its own Node process with a preload
// that reports its CPU time and peak RSS, several commands interleaved so that load on the machine hits all alike.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** One row of the bench table (the shape bench/run.ts prints). */
export interface FastRow {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

/** What a process cost. */
export interface Usage {
	wallMs: number;
	cpuMs: number;
	maxRssMiB: number;
}

/** Where processes run: folder, home, the usage report's file and preload, and extra environment. */
export interface ProcessContext {
	cwd: string;
	home: string;
	usageFile: string;
	reporter: string;
	/** Where each process's stdout goes (a file, as `--json` output to a file would). */
	stdoutFile: string;
	env?: Record<string, string>;
}

export const REPO: string = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The package's bin (a CommonJS file), as `npx skillset` runs it. */
export const BIN: string = join(
	REPO,
	(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { bin: Record<string, string> }).bin
		.skillset as string,
);

/** Writes the preload into `work` and returns the context for processes run from `work`. */
export async function processContext(work: string, home: string): Promise<ProcessContext> {
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
	return { cwd: work, home, usageFile: join(work, "usage.json"), reporter, stdoutFile: join(work, "stdout.txt") };
}

/** Runs `node ...args` once; wall time from here, CPU and peak RSS reported by the child at exit. */
export function runNode(args: string[], context: ProcessContext): Usage {
	const stdout = openSync(context.stdoutFile, "w");
	const started = performance.now();
	const child = spawnSync(process.execPath, ["-r", context.reporter, ...args], {
		cwd: context.cwd,
		env: {
			...process.env,
			HOME: context.home,
			NO_COLOR: "1",
			SKILLSET_BENCH_USAGE: context.usageFile,
			...context.env,
		},
		stdio: ["ignore", stdout, "inherit"],
	});
	const wallMs = performance.now() - started;
	closeSync(stdout);
	if (child.error) throw child.error;
	const usage = JSON.parse(readFileSync(context.usageFile, "utf8")) as {
		userCPUTime: number;
		systemCPUTime: number;
		maxRSS: number;
	};
	return { wallMs, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssMiB: usage.maxRSS / 1024 };
}

/** The median, to a tenth. */
export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 10) / 10;
}

/** A program other than Node (a peer's CLI, Python): only its wall time is known, CPU and RSS read 0. */
export interface External {
	program: string;
	args: string[];
}

/** Runs `program args` once with the context's folder, home and stdout; wall time only. */
export function runExternal(command: External, context: ProcessContext): Usage {
	const stdout = openSync(context.stdoutFile, "w");
	const started = performance.now();
	const child = spawnSync(command.program, command.args, {
		cwd: context.cwd,
		env: { ...process.env, HOME: context.home, NO_COLOR: "1", ...context.env },
		stdio: ["ignore", stdout, "ignore"],
	});
	const wallMs = performance.now() - started;
	closeSync(stdout);
	if (child.error) throw child.error;
	return { wallMs, cpuMs: 0, maxRssMiB: 0 };
}

/** Runs each command `runs` times, interleaved, and returns the median wall, CPU and peak RSS of each. */
export function interleaved(commands: (string[] | External)[], runs: number, context: ProcessContext): Usage[] {
	const samples: Usage[][] = commands.map(() => []);
	for (let run = 0; run < runs; run++) {
		for (const [index, command] of commands.entries()) {
			samples[index]?.push(Array.isArray(command) ? runNode(command, context) : runExternal(command, context));
		}
	}
	return samples.map((list) => ({
		wallMs: median(list.map((u) => u.wallMs)),
		cpuMs: median(list.map((u) => u.cpuMs)),
		maxRssMiB: median(list.map((u) => u.maxRssMiB)),
	}));
}

/** `a / b` as `1.23×`. */
export const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

/** A row of a process against its baseline: wall ratio and CPU ratio in the note, and the target. */
export function versus(skills: number, measure: string, ours: Usage, base: Usage, target: string): FastRow {
	return {
		skills,
		measure,
		medianMs: ours.wallMs,
		baselineMs: base.wallMs,
		note: `${ratio(ours.wallMs, base.wallMs)} wall, ${ratio(ours.cpuMs, base.cpuMs)} CPU (${ours.cpuMs} vs ${base.cpuMs} ms); target ${target}`,
	};
}
