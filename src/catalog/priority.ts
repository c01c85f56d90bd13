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
	const keys = entries.map((entry) => ({
		rank: entry.rank ?? 0,
		recent: recent.get(entry.name) ?? Number.POSITIVE_INFINITY,
		hash: nameHash(entry.name),
	}));
	const order = entries.map((_, i) => i);
	return order.sort((a, b) => {
		const x = keys[a] as (typeof keys)[number];
		const y = keys[b] as (typeof keys)[number];
		return (
			x.rank - y.rank ||
			(scores ? (scores[b] ?? 0) - (scores[a] ?? 0) : 0) ||
			compare(x.recent, y.recent) ||
			x.hash - y.hash ||
			a - b
		);
	});
}

function compare(a: number, b: number): number {
	return a === b ? 0 : a < b ? -1 : 1;
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
