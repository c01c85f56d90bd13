import type { SkillIndex } from "./skill-index.ts";

// Which indexes are a saved result read back whole (warm-read.ts), and the digest of that result's file. The saved
// result is checked against everything it depends on, and its file's key names the roots and settings, so two
// indexes with one digest hold the same skills: a stage that derives a value from an index's catalog skills (the
// catalog) can name it by this digest instead of serializing and hashing every skill again on each warm run.

const digests = new WeakMap<SkillIndex, string>();
/** The saved-result index each such index's first catalog skill came from. */
const origins = new WeakMap<object, SkillIndex>();

/** Records that `index` is the saved result whose file's payload has the SHA-256 `digest`. */
export function rememberResultDigest(index: SkillIndex, digest: string): void {
	digests.set(index, digest);
	const first = index.catalogSkills[0];
	if (first) origins.set(first, index);
}

/**
 * The digest that names `index`'s catalog skills: that of the saved result it was read back from, or of the one
 * whose catalog skills it holds, the very same objects in the same order (an MCP server's index of the skills it
 * serves, when it serves them all); undefined for any other index.
 */
export function resultDigestOf(index: SkillIndex): string | undefined {
	const own = digests.get(index);
	if (own !== undefined) return own;
	const skills = index.catalogSkills;
	const origin = skills[0] && origins.get(skills[0]);
	if (!origin) return undefined;
	const theirs = origin.catalogSkills;
	if (theirs.length !== skills.length || skills.some((skill, i) => skill !== theirs[i])) return undefined;
	return digests.get(origin);
}
