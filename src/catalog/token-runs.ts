// BPE tokenizers merge within one pre-tokenized piece, and a piece can be as long as a run of letters, symbols or
// spaces: a 64 KiB run without spaces took seconds to count, a 256 KiB one a minute. Text without such runs is
// counted whole (exact); a run longer than the bound is counted in bound-sized parts, which keeps the work linear.

/** The longest run of letters, of symbols or of spaces counted as one piece. */
export const MAX_TOKEN_RUN_CHARS: number = 256;

// Runs of one class, as the o200k and cl100k pre-tokenizers group them: letters (with marks), symbols and
// punctuation (marks go with letters), whitespace. Digits are split in groups of at most three, so they never make a
// long piece. A piece may take one character across a class boundary, so none is longer than about twice the bound.
const RUN = /[\p{L}\p{M}]+|[^\s\p{L}\p{M}\p{N}]+|\s+/gu;

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
	if (text.length <= maxRun || !mayHaveLongRun(text, maxRun)) return count(text);
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

// ASCII classes for the quick check: 1 letter, 2 symbol or control, 3 space, 4 digit.
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, code) => {
	const char = String.fromCharCode(code);
	if (/[A-Za-z]/.test(char)) return 1;
	if (/[0-9]/.test(char)) return 4;
	return /\s/.test(char) ? 3 : 2;
});

/**
 * A linear check that finds every run longer than `maxRun` (and maybe a few that are not): ASCII characters are
 * classed exactly, any other character may belong to the run on either side of it.
 */
function mayHaveLongRun(text: string, maxRun: number): boolean {
	let kind = 0;
	let length = 0;
	let wild = 0;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code >= 128) {
			length++;
			wild++;
		} else {
			const next = ASCII_CLASS[code] ?? 2;
			if (next === 4) length = 0;
			else if (next === kind) length++;
			else length = wild + 1;
			kind = next;
			wild = 0;
		}
		if (length > maxRun) return true;
	}
	return false;
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
