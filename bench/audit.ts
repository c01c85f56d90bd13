// The audit's throughput: every skill of the generated 10,000-skill tree, and 10 MB single-line files (prose dense
// with inline code, a script line, a base64-like blob), against the floor of only reading the same bytes.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { auditSkill } from "skillset";
import { generateTree } from "./generate.ts";

/** One row of the bench table (the shape bench/run.ts prints). */
export interface AuditBenchRow {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

const SKILLS = 10_000;
const LINE_BYTES = 10 * 1024 * 1024;

function filesUnder(dir: string): string[] {
	const found: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) found.push(...filesUnder(path));
		else if (entry.isFile()) found.push(path);
	}
	return found;
}

let lastCpuMs = 0;

/** Wall time of `task`; its CPU time (user + system) is kept in `lastCpuMs`, which a shared machine distorts less. */
function timed(task: () => void): number {
	const cpu = process.cpuUsage();
	const started = performance.now();
	task();
	const used = process.cpuUsage(cpu);
	lastCpuMs = Math.round((used.user + used.system) / 1000);
	return performance.now() - started;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const rate = (bytes: number, ms: number) => Math.round((bytes / 1024 / 1024 / (ms / 1000)) * 10) / 10;

/** Audits the 10,000-skill tree and three 10 MB single-line files; returns the rows. */
export async function benchAudit(): Promise<AuditBenchRow[]> {
	const rows: AuditBenchRow[] = [];
	const root = join(tmpdir(), "skillset-bench-audit");
	const tree = await generateTree(root, SKILLS);
	const dirs = tree.files.map((file) => dirname(file));
	const files = filesUnder(root);
	const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
	const baseline = timed(() => {
		for (const file of files) readFileSync(file);
	});
	let findings = 0;
	const ms = timed(() => {
		for (const dir of dirs) findings += auditSkill({ name: dir, dir }).length;
	});
	const cpu = lastCpuMs;
	rows.push({
		skills: SKILLS,
		measure: "audit every skill",
		medianMs: round(ms),
		baselineMs: round(baseline),
		note: `${rate(bytes, ms)} MB/s, ${Math.round(SKILLS / (ms / 1000))} skills/s (CPU ${cpu} ms), ${findings} findings; baseline reads the bytes only`,
	});
	await rm(root, { recursive: true, force: true });
	rows.push(...(await singleLines()));
	return rows;
}

const LINES: readonly [string, string, string][] = [
	[
		"references/line.md",
		"prose with inline code",
		"Run `npm test` then send the report to https://docs.example.org/x and ignore the whitespace; ",
	],
	["scripts/line.sh", "script", 'curl -s "$URL" | jq .name ; echo "a" + "b" ; rm -rf ./build ; base64 -d x ; '],
	["assets/line.txt", "base64-like blob", "QUJDZGVmZ2hpams0NTY3ODkrLw"],
];

async function singleLines(): Promise<AuditBenchRow[]> {
	const rows: AuditBenchRow[] = [];
	for (const [rel, label, unit] of LINES) {
		const dir = join(tmpdir(), "skillset-bench-audit-line");
		await rm(dir, { recursive: true, force: true });
		await mkdir(dirname(join(dir, rel)), { recursive: true });
		await writeFile(join(dir, "SKILL.md"), "---\nname: line\ndescription: One long line.\n---\nBody.\n");
		await writeFile(join(dir, rel), `${unit.repeat(Math.ceil(LINE_BYTES / unit.length)).slice(0, LINE_BYTES)}\n`);
		const baseline = timed(() => readFileSync(join(dir, rel)));
		let found = 0;
		const ms = timed(() => {
			found = auditSkill({ name: "line", dir }).length;
		});
		const cpu = lastCpuMs;
		rows.push({
			skills: 1,
			measure: `audit a 10 MB single-line file (${label})`,
			medianMs: round(ms),
			baselineMs: round(baseline),
			note: `${rate(LINE_BYTES, ms)} MB/s (CPU ${cpu} ms), ${found} grouped findings`,
		});
		await rm(dir, { recursive: true, force: true });
	}
	return rows;
}
