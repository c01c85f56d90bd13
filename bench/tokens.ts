// Token counting on long runs without spaces: the default tokenizer (runs counted in bounded parts) against the
// plain BPE count, which is quadratic on such runs and so is timed on a smaller input.
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { loadDefaultTokenizer } from "skillset";

/** One row of the benchmark table (the shape bench/run.ts prints). */
export interface TokenRow {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

const KIB = 1024;

function medianMs(runs: number, task: () => unknown): number {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) {
		const started = performance.now();
		task();
		times.push(performance.now() - started);
	}
	times.sort((a, b) => a - b);
	return Math.round((times[Math.floor(times.length / 2)] ?? 0) * 10) / 10;
}

/** Counts 1 MiB inputs with the default tokenizer, and the plain count on 64 KiB (or 16 Ki CJK characters). */
export async function benchTokens(): Promise<TokenRow[]> {
	const tokenizer = await loadDefaultTokenizer();
	const prose = "The quick brown fox jumps over the lazy dog, then reads references/guide.md. ";
	const cases = [
		{ what: "1 MiB of `x` (no spaces)", text: "x".repeat(1024 * KIB), old: "x".repeat(64 * KIB), oldSize: "64 KiB" },
		{
			what: "512 Ki CJK characters (no spaces)",
			text: "漢".repeat(512 * KIB),
			old: "漢".repeat(16 * KIB),
			oldSize: "16 Ki chars",
		},
		{ what: "1 MiB of prose", text: prose.repeat((1024 * KIB) / prose.length), old: undefined, oldSize: "" },
	];
	const rows: TokenRow[] = [];
	for (const item of cases) {
		const ours = medianMs(5, () => tokenizer.count(item.text));
		const old = item.old;
		const baseline = medianMs(old ? 1 : 5, () => countTokens(old ?? item.text));
		const note = old ? `plain count on ${item.oldSize} only (quadratic)` : "plain count on the same text";
		rows.push({ skills: 0, measure: `count tokens, ${item.what}`, medianMs: ours, baselineMs: baseline, note });
	}
	return rows;
}
