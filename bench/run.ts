// `npm run bench`: discovery, rescans and catalog fitting on generated skill trees, against a naive baseline
// (read every whole file, parse its frontmatter with default YAML settings) in the same run.
import { execFileSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	buildCatalog,
	createDiscovery,
	createSession,
	type DiscoverOptions,
	discover,
	loadDefaultTokenizer,
	type SkillIndex,
} from "skillset";
import { parse } from "yaml";
import { benchAgent } from "./agent.ts";
import { benchAudit } from "./audit.ts";
import { benchCatalog } from "./catalog.ts";
import { benchDeploy } from "./deploy.ts";
import { benchDiscoveryFast } from "./discovery-fast.ts";
import { benchDiscoveryWarm } from "./discovery-warm.ts";
import { generateTree } from "./generate.ts";
import { benchMcp } from "./mcp.ts";
import { benchMcpPressure } from "./mcp-pressure.ts";
import { benchOrigins } from "./origins.ts";
import { benchTokens } from "./tokens.ts";

const RUNS = 5;
const SIZES = [1000, 10_000];

interface Row {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

async function median(runs: number, task: () => Promise<unknown>): Promise<number> {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) {
		const started = performance.now();
		await task();
		times.push(performance.now() - started);
	}
	times.sort((a, b) => a - b);
	return Math.round((times[Math.floor(times.length / 2)] ?? 0) * 10) / 10;
}

/** The naive loader: list everything, read every SKILL.md whole, parse its frontmatter with `yaml` defaults. */
async function naive(root: string): Promise<number> {
	const names = (await readdir(root, { recursive: true })).filter((p) => p.endsWith("SKILL.md"));
	const parsed = await Promise.all(
		names.map(async (name) => {
			const text = await readFile(join(root, name), "utf8");
			const [, frontmatter] = text.split(/^---$/m);
			try {
				return parse(frontmatter ?? "");
			} catch {
				return null;
			}
		}),
	);
	return parsed.filter(Boolean).length;
}

async function benchSize(count: number, rows: Row[]): Promise<Record<string, number>> {
	const root = join(tmpdir(), `skillset-bench-${count}`);
	const tree = await generateTree(root, count);
	const options: DiscoverOptions = {
		cwd: root,
		home: root,
		defaultRoots: false,
		roots: [root],
		limits: { maxDirs: 100_000, maxEntries: 1_000_000 },
	};
	await discover(options); // warm the page cache the same way for both loaders
	const cold = await median(RUNS, () => discover(options));
	const baseline = await median(3, () => naive(root));
	rows.push({
		skills: count,
		measure: "cold discovery",
		medianMs: cold,
		baselineMs: baseline,
		note: "frontmatter bytes only",
	});

	const discovery = createDiscovery(options);
	const first = await discovery.scan();
	// Wall and CPU apart: a long rescan shares its stats with a helper thread (CPU of every thread of the process).
	const cpuBefore = process.cpuUsage();
	const rescan = await median(RUNS, () => discovery.scan());
	const cpu = process.cpuUsage(cpuBefore);
	const rescanCpu = Math.round((cpu.user + cpu.system) / RUNS / 100) / 10;
	rows.push({
		skills: count,
		measure: "rescan, nothing changed",
		medianMs: rescan,
		note: `${Math.round((rescan / cold) * 100)}% of cold; ${rescanCpu} ms CPU (mean)`,
	});
	let edit = 0;
	const changed = await median(RUNS, async () => {
		const file = tree.files[edit++ % tree.files.length] ?? "";
		await writeFile(file, (await readFile(file, "utf8")).replace("# skill", "# Skill"));
		await discovery.scan();
	});
	rows.push({ skills: count, measure: "rescan, one file changed", medianMs: changed, note: "includes the edit" });

	const tokenizer = await loadDefaultTokenizer();
	const index = first.index;
	const fit = await median(RUNS, () => buildCatalog(index, { tokenizer, budget: { tokens: 4000 } }));
	const fitted = await buildCatalog(index, { tokenizer, budget: { tokens: 4000 } });
	rows.push({
		skills: count,
		measure: "fit catalog into 4,000 tokens",
		medianMs: fit,
		note: `${fitted.report.kept.length} kept, ${fitted.report.tokens} tokens exact`,
	});
	const activation = await activationTimes(index, tokenizer);
	rows.push({
		skills: count,
		measure: "cold activation (p50)",
		medianMs: activation.cold,
		note: "new session: contained read, parse, resource list, render, token count",
	});
	rows.push({
		skills: count,
		measure: "cached activation (p50)",
		medianMs: activation.cached,
		note: "already active in the session",
	});
	const full = await buildCatalog(
		index.catalogSkills.slice(0, 1000).map((s) => ({ name: s.name, description: s.description, location: s.realFile })),
		{ tokenizer },
	);
	const xml = await buildCatalog(
		index.catalogSkills.slice(0, 1000).map((s) => ({ name: s.name, description: s.description, location: s.realFile })),
		{ tokenizer, format: "xml" },
	);
	const memoryScript = new URL("./memory.js", import.meta.url).pathname;
	const memory = JSON.parse(execFileSync(process.execPath, ["--expose-gc", memoryScript, root], { encoding: "utf8" }));
	return {
		skills: count,
		selected: first.report.counts.selected,
		rejected: first.report.counts.rejected,
		generatedBroken: tree.broken,
		tokensPerSkillMarkdown: full.report.tokensPerSkill,
		tokensPerSkillXml: xml.report.tokensPerSkill,
		rssMiB: memory.rssMiB,
		indexHeapMiB: memory.indexHeapMiB,
	};
}

/** p50 of activating a skill in a new session (cold) and again in the same session (cached). */
async function activationTimes(index: SkillIndex, tokenizer: Awaited<ReturnType<typeof loadDefaultTokenizer>>) {
	const names = index.catalogSkills.slice(0, 200).map((skill) => skill.name);
	const cold: number[] = [];
	const cached: number[] = [];
	for (const name of names) {
		const session = createSession(index, { tokenizer });
		let started = performance.now();
		await session.activate(name);
		cold.push(performance.now() - started);
		started = performance.now();
		await session.activate(name);
		cached.push(performance.now() - started);
	}
	const p50 = (times: number[]) =>
		Math.round((times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0) * 1000) / 1000;
	return { cold: p50(cold), cached: p50(cached) };
}

async function main(): Promise<void> {
	const rows: Row[] = [];
	const sizes: Record<string, number>[] = [];
	const tokenizerStart = performance.now();
	await loadDefaultTokenizer();
	const tokenizerLoadMs = Math.round(performance.now() - tokenizerStart);
	// SKILLSET_BENCH_ONLY=discovery,warm (comma-separated group names) runs only those groups; default: all.
	const only = process.env.SKILLSET_BENCH_ONLY?.split(",").map((name) => name.trim());
	const wanted = (group: string) => !only || only.includes(group);
	if (wanted("sizes")) for (const count of SIZES) sizes.push(await benchSize(count, rows));
	if (wanted("origins")) for (const row of await benchOrigins()) rows.push({ skills: 1000, ...row });
	if (wanted("tokens")) rows.push(...(await benchTokens()));
	if (wanted("catalog")) rows.push(...(await benchCatalog()));
	if (wanted("agent")) rows.push(...(await benchAgent()));
	if (wanted("audit")) rows.push(...(await benchAudit()));
	if (wanted("mcp")) rows.push(...(await benchMcp()));
	if (wanted("mcp-pressure")) rows.push(...(await benchMcpPressure()));
	if (wanted("deploy")) rows.push(...(await benchDeploy()));
	if (wanted("discovery")) rows.push(...(await benchDiscoveryFast()));
	if (wanted("warm")) rows.push(...(await benchDiscoveryWarm()));
	console.log(
		`node ${process.version}, ${RUNS} runs per measure (median), tokenizer load ${tokenizerLoadMs} ms (once)\n`,
	);
	console.log("| skills | measure | median ms | naive baseline ms | note |");
	console.log("|---:|---|---:|---:|---|");
	for (const row of rows) {
		console.log(`| ${row.skills} | ${row.measure} | ${row.medianMs} | ${row.baselineMs ?? ""} | ${row.note ?? ""} |`);
	}
	console.log(
		"\n| skills | selected | rejected | tokens/skill (markdown) | tokens/skill (xml) | RSS MiB | index heap MiB |",
	);
	console.log("|---:|---:|---:|---:|---:|---:|---:|");
	for (const s of sizes) {
		console.log(
			`| ${s.skills} | ${s.selected} | ${s.rejected} | ${s.tokensPerSkillMarkdown} | ${s.tokensPerSkillXml} | ${s.rssMiB} | ${s.indexHeapMiB} |`,
		);
	}
	const results = { node: process.version, runs: RUNS, tokenizerLoadMs, rows, sizes };
	await writeFile(new URL("../../bench/results.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
}

await main();
