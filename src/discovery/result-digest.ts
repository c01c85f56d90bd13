import type { SkillIndex } from "./skill-index.ts";

// Which indexes are a saved result read back whole (warm-read.ts), and the digest of that result's file. The saved
// result is checked against everything it depends on, and its file's key names the roots and settings, so two
// indexes with one digest hold the same skills: a stage that derives a value from an index's catalog skills (the
// catalog) can name them by this digest instead of serializing and hashing every skill again on each warm run.

const digests = new WeakMap<SkillIndex, string>();
/** The last few indexes read back from saved results, which a new index may take its skills from. */
const recent: WeakRef<SkillIndex>[] = [];
const RECENT = 4;

/** Records that `index` is the saved result whose file's payload has the SHA-256 `digest`. */
export function rememberResultDigest(index: SkillIndex, digest: string): void {
	digests.set(index, digest);
	recent.unshift(new WeakRef(index));
	recent.length = Math.min(recent.length, RECENT);
}

/**
 * The digest of the saved result `index` is (read back whole, or the one a scan saved), or undefined for any other
 * index, one that holds a part of such a result included.
 */
export function resultDigestOf(index: SkillIndex): string | undefined {
	return digests.get(index);
}

/** What names an index's catalog skills: a saved result's digest, and which of its catalog skills are not there. */
export interface ResultName {
	digest: string;
	/** Positions in the saved result's catalog skills that the index does not hold (ascending). */
	omitted: number[];
}

/**
 * The name of `index`'s catalog skills: the digest of the saved result it was read back from, or of one whose
 * catalog skills it holds in part or whole, the very same objects in the same order (an MCP server's index of the
 * skills it serves), with the positions it leaves out; undefined for any other index.
 */
export function resultNameOf(index: SkillIndex): ResultName | undefined {
	const own = digests.get(index);
	if (own !== undefined) return { digest: own, omitted: [] };
	const skills = index.catalogSkills;
	for (const ref of recent) {
		const origin = ref.deref();
		const digest = origin && digests.get(origin);
		if (!origin || digest === undefined) continue;
		const all = origin.catalogSkills;
		// More left out than the two counts differ by: not a part of this origin (stop before walking it all).
		const most = all.length - skills.length;
		const omitted: number[] = [];
		let next = 0;
		for (let i = 0; i < all.length && omitted.length <= most; i++) {
			if (all[i] === skills[next]) next++;
			else omitted.push(i);
		}
		if (next === skills.length && omitted.length <= most) return { digest, omitted };
	}
	return undefined;
}
