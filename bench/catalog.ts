// The catalog under a budget: 10,000 skills into 4,000 tokens with exact o200k counts, with the description floor,
// with a query, and against a naive fitter that counts every entry's tokens in full.
import { buildCatalog, type CatalogEntry, loadDefaultTokenizer, renderCatalog, type Tokenizer } from "skillset";
import { random } from "./generate.ts";

const SKILLS = 10_000;
const BUDGET = 4000;
const RUNS = 5;

const VERBS = ["Extracts", "Converts", "Reviews", "Deploys", "Summarises", "Drafts", "Audits", "Migrates"];
const TOPICS = ["PDF forms", "CSV files", "pull requests", "Kubernetes clusters", "release notes", "SQL schemas"];
const TAIL = "Use when the user asks for it, mentions the file type, or needs a checked, repeatable result";

/** Deterministic entries in three precedence ranks, with realistic description lengths (10 to 70 words). */
function entries(): CatalogEntry[] {
	const next = random(7);
	const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
	return Array.from({ length: SKILLS }, (_, i) => {
		const extra = Array.from({ length: Math.floor(next() * 40) }, () => pick(TAIL.split(" "))).join(" ");
		return {
			name: `skill-${String(i).padStart(5, "0")}`,
			description: `${pick(VERBS)} ${pick(TOPICS)} for team ${i % 97}. ${TAIL} ${extra}.`,
			location: `/skills/skill-${i}/SKILL.md`,
			rank: i < 500 ? 0 : i < 3000 ? 1 : 2,
		};
	});
}

async function median(task: () => Promise<unknown>): Promise<number> {
	const times: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const started = performance.now();
		await task();
		times.push(performance.now() - started);
	}
	times.sort((a, b) => a - b);
	return Math.round((times[Math.floor(times.length / 2)] ?? 0) * 10) / 10;
}

/** The naive fitter: render and count every entry in full, keep them in order while they fit. */
function naive(list: readonly CatalogEntry[], tokenizer: Tokenizer): number {
	let used = 0;
	let kept = 0;
	for (const entry of list) {
		const cost = tokenizer.count(`${renderCatalog([entry])}\n`);
		if (used + cost <= BUDGET) {
			used += cost;
			kept++;
		}
	}
	return kept;
}

/** Rows for bench/run.ts's table. */
export async function benchCatalog(): Promise<
	{ skills: number; measure: string; medianMs: number; baselineMs?: number; note?: string }[]
> {
	const tokenizer = await loadDefaultTokenizer();
	const list = entries();
	const baseline = await median(async () => naive(list, tokenizer));
	const rows = [];
	for (const [measure, options] of [
		["fit 4,000 tokens, floor 12 words", {}],
		["fit 4,000 tokens, floor, query", { query: "deploy kubernetes clusters" }],
		["fit 4,000 tokens, no floor", { floorWords: 0 }],
	] as const) {
		const run = () => buildCatalog(list, { tokenizer, budget: { tokens: BUDGET }, ...options });
		const ms = await median(run);
		const { report, text } = await run();
		const exact = tokenizer.count(text);
		const words = report.kept.length > 0 ? Math.round(text.split(/\s+/).length / report.kept.length) : 0;
		rows.push({
			skills: SKILLS,
			measure,
			medianMs: ms,
			baselineMs: baseline,
			note: `${report.kept.length} kept, ${report.omitted.length} dropped, ${exact} tokens exact (≤ ${BUDGET}), ~${words} words per entry`,
		});
	}
	return rows;
}
