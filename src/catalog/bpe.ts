/**
 * Byte-pair-encoding token counts for tiktoken-style encodings (ranks of byte strings, lowest rank merges first).
 * Byte strings are held as latin1 JS strings: one char per byte, so a Map lookup needs no allocation per byte.
 */
export type BpeRanks = ReadonlyMap<string, number>;

// Pieces up to this many bytes use the plain quadratic merge, which is fastest for the short pieces of real text;
// longer pieces use a heap so that one huge run without spaces stays O(n log n).
const SHORT_PIECE_BYTES = 64;

// A piece longer than this (no word of real text is) is counted in chunks of this size, so a megabyte without a
// space costs what a megabyte of prose costs; each cut can move the count by about one token.
const MAX_PIECE_BYTES = 256;
// Counts of recent pieces: prose repeats its words, so most pieces are answered by one lookup.
const CACHE_ENTRIES = 50_000;

/** A token counter for one encoding: the pre-tokeniser `pattern` (global, unicode) and the merge ranks. */
export interface BpeCounter {
	count(text: string): number;
}

/** Creates a counter with its own bounded cache of piece counts. Linear in the input length. */
export function createBpeCounter(pattern: RegExp, ranks: BpeRanks): BpeCounter {
	// Keyed by byte string: a piece's own text could equal another piece's latin1 bytes.
	const cache = new Map<string, number>();
	const countChunk = (bytes: string): number => {
		const cached = cache.get(bytes);
		if (cached !== undefined) return cached;
		const tokens = ranks.has(bytes) ? 1 : countPieceTokens(bytes, ranks);
		if (cache.size >= CACHE_ENTRIES) cache.clear();
		cache.set(bytes, tokens);
		return tokens;
	};
	const countPiece = (piece: string): number => {
		const bytes = toByteString(piece);
		if (bytes.length <= MAX_PIECE_BYTES) return countChunk(bytes);
		let tokens = 0;
		for (let at = 0; at < bytes.length; at += MAX_PIECE_BYTES)
			tokens += countChunk(bytes.slice(at, at + MAX_PIECE_BYTES));
		return tokens;
	};
	return {
		count(text) {
			const scanner = new RegExp(pattern.source, pattern.flags);
			let tokens = 0;
			for (let match = scanner.exec(text); match; match = scanner.exec(text)) tokens += countPiece(match[0]);
			return tokens;
		},
	};
}

/** Tokens of one pre-tokenised piece (a latin1 byte string). */
export function countPieceTokens(bytes: string, ranks: BpeRanks): number {
	if (bytes.length <= 1) return bytes.length;
	return bytes.length <= SHORT_PIECE_BYTES ? mergeShort(bytes, ranks) : mergeLong(bytes, ranks);
}

/** The UTF-8 bytes of `text` as a latin1 string; ASCII text is its own byte string. */
export function toByteString(text: string): string {
	let ascii = true;
	for (let i = 0; i < text.length && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
	return ascii ? text : Buffer.from(text, "utf8").toString("latin1");
}

function rankOf(bytes: string, start: number, end: number, ranks: BpeRanks): number {
	return ranks.get(bytes.slice(start, end)) ?? Number.POSITIVE_INFINITY;
}

/** tiktoken's merge: repeatedly join the adjacent pair whose bytes have the lowest rank (leftmost on ties). */
function mergeShort(bytes: string, ranks: BpeRanks): number {
	const starts: number[] = [];
	for (let i = 0; i <= bytes.length; i++) starts.push(i);
	const pairRanks: number[] = [];
	for (let i = 0; i < starts.length - 2; i++) pairRanks.push(rankOf(bytes, i, i + 2, ranks));
	for (;;) {
		let best = Number.POSITIVE_INFINITY;
		let at = -1;
		for (let i = 0; i < pairRanks.length; i++) {
			const rank = pairRanks[i] as number;
			if (rank < best) {
				best = rank;
				at = i;
			}
		}
		if (at < 0) return starts.length - 1;
		starts.splice(at + 1, 1);
		pairRanks.splice(at, 1);
		const end = (i: number) => starts[i + 2] ?? -1;
		if (at > 0) pairRanks[at - 1] = rankOf(bytes, starts[at - 1] as number, end(at - 1), ranks);
		if (at < pairRanks.length) {
			const stop = end(at);
			pairRanks[at] = stop < 0 ? Number.POSITIVE_INFINITY : rankOf(bytes, starts[at] as number, stop, ranks);
		}
	}
}

/** The same merge order with a min-heap of candidate pairs over a linked list of parts; typed arrays throughout. */
function mergeLong(bytes: string, ranks: BpeRanks): number {
	const n = bytes.length;
	const next = new Int32Array(n + 1);
	const prev = new Int32Array(n + 1);
	for (let i = 0; i <= n; i++) {
		next[i] = i + 1;
		prev[i] = i - 1;
	}
	const heap = new PairHeap(3 * n);
	const pairs = pairTable(ranks);
	for (let i = 0; i + 2 <= n; i++) {
		const rank = pairs[(bytes.charCodeAt(i) << 8) | bytes.charCodeAt(i + 1)] as number;
		if (rank >= 0) heap.add(rank, i, i + 2);
	}
	heap.heapify();
	let parts = n;
	const offer = (start: number) => {
		if (start < 0) return;
		const mid = next[start] as number;
		if (mid >= n) return;
		const stop = next[mid] as number;
		const rank = ranks.get(bytes.slice(start, stop));
		if (rank !== undefined) heap.push(rank, start, stop);
	};
	while (heap.size > 0) {
		const start = heap.topStart();
		const stop = heap.topStop();
		heap.pop();
		const mid = next[start] as number;
		// Stale when the part at `start` was merged away (its old neighbour points elsewhere now) or its pair no
		// longer ends at `stop`.
		if (mid >= n || prev[mid] !== start || next[mid] !== stop) continue;
		next[start] = stop;
		prev[stop] = start;
		parts--;
		offer(prev[start] as number);
		offer(start);
	}
	return parts;
}

const pairTables = new WeakMap<BpeRanks, Int32Array>();

/** Ranks of every two-byte string (-1 when absent), so a long piece's first pass does no string work. */
function pairTable(ranks: BpeRanks): Int32Array {
	let table = pairTables.get(ranks);
	if (table) return table;
	table = new Int32Array(65536).fill(-1);
	for (let pair = 0; pair < 65536; pair++) {
		const rank = ranks.get(String.fromCharCode(pair >> 8, pair & 255));
		if (rank !== undefined) table[pair] = rank;
	}
	pairTables.set(ranks, table);
	return table;
}

// Heap keys pack (rank, start) into one float: rank * 2^26 + start orders by rank, then leftmost.
const START_SPAN = 2 ** 26;

/** A binary min-heap of candidate pairs keyed by (rank, start), with the pair's end alongside. */
class PairHeap {
	#keys: Float64Array;
	#stops: Int32Array;
	size = 0;

	constructor(capacity: number) {
		this.#keys = new Float64Array(Math.max(capacity, 4));
		this.#stops = new Int32Array(Math.max(capacity, 4));
	}

	/** Appends without ordering; call `heapify` once after the last `add`. */
	add(rank: number, start: number, stop: number): void {
		this.#grow();
		this.#keys[this.size] = rank * START_SPAN + start;
		this.#stops[this.size++] = stop;
	}

	heapify(): void {
		for (let i = (this.size >> 1) - 1; i >= 0; i--) this.#down(i);
	}

	push(rank: number, start: number, stop: number): void {
		this.add(rank, start, stop);
		let i = this.size - 1;
		while (i > 0) {
			const parent = (i - 1) >> 1;
			if ((this.#keys[parent] as number) <= (this.#keys[i] as number)) break;
			this.#swap(i, parent);
			i = parent;
		}
	}

	topStart(): number {
		return (this.#keys[0] as number) % START_SPAN;
	}

	topStop(): number {
		return this.#stops[0] as number;
	}

	pop(): void {
		this.size--;
		this.#keys[0] = this.#keys[this.size] as number;
		this.#stops[0] = this.#stops[this.size] as number;
		this.#down(0);
	}

	#down(from: number): void {
		const keys = this.#keys;
		let i = from;
		for (;;) {
			const left = 2 * i + 1;
			let smallest = i;
			if (left < this.size && (keys[left] as number) < (keys[smallest] as number)) smallest = left;
			if (left + 1 < this.size && (keys[left + 1] as number) < (keys[smallest] as number)) smallest = left + 1;
			if (smallest === i) return;
			this.#swap(i, smallest);
			i = smallest;
		}
	}

	#swap(i: number, j: number): void {
		const key = this.#keys[i] as number;
		this.#keys[i] = this.#keys[j] as number;
		this.#keys[j] = key;
		const stop = this.#stops[i] as number;
		this.#stops[i] = this.#stops[j] as number;
		this.#stops[j] = stop;
	}

	#grow(): void {
		if (this.size < this.#keys.length) return;
		const keys = new Float64Array(this.#keys.length * 2);
		keys.set(this.#keys);
		this.#keys = keys;
		const stops = new Int32Array(this.#stops.length * 2);
		stops.set(this.#stops);
		this.#stops = stops;
	}
}
