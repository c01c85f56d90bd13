import { isUtf8 } from "node:buffer";
import { ProtocolError, ProtocolErrorCode, type StandardSchemaV1 } from "@modelcontextprotocol/server";
import { type DigestCache, entryFromTree, type ServeRules, type SkillEntry } from "./entries.ts";
import { checkHeld } from "./held-check.ts";
import { type HeldEntry, holdEntry, stillHeld } from "./held-entry.ts";
import type { ServedSkill, ServePlan } from "./plan.ts";
import { type TreeProblem, walkSkill } from "./walk.ts";

/**
 * The most file entries one `skills/list` page carries (a page always holds at least one skill): 100 skills at
 * SEP-2640's 512 files each would otherwise make one answer of about 7 MB, whatever the page size.
 */
export const MAX_PAGE_RESOURCES = 2048;

/** The first protocol revision whose `skills/list` result carries the caching hints (as the SDK adds them). */
const FIRST_HINTED_PROTOCOL = "2026-07-28";
/** The caching hints the SDK's skills extension sends by default: clients keep nothing. */
const CACHE_HINTS = { ttlMs: 0, cacheScope: "private" } as const;
const CURSOR_PREFIX = "after:";
// A cursor names one URI; anything far longer was not given by this server, and is refused before decoding.
const MAX_CURSOR_CHARS = 8192;

/** How many skills a `skills/list` page holds: at most `built` whose entries had to be built, `skills` in all. */
export interface PageSize {
	built: number;
	skills: number;
}

/** Held entries checked between two turns of the event loop while a page is made. */
const PAGE_STRETCH = 100;

function nextTurn(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** One page of `skills/list`. */
export interface SkillsPage {
	skills: SkillEntry[];
	nextCursor?: string;
}

/** The params of `skills/list`: an optional string cursor (the rest, `_meta`, is not used). */
export const LIST_PARAMS: StandardSchemaV1<unknown, { cursor?: string }> = {
	"~standard": {
		version: 1,
		vendor: "skillset",
		validate(value) {
			const cursor = typeof value === "object" && value !== null ? (value as { cursor?: unknown }).cursor : undefined;
			if (cursor === undefined) return { value: {} };
			if (typeof cursor !== "string") return { issues: [{ message: "must be a string", path: ["cursor"] }] };
			return { value: { cursor } };
		},
	},
};

/**
 * The skill entries of a server, each kept with the snapshot's served skill it describes (so a rescan's snapshot
 * starts afresh and the old entries go with the old snapshot). Every use checks the folder again: an entry is reused
 * only while every folder and file it was built from is unchanged, so a listing is as current as a fresh build.
 */
export class SkillEntries {
	readonly #held = new WeakMap<ServedSkill, HeldEntry>();
	readonly #ordered = new WeakMap<ServePlan, readonly ServedSkill[]>();
	readonly #rules: ServeRules;
	readonly #cache: DigestCache;

	constructor(rules: ServeRules, cache: DigestCache) {
		this.#rules = rules;
		this.#cache = cache;
	}

	/** The served skill's entry as its folder is now, or why it cannot be listed. */
	async entry(served: ServedSkill): Promise<SkillEntry | TreeProblem> {
		return this.held(served) ?? (await this.#build(served));
	}

	/** The served skill's entry when the one held is still what its folder holds (checked with `lstat`s), else undefined. */
	held(served: ServedSkill): SkillEntry | undefined {
		const held = this.#held.get(served);
		if (held && stillHeld(held)) return held.entry;
		this.#held.delete(served);
		return undefined;
	}

	async #build(served: ServedSkill): Promise<SkillEntry | TreeProblem> {
		const tree = walkSkill(served.dir, this.#rules, this.#rules.listings);
		if ("code" in tree) return tree;
		const entry = await entryFromTree(served, tree, this.#rules, this.#cache);
		if ("code" in entry) return entry;
		const kept = holdEntry(entry, served.dir, tree, this.#rules);
		if (kept) this.#held.set(served, kept);
		return entry;
	}

	/**
	 * One page in URI order from the cursor: at most `size.built` skills whose entries had to be built (their digests
	 * read), `size.skills` skills in all and {@link MAX_PAGE_RESOURCES} files. The cursor names the last URI sent (as
	 * the SDK's own catalogs page), so when a rescan adds or removes skills mid-enumeration, every skill present
	 * throughout is still listed exactly once.
	 */
	async page(
		plan: ServePlan,
		cursor: string | undefined,
		size: PageSize,
		warn: (message: string) => void,
	): Promise<SkillsPage> {
		const ordered = this.#orderedOf(plan);
		const start = cursor === undefined ? 0 : firstAfter(ordered, cursorUri(cursor));
		const skills: SkillEntry[] = [];
		let files = 0;
		let built = 0;
		let at = start;
		while (at < ordered.length && at - start < size.skills && built < size.built) {
			// A long page of held entries is a run of lstats: other requests are served between two stretches.
			if (at > start) await nextTurn();
			const end = Math.min(ordered.length, at + PAGE_STRETCH, start + size.skills);
			const first = at;
			const held = this.#heldStretch(ordered, first, end, MAX_PAGE_RESOURCES - files, skills.length === 0);
			// The stretch's check stands until this page awaits a build: after that each held entry is checked alone.
			let fresh = true;
			for (; at < end && built < size.built; at++) {
				const served = ordered[at] as ServedSkill;
				// One left out of the stretch's check (it seemed not to fit) is checked alone when it is reached after all.
				let entry: SkillEntry | TreeProblem | undefined = (fresh ? held[at - first] : undefined) ?? this.held(served);
				if (!entry) {
					built++;
					fresh = false;
					entry = await this.#build(served);
				}
				if ("code" in entry) {
					warn(`${served.uri} left out of skills/list: ${entry.message} (${entry.code})`);
					continue;
				}
				if (skills.length > 0 && files + entry.resources.length > MAX_PAGE_RESOURCES)
					return this.#ended(ordered, at, skills);
				skills.push(entry);
				files += entry.resources.length;
			}
		}
		return this.#ended(ordered, at, skills);
	}

	/** The page of `skills`, with a cursor after the last skill before `at` when more remain. */
	#ended(ordered: readonly ServedSkill[], at: number, skills: SkillEntry[]): SkillsPage {
		const last = ordered[at - 1];
		return at < ordered.length && last ? { skills, nextCursor: cursorAfter(last.uri) } : { skills };
	}

	/**
	 * The entries of `ordered[from, end)` that are held and still what their folders hold (all checked in one run of
	 * lstats, shared with a helper thread when long), index for index from `from` (a gap where one must be built).
	 * Only as many as can fit in `room` files are checked: the rest of the stretch is built or checked when reached.
	 */
	#heldStretch(
		ordered: readonly ServedSkill[],
		from: number,
		end: number,
		room: number,
		empty: boolean,
	): (SkillEntry | undefined)[] {
		const found: HeldEntry[] = [];
		const at: number[] = [];
		let files = 0;
		for (let i = from; i < end; i++) {
			const held = this.#held.get(ordered[i] as ServedSkill);
			if (!held) continue;
			files += held.entry.resources.length;
			if (files > room && !(empty && found.length === 0)) break;
			found.push(held);
			at.push(i - from);
		}
		const verdicts = checkHeld(found);
		const entries: (SkillEntry | undefined)[] = new Array(end - from);
		verdicts.forEach((same, i) => {
			const held = found[i] as HeldEntry;
			if (same) entries[at[i] as number] = held.entry;
			else this.#held.delete(ordered[from + (at[i] as number)] as ServedSkill);
		});
		return entries;
	}

	#orderedOf(plan: ServePlan): readonly ServedSkill[] {
		let ordered = this.#ordered.get(plan);
		if (!ordered) {
			ordered = [...plan.served].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
			this.#ordered.set(plan, ordered);
		}
		return ordered;
	}
}

/** The caching hints for a connection on `protocol`: only 2026-07-28 and later results carry them. */
export function cacheHintsFor(protocol: string | undefined): Partial<typeof CACHE_HINTS> {
	return protocol !== undefined && protocol >= FIRST_HINTED_PROTOCOL ? { ...CACHE_HINTS } : {};
}

/** The cursor for the page after `uri`, spelled as the SDK's catalogs spell theirs. */
function cursorAfter(uri: string): string {
	return Buffer.from(CURSOR_PREFIX + uri, "utf8").toString("base64url");
}

/** The URI a cursor names; a cursor this server did not give (any other spelling) is invalid params. */
function cursorUri(cursor: string): string {
	const invalid = () => new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
	if (cursor.length > MAX_CURSOR_CHARS) throw invalid();
	const bytes = Buffer.from(cursor, "base64url");
	// Decoding skips stray characters and padding: only the exact spelling the server gives is accepted.
	if (bytes.toString("base64url") !== cursor || !isUtf8(bytes)) throw invalid();
	const text = bytes.toString("utf8");
	if (!text.startsWith(CURSOR_PREFIX)) throw invalid();
	return text.slice(CURSOR_PREFIX.length);
}

/** The index of the first skill whose URI sorts after `uri` (binary search; `ordered` is in URI order). */
function firstAfter(ordered: readonly ServedSkill[], uri: string): number {
	let low = 0;
	let high = ordered.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if ((ordered[middle] as ServedSkill).uri <= uri) low = middle + 1;
		else high = middle;
	}
	return low;
}
