// BPE tokenizers merge within one pre-tokenized piece, and a piece can be as long as a run of letters, symbols or
// spaces: a 64 KiB run without spaces took seconds to count, a 256 KiB one a minute. Text without such runs is
// counted whole (exact); a run longer than the bound is counted in bound-sized parts, which keeps the work linear.

/** The longest run of letters, of symbols or of spaces counted as one piece. */
export const MAX_TOKEN_RUN_CHARS: number = 256;

// Runs of one class, as the o200k and cl100k pre-tokenizers group them: letters (with marks), symbols and
// punctuation, whitespace. Digits are always split in groups of at most three, so they never make a long piece.
const RUN = /[\p{L}\p{M}]+|[^\s\p{L}\p{N}]+|\s+/gu;

/**
 * Counts `text` with `count`, exactly when no run of letters, symbols or spaces is longer than `maxRun`
 * characters; such a run is counted in parts of at most `maxRun` (never splitting a surrogate pair), so the cost
 * stays linear in the length of the text.
 */
export function countInBoundedRuns(
	text: string,
	count: (text: string) => number,
	maxRun: number = MAX_TOKEN_RUN_CHARS,
): number {
	if (text.length <= maxRun) return count(text);
	let total = 0;
	let from = 0;
	for (const match of text.matchAll(RUN)) {
		const run = match[0];
		if (run.length <= maxRun) continue;
		if (match.index > from) total += count(text.slice(from, match.index));
		total += countInParts(run, count, maxRun);
		from = match.index + run.length;
	}
	if (from === 0) return count(text);
	return from < text.length ? total + count(text.slice(from)) : total;
}

function countInParts(run: string, count: (text: string) => number, maxRun: number): number {
	let total = 0;
	for (let start = 0; start < run.length; ) {
		let end = Math.min(start + maxRun, run.length);
		const last = run.charCodeAt(end - 1);
		if (end < run.length && last >= 0xd800 && last < 0xdc00) end--;
		total += count(run.slice(start, end));
		start = end;
	}
	return total;
}
