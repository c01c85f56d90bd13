import { bm25Scores } from "./bm25.ts";
import type { CatalogEntry } from "./render.ts";

/** What decides which skills keep a description when not all can. */
export interface PriorityOptions {
	/** What the task is about: skills relevant to it come first within a rank (BM25). */
	query?: string;
	/** Skills used recently in this workspace, most recent first: next within a rank. */
	recent?: readonly string[];
}

/**
 * The order in which skills keep their descriptions (and, when not even every name fits, their names): entry
 * indices, first kept first. By precedence (rank), then relevance to `query`, then the `recent` skills in their
 * order, then a stable hash of the name. The hash has no alphabet bias and is the same in every run, so a catalog
 * keeps the same skills (and the prompt cache) until the skills themselves change.
 */
export function keepOrder(entries: readonly CatalogEntry[], options: PriorityOptions = {}): number[] {
	const scores = options.query?.trim() ? relevance(entries, options.query) : undefined;
	const recent = new Map<string, number>();
	for (const [i, name] of (options.recent ?? []).entries()) if (!recent.has(name)) recent.set(name, i);
	const ranks = new Map<number, number[]>();
	for (let i = 0; i < entries.length; i++) {
		const rank = entries[i]?.rank ?? 0;
		const group = ranks.get(rank);
		if (group) group.push(i);
		else ranks.set(rank, [i]);
	}
	const order: number[] = [];
	for (const rank of [...ranks.keys()].sort((a, b) => a - b)) {
		const chosen: number[] = [];
		const rest: number[] = [];
		for (const i of ranks.get(rank) ?? []) {
			if ((scores?.[i] ?? 0) > 0 || recent.has(entries[i]?.name ?? "")) chosen.push(i);
			else rest.push(i);
		}
		const keys = new Map(
			chosen.map((i) => {
				const name = entries[i]?.name ?? "";
				return [
					i,
					{ score: scores?.[i] ?? 0, recency: recent.get(name) ?? Number.POSITIVE_INFINITY, hash: nameHash(name) },
				];
			}),
		);
		const key = (i: number) => keys.get(i) as { score: number; recency: number; hash: number };
		chosen.sort(
			(a, b) =>
				key(b).score - key(a).score ||
				compare(key(a).recency, key(b).recency) ||
				compare(key(a).hash, key(b).hash) ||
				a - b,
		);
		order.push(...chosen, ...byHash(entries, rest));
	}
	return order;
}

function compare(a: number, b: number): number {
	return a === b ? 0 : a < b ? -1 : 1;
}

/** Entry indices below this fit beside a 32-bit hash in one exact float64 sort key. */
const INDEX_LIMIT = 2 ** 21;

/** `indices` by the hash of their names (then by index), with one numeric sort: a catalog of 10,000 sorts in ~1 ms. */
function byHash(entries: readonly CatalogEntry[], indices: readonly number[]): number[] {
	if (entries.length > INDEX_LIMIT) {
		const hashes = new Map(indices.map((i) => [i, nameHash(entries[i]?.name ?? "")]));
		return [...indices].sort((a, b) => compare(hashes.get(a) ?? 0, hashes.get(b) ?? 0) || a - b);
	}
	const keys = new Float64Array(indices.length);
	for (const [k, i] of indices.entries()) keys[k] = nameHash(entries[i]?.name ?? "") * INDEX_LIMIT + i;
	keys.sort();
	return Array.from(keys, (key) => key % INDEX_LIMIT);
}

/**
 * FNV-1a (32 bits) of the name with murmur3's final mix, so names that differ in one letter land far apart: a
 * fixed, well-spread order that owes nothing to the alphabet.
 */
export function nameHash(name: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < name.length; i++) {
		hash ^= name.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193);
	}
	hash ^= hash >>> 16;
	hash = Math.imul(hash, 0x85ebca6b);
	hash ^= hash >>> 13;
	hash = Math.imul(hash, 0xc2b2ae35);
	hash ^= hash >>> 16;
	return hash >>> 0;
}

function relevance(entries: readonly CatalogEntry[], query: string): number[] {
	return bm25Scores(
		entries.map((e, i) => ({
			id: String(i),
			fields: [
				{ text: e.name, weight: 3 },
				{ text: e.description, weight: 1 },
				{ text: e.triggers ?? "", weight: 1 },
			],
		})),
		query,
	);
}
