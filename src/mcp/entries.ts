import { isAscii, isUtf8 } from "node:buffer";
import { lstatSync, type Stats } from "node:fs";
import { join, posix } from "node:path";
import { type HeldRoots, mediaTypeOf, readContainedAsync, type SkillsLock } from "../runtime/index.ts";
import type { BufferPool, Lease } from "./buffer-pool.ts";
import type { McpCode } from "./codes.ts";
import type { FileBytes } from "./deferred.ts";
import { SKIPPED_DIRS, settled } from "./folder-rules.ts";
import type { JsonValue } from "./frontmatter-rules.ts";
import {
	LARGE_READ_BYTES,
	type LargeReadRefusal,
	type LargeReads,
	type LargeReadTurn,
	MAX_WAITING_LARGE_READS,
	MAX_WAITING_PER_CONNECTION,
} from "./large-reads.ts";
import type { ServedSkill, ServePlan } from "./plan.ts";
import { directoryUri, fileUri, uriSegments } from "./uri.ts";
import { type FileRules, type SkillTree, type TreeProblem, walkSkill } from "./walk.ts";

/** How files are served: the read rules, the large-answer queue and, in verify mode, the lock every file must match. */
export interface ServeRules extends FileRules {
	lock?: SkillsLock;
	largeReads?: LargeReads;
	/** Buffers for large reads, reused once their answers are written (`FileBytes.release`). */
	buffers?: BufferPool;
	/** Skill folders held open between `resources/read`s (closed by the server on a new snapshot and on close). */
	roots?: HeldRoots;
}

/** A SEP-2640 skill entry: the SKILL.md URI, the frontmatter as written, and every file with its digest. */
export type SkillEntry = {
	uri: string;
	frontmatter: { name: string; description: string; [key: string]: JsonValue };
	resources: { uri: string; digest: string; size: number }[];
};

/** A child of a directory resource. */
export interface DirectoryChild {
	uri: string;
	name: string;
	mimeType: string;
	size?: number;
}

/**
 * A read of one served file up to this size happens in the request's own turn once verified: from the page cache that
 * takes a few microseconds, less than the round trip to the thread pool (which was a fifth of a small read's cost).
 * Only for the one file a request asks for; the digests of a listing still go through the pool.
 */
const SYNC_READ_BYTES = 64 * 1024;

interface Digest {
	hex: string;
	size: number;
}

/** The identity of a file's content as far as `stat` can tell (mtime can be set back; ctime cannot). */
function statKey(stats: Stats): string {
	return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/**
 * SHA-256 digests computed once per file and reused while the file's (device, inode, size, mtime, ctime) stay the same;
 * a changed file gets a new digest. Per server, never process-wide. Files are read (contained) in chunks off the
 * event loop, and concurrent requests for one file share one read.
 */
export class DigestCache {
	readonly #entries = new Map<string, { key: string; digest: Digest }>();
	readonly #reading = new Map<string, Promise<Digest | undefined>>();

	/** Entries held. */
	get size(): number {
		return this.#entries.size;
	}

	/** Forgets the files for which `keep` says no (the skill went away), so a long-running server stays bounded. */
	prune(keep: (path: string) => boolean): void {
		for (const path of this.#entries.keys()) if (!keep(path)) this.#entries.delete(path);
	}

	/** The digest of `rel` in `dir` as of `stats`, reading the file (contained) only when it is not cached. */
	async digest(dir: string, rel: string, stats: Stats, rules: FileRules): Promise<Digest | undefined> {
		const path = join(dir, rel);
		const key = statKey(stats);
		const cached = this.#entries.get(path);
		if (cached?.key === key) return cached.digest;
		const pending = `${key} ${path}`;
		let reading = this.#reading.get(pending);
		if (!reading) {
			reading = this.#read(dir, rel, stats, rules).finally(() => this.#reading.delete(pending));
			this.#reading.set(pending, reading);
		}
		return reading;
	}

	async #read(dir: string, rel: string, stats: Stats, rules: FileRules): Promise<Digest | undefined> {
		const path = join(dir, rel);
		const key = statKey(stats);
		const started = Date.now();
		const read = await readContainedAsync(dir, rel, {
			maxBytes: rules.maxBytes,
			allowHardLinks: rules.allowHardLinks,
			digest: "sha256",
			// No syncBytes here: a page hashes thousands of files, and each must leave a turn to other requests.
		});
		if (!read.ok || read.sha256 === undefined) return undefined;
		const digest = { hex: read.sha256, size: read.size };
		// Cache only when the file still has the identity it was listed with: a write in between is read again.
		if (read.size === stats.size && settled(stats, started) && statKey(lstatSync(path)) === key)
			this.#entries.set(path, { key, digest });
		return digest;
	}
}

/**
 * A skill's entry from a walk of its folder: every file with its digest (from the cache), in URI order as the SDK's
 * own catalogs give them; in verify mode only the files the lock pins.
 */
export async function entryFromTree(
	served: ServedSkill,
	tree: SkillTree,
	rules: ServeRules,
	cache: DigestCache,
): Promise<SkillEntry | TreeProblem> {
	const resources: SkillEntry["resources"] = [];
	for (const file of tree.files) {
		const digest = await cache.digest(served.dir, file.rel, file.stats, rules);
		if (!digest) return { code: "mcp.unreadable", message: `${file.rel} could not be read` };
		if (!matchesLock(served, file.rel, digest.hex, rules.lock)) {
			if (file.rel === "SKILL.md") return { code: "mcp.lock-mismatch", message: "SKILL.md does not match the lock" };
			continue;
		}
		resources.push({ uri: fileUri(served.path, file.rel), digest: `sha256:${digest.hex}`, size: digest.size });
	}
	resources.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
	const frontmatter = served.frontmatter as SkillEntry["frontmatter"];
	return { uri: served.uri, frontmatter, resources };
}

/** True outside verify mode, or when the lock pins this file of the skill with this hash. */
function matchesLock(served: ServedSkill, rel: string, hex: string, lock: SkillsLock | undefined): boolean {
	if (!lock) return true;
	return lock.skills[served.skill.name]?.files[rel]?.sha256 === hex;
}

/** The served skill a URI falls in, and the relative path after its skill path (longest skill path first). */
export function locate(plan: ServePlan, uri: string): { served: ServedSkill; rel: string } | undefined {
	const segments = uriSegments(uri);
	if (!segments) return undefined;
	// A scoped skill's path is two segments (`user/pdf`), a plain one's one: the longer is tried first.
	const [first = "", second] = segments;
	const scoped = second === undefined ? undefined : plan.byPath.get(`${first}/${second}`);
	if (scoped) return { served: scoped, rel: segments.slice(2).join("/") };
	const served = plan.byPath.get(first);
	return served ? { served, rel: segments.slice(1).join("/") } : undefined;
}

/** The rejection that ends a large read refused by a full queue (nothing was read or is held). */
const QUEUE_FULL: unique symbol = Symbol("large-read queue full");

/** A read refused for a reason the client should hear (not "no such resource"): the file is over the cap. */
export interface ReadRefusal {
	code: McpCode;
	message: string;
}

/**
 * Reads a served file by URI through the runtime's contained read (no links, no `..`, size cap, hard-link rule),
 * small ones at once and larger ones in chunks off the event loop, refusing skipped folders and, in verify mode, files that do not match the lock.
 * Undefined for anything else. The bytes are not decoded here: a large text may be written in slices instead.
 * `owner` (the asking connection) waits for a large read within its own share of the queue.
 */
export async function readFile(
	plan: ServePlan,
	uri: string,
	rules: ServeRules,
	owner?: object,
): Promise<FileBytes | ReadRefusal | undefined> {
	const found = locate(plan, uri);
	if (!found || found.rel === "" || found.rel.split("/").some((segment) => SKIPPED_DIRS.has(segment))) return undefined;
	return readServed(found.served, found.rel, rules, owner);
}

async function readServed(
	served: ServedSkill,
	rel: string,
	rules: ServeRules,
	owner: object | undefined,
): Promise<FileBytes | ReadRefusal | undefined> {
	let lease: Lease | undefined;
	const { buffers } = rules;
	const borrow = (size: number): Uint8Array => {
		lease = buffers?.lease(size);
		return lease?.bytes ?? new Uint8Array(size);
	};
	// A large file waits for its turn (decided by the opened file's size, no `lstat` of its path first); when too many
	// already wait, it is refused.
	let turn: LargeReadTurn | undefined;
	let refused: LargeReadRefusal | undefined;
	const { largeReads } = rules;
	const beforeRead = (size: number): Promise<void> | undefined => {
		if (!largeReads || size <= LARGE_READ_BYTES) return undefined;
		const taken = largeReads.take(owner);
		if (typeof taken === "string") {
			refused = taken;
			return Promise.reject(QUEUE_FULL);
		}
		turn = taken;
		return turn.ready;
	};
	let read: Awaited<ReturnType<typeof readContainedAsync>>;
	try {
		read = await readContainedAsync(served.dir, rel, {
			beforeRead,
			buffer: borrow,
			syncBytes: SYNC_READ_BYTES,
			...(rules.roots ? { roots: rules.roots } : {}),
			maxBytes: rules.maxBytes,
			allowHardLinks: rules.allowHardLinks,
			...(rules.lock ? { digest: "sha256" as const } : {}),
		});
	} catch (error) {
		if (error !== QUEUE_FULL) throw error;
		const waiting =
			refused === "share"
				? `this connection has ${MAX_WAITING_PER_CONNECTION} large reads waiting already`
				: `${MAX_WAITING_LARGE_READS} large reads are waiting already`;
		const message = `${fileUri(served.path, rel)} is refused: ${waiting}; try again once they are answered`;
		return { code: "mcp.busy", message };
	} finally {
		// What follows (and the answer made of it) runs in this turn: the next large read starts a turn later.
		turn?.done();
	}
	if (!read.ok && read.code === "resource.too-large")
		return {
			code: "mcp.too-large",
			message: `${fileUri(served.path, rel)} is over the ${rules.maxBytes}-byte read cap`,
		};
	if (!read.ok) return undefined;
	if (rules.lock && !matchesLock(served, read.path, read.sha256 ?? "", rules.lock)) return undefined;
	const mimeType = mediaTypeOf(read.path);
	const release = lease ? { release: lease.release } : {};
	// ASCII text (most skill files) is UTF-8 and decodes as Latin-1, the same characters and much cheaper: one scan
	// tells both, and only other bytes are checked for UTF-8.
	const ascii = isAscii(read.bytes);
	const binary = read.bytes.subarray(0, 8192).includes(0) || (!ascii && !isUtf8(read.bytes));
	if (binary) return { bytes: read.bytes, mimeType, encoding: "base64", ...release };
	return { bytes: read.bytes, mimeType, encoding: ascii ? "latin1" : "utf8", ...release };
}

/** The direct children of a served skill's folder (or sub-folder) by URI; undefined when it is not one. */
export async function readDirectory(
	plan: ServePlan,
	uri: string,
	rules: ServeRules,
	cache: DigestCache,
): Promise<DirectoryChild[] | undefined> {
	const found = locate(plan, uri);
	if (!found) return undefined;
	const tree = walkSkill(found.served.dir, rules, rules.listings);
	if ("code" in tree || !tree.dirs.includes(found.rel)) return undefined;
	const parentOf = (rel: string) => (rel.includes("/") ? posix.dirname(rel) : "");
	const { path } = found.served;
	const children: DirectoryChild[] = tree.dirs
		.filter((dir) => dir !== "" && parentOf(dir) === found.rel)
		.map((dir) => ({ uri: directoryUri(path, dir), name: posix.basename(dir), mimeType: "inode/directory" }));
	for (const file of tree.files) {
		if (parentOf(file.rel) !== found.rel) continue;
		if (rules.lock) {
			const digest = await cache.digest(found.served.dir, file.rel, file.stats, rules);
			if (!digest || !matchesLock(found.served, file.rel, digest.hex, rules.lock)) continue;
		}
		const name = posix.basename(file.rel);
		children.push({ uri: fileUri(path, file.rel), name, mimeType: mediaTypeOf(name), size: file.stats.size });
	}
	return children.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}
