import { ProtocolError, ProtocolErrorCode, type Resource, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { SkillReadResult, SkillSource } from "@modelcontextprotocol/server/ext/skills";
import { answerFor } from "./deferred.ts";
import { type DigestCache, type ReadRefusal, readDirectory, readFile, type ServeRules } from "./entries.ts";
import { connectionOf } from "./http-io.ts";
import type { ServePlan } from "./plan.ts";
import type { PageSize, SkillEntries } from "./skills-list.ts";

/** What the source reads on every call: the current plan (swapped whole on a rescan), rules and cache. */
export interface SourceState {
	readonly plan: ServePlan;
	readonly rules: ServeRules;
	readonly cache: DigestCache;
	/** The skill entries, reused while their files stay the same. */
	readonly entries: SkillEntries;
	readonly pageSize: number;
	/** How many skills a `skills/list` page holds. */
	readonly listSize: PageSize;
	/** Reports a skill dropped from a listing because its folder changed since the plan. */
	warn(message: string): void;
}

/**
 * The SEP-2640 skill source behind the SDK's skills extension: pages of entries checked by fresh walks (entries and
 * digests cached), `skills/get` for any served SKILL.md URI, contained reads, directory reads and the SKILL.md listing.
 */
export function createSkillSource(state: () => SourceState): SkillSource {
	return {
		// The server answers skills/list itself (the same pages, without the SDK checking every entry again); this
		// is the source's own answer, for a server that attaches it alone.
		async list(params) {
			const { plan, entries, listSize, warn } = state();
			return entries.page(plan, params.cursor, listSize, warn);
		},
		async get(uri) {
			const { plan, entries } = state();
			const served = plan.served.find((candidate) => candidate.uri === uri);
			if (!served) return undefined;
			const entry = await entries.entry(served);
			return "code" in entry ? undefined : entry;
		},
		async read(uri, ctx): Promise<SkillReadResult | undefined> {
			const { plan, rules } = state();
			// Over HTTP, the request's connection has its own share of the large-read queue.
			const file = await readFile(plan, uri, rules, connectionOf(ctx?.http?.req));
			if (file === undefined) return undefined;
			if ("code" in file) throw readError(uri, file);
			return answerFor(file, ctx);
		},
		async readDirectory(uri, params) {
			const { plan, rules, cache, pageSize } = state();
			// One trailing slash names the same folder (`skill://x/dir/`); an empty segment anywhere else stays invalid.
			const folder = /[^/]\/$/.test(uri) ? uri.slice(0, -1) : uri;
			const children = await readDirectory(plan, folder, rules, cache);
			if (!children) return undefined;
			const start = parseCursor(params.cursor, children.length);
			const end = Math.min(start + pageSize, children.length);
			const resources: Resource[] = children.slice(start, end);
			return end < children.length ? { resources, nextCursor: String(end) } : { resources };
		},
		async listResources() {
			return state().plan.served.map(skillResource);
		},
	};
}

/**
 * The error a `resources/read` of `uri` ends with when the read gave `file` (a refusal, or undefined for no such
 * file): the refusal as invalid params with its code, or what the SDK's skills extension throws for a miss.
 */
export function readError(uri: string, file: ReadRefusal | undefined): ProtocolError {
	if (file === undefined) return new ResourceNotFoundError(uri);
	return new ProtocolError(ProtocolErrorCode.InvalidParams, file.message, { code: file.code });
}

/** A served SKILL.md as `resources/list` shows it. */
function skillResource(served: ServePlan["served"][number]): Resource {
	return {
		uri: served.uri,
		name: String(served.frontmatter.name),
		description: String(served.frontmatter.description),
		mimeType: "text/markdown",
	};
}

/**
 * One page of `resources/list`: the SKILL.md of `pageSize` served skills from the cursor (the decimal offset, as
 * `skills/list` pages), with the next cursor while more remain. The SDK's own handler answers in one page.
 */
export function resourcesPage(
	plan: ServePlan,
	cursor: string | undefined,
	pageSize: number,
): { resources: Resource[]; nextCursor?: string } {
	const page = pageOf(plan.served, cursor, pageSize);
	const resources = page.items.map(skillResource);
	return page.nextCursor === undefined ? { resources } : { resources, nextCursor: page.nextCursor };
}

/** The `pageSize` items from the cursor (a decimal offset), with the next cursor while more remain. */
export function pageOf<T>(
	items: readonly T[],
	cursor: string | undefined,
	pageSize: number,
): { items: T[]; nextCursor?: string } {
	const start = parseCursor(cursor, items.length);
	const end = Math.min(start + pageSize, items.length);
	const page = items.slice(start, end);
	return end < items.length ? { items: page, nextCursor: String(end) } : { items: page };
}

/** A cursor is the decimal offset of the next entry; anything else is invalid params. */
function parseCursor(cursor: string | undefined, length: number): number {
	if (cursor === undefined) return 0;
	const offset = /^\d{1,9}$/.test(cursor) ? Number(cursor) : Number.NaN;
	if (!(offset <= length)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
	return offset;
}
