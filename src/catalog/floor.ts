// The description floor (DESIGN.md §4): the least of a description a catalog shows. It must say what the skill is
// for and when to use it, so it keeps at least `floorWords` words and the description's "Use when …" clause, within
// a fixed cap. A slogan for a first sentence ("Every product will be AI-powered.") is not a floor.

/** The default floor in words. */
export const DEFAULT_FLOOR_WORDS = 12;

/** The most words a floor takes to keep a "Use when …" clause. */
export const FLOOR_CAP_WORDS = 30;

/** The order in which a cut keeps a description's words: `order[0..floor)` is the floor, the rest come after. */
export interface WordPlan {
	order: number[];
	floor: number;
}

/** A word that ends a sentence: `.`, `!` or `?`, maybe closed by quotes or brackets. */
const SENTENCE_END = /[.!?]["'”’)\]]*$/u;
/** A word that ends a clause: a sentence end, or `;` / `:`. */
const CLAUSE_END = /[.!?;:]["'”’)\]]*$/u;
/** How far back from "use" a clause may start: "This skill should be used when". */
const LEAD_WORDS = 4;
/** How far after "use" its "when" may come: "Use this skill proactively when". */
const WHEN_WITHIN = 4;

/** The word without surrounding punctuation, lowercased. */
function bare(word: string): string {
	return word
		.trim()
		.replace(/^[("'“‘[]+|[)"'”’\].,;:!?]+$/gu, "")
		.toLowerCase();
}

/** True when `words[i]` ends a sentence: a sentence mark and then the end, or a word that starts like a sentence. */
function endsSentence(words: readonly string[], i: number): boolean {
	if (!SENTENCE_END.test(words[i] ?? "")) return false;
	const next = words[i + 1]?.trimStart();
	return next === undefined || /^[\p{Lu}\p{N}"'“‘(]/u.test(next);
}

/** The index after the sentence that holds `from`, or `words.length`. */
function sentenceEnd(words: readonly string[], from: number): number {
	for (let i = from; i < words.length; i++) if (endsSentence(words, i)) return i + 1;
	return words.length;
}

/** Where "use … when" (or "use … whenever", or "Use for" opening a clause) is, as the index of "use". */
function findUse(words: readonly string[]): number | undefined {
	for (let i = 0; i < words.length; i++) {
		const word = bare(words[i] ?? "");
		if (word !== "use" && word !== "used") continue;
		const opens = i === 0 || CLAUSE_END.test(words[i - 1] ?? "");
		if (word === "use" && opens && bare(words[i + 1] ?? "") === "for") return i;
		for (let k = 1; k <= WHEN_WITHIN && i + k < words.length; k++) {
			const next = bare(words[i + k] ?? "");
			if (next === "when" || next === "whenever") return i;
			if (CLAUSE_END.test(words[i + k] ?? "")) break;
		}
	}
	return undefined;
}

/**
 * The description's "use when" clause as word indices `[start, end)`: from the start of its clause (a few words
 * before "use", as in "This skill should be used when") to the end of its sentence.
 */
export function useWhenClause(words: readonly string[]): { start: number; end: number } | undefined {
	const use = findUse(words);
	if (use === undefined) return undefined;
	let start = use;
	for (let i = use - 1; i >= Math.max(0, use - LEAD_WORDS); i--) {
		if (CLAUSE_END.test(words[i] ?? "")) break;
		start = i;
	}
	if (start > 0 && start < use && !CLAUSE_END.test(words[start - 1] ?? "")) start = use;
	return { start, end: sentenceEnd(words, use) };
}

/**
 * How a description is cut: its floor keeps at least `floorWords` words and its "use when" clause, within
 * `max(capWords, floorWords)` words. A clause beyond the cap is kept after the description's opening (its first
 * sentence, up to `floorWords` words), so the floor says what the skill is and when to use it. Above the floor,
 * words come back in this order: the rest of the clause, the rest of the opening, then what follows.
 */
export function planWords(words: readonly string[], floorWords: number, capWords: number = FLOOR_CAP_WORDS): WordPlan {
	const n = words.length;
	const prefix = (floor: number): WordPlan => ({ order: range(0, n), floor: Math.min(n, floor) });
	if (floorWords <= 0 || n <= floorWords) return prefix(floorWords);
	const cap = Math.max(capWords, floorWords);
	const clause = useWhenClause(words);
	if (!clause) return prefix(floorWords);
	if (clause.end <= cap) return prefix(Math.max(floorWords, clause.end));
	let head = Math.min(clause.start, sentenceEnd(words, 0), floorWords);
	const taken = Math.min(clause.end - clause.start, cap - head);
	if (head + taken < floorWords) head = Math.min(clause.start, floorWords - taken);
	if (head >= clause.start) return prefix(clause.start + taken);
	const order = [
		...range(0, head),
		...range(clause.start, clause.end),
		...range(head, clause.start),
		...range(clause.end, n),
	];
	return { order, floor: head + taken };
}

function range(from: number, to: number): number[] {
	return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
