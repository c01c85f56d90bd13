import type { DiscoveryDiagnostic, OriginLoad, OriginProvider } from "../discovery/index.ts";
import { sha256 } from "../runtime/index.ts";
import { type CachedSkill, OriginCache } from "./cache.ts";
import { describeFailure, SourceError } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits, fetchBelow, withDeadline } from "./fetch.ts";
import { fetchManifestFiles } from "./index-files.ts";
import { archiveKindOf, readArchive } from "./unpack.ts";
import { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";
import { checkEntryName, fetchSkillIndex, type IndexEntry, type IndexShape } from "./well-known.ts";

/** Options for {@link createIndexOrigin}. */
export interface IndexOriginOptions {
	/** Where verified copies go (`defaultCacheDir()`). */
	cacheDir: string;
	/** The byte cap of one download, and the deadline of one whole load (the index and every artifact). */
	limits?: FetchLimits;
	/** Read a v0.1.0 index, whose files have no digests (see `IndexFetchOptions`); off by default. */
	allowUnverified?: boolean;
}

/** What the cache records for a skill fetched from a v0.1.0 index. */
const UNVERIFIED = "unverified";

/**
 * A well-known index as a discovery origin (`index:<label>`): the index is read, every artifact is verified against
 * its digest (and its SKILL.md's name against the entry) before it is unpacked into the cache, unchanged entries are
 * served from the cache without a download, and an unreachable origin serves its last verified copies. One deadline
 * covers a whole load; copies from a v0.1.0 index are served only while `allowUnverified` is set.
 */
export function createIndexOrigin(label: string, url: string, options: IndexOriginOptions): OriginProvider {
	const origin = `index:${label}`;
	const limits = options.limits ?? DEFAULT_FETCH_LIMITS;
	const allowUnverified = options.allowUnverified === true;
	const cache = new OriginCache(options.cacheDir, origin, url);
	// A copy from a v0.1.0 index was never verified: without the user's say-so it is not served, even from the cache.
	const servable = (skills: Record<string, CachedSkill>) =>
		Object.fromEntries(Object.entries(skills).filter(([, s]) => allowUnverified || s.published !== UNVERIFIED));
	return {
		origin,
		async load(): Promise<OriginLoad> {
			const operation = withDeadline(limits);
			const state = await cache.read(origin, url);
			const diagnostics: DiscoveryDiagnostic[] = [];
			const report = (code: DiscoveryDiagnostic["code"], message: string, severity: DiscoveryDiagnostic["severity"]) =>
				diagnostics.push({ code, severity, message, file: `${origin} ${url}` });
			let entries: IndexEntry[];
			let root: string | undefined;
			let shape: IndexShape;
			try {
				const index = await fetchSkillIndex(new URL(url), operation, { allowUnverified });
				root = index.root;
				shape = index.shape;
				for (const warning of index.warnings) report("origin.failed", warning, "warning");
				if (index.version === "0.1.0")
					report("origin.failed", "a v0.1.0 index has no digests: its files are trusted as first fetched", "warning");
				entries = index.entries;
			} catch (error) {
				const failure = describeFailure(error, "source.fetch");
				report("origin.failed", `${failure.message} [${failure.code}]`, "warning");
				return cache.serve(servable(state.skills), diagnostics, true);
			}
			const current: Record<string, CachedSkill> = {};
			const late: string[] = [];
			for (const entry of entries) {
				const previous = servable(state.skills)[entry.name];
				if (operation.deadline?.aborted) {
					late.push(entry.name);
					if (previous) current[entry.name] = previous;
					continue;
				}
				try {
					current[entry.name] = await refresh(entry, previous, cache, operation, root);
				} catch (error) {
					const failure = describeFailure(error, "source.fetch");
					report("origin.refused", `${entry.name}: ${failure.message} [${failure.code}]`, "error");
					if (previous) current[entry.name] = previous;
				}
			}
			if (late.length > 0) {
				const names = `${late.slice(0, 10).join(", ")}${late.length > 10 ? ", …" : ""}`;
				const message = `the load's deadline (${limits.timeoutMs} ms) passed before ${names} could be fetched [source.timeout]`;
				report("origin.refused", message, "error");
			}
			await cache.save({ origin, url, refreshedAt: new Date().toISOString(), shape, skills: current });
			return cache.serve(current, diagnostics, false);
		},
	};
}

/** Fetches (or keeps) one entry's verified copy; a local index's files are read only inside its `root`, no link followed. */
async function refresh(
	entry: IndexEntry,
	previous: CachedSkill | undefined,
	cache: OriginCache,
	limits: FetchLimits,
	root: string | undefined,
): Promise<CachedSkill> {
	if (entry.type === "files") return cache.store(entry.name, await fetchFiles(entry, limits, root), UNVERIFIED);
	if (previous && previous.published === entry.digest && cache.verify(previous)) return previous;
	if (entry.type === "manifest") {
		const files = await fetchManifestFiles(entry, limits, root);
		return cache.store(entry.name, new Map(files.map((file) => [file.path, file.data])), entry.digest);
	}
	const bytes = await fetchBelow(root, entry.url, limits);
	const digest = `sha256:${sha256(bytes)}`;
	if (digest !== entry.digest) {
		throw new SourceError("digest.mismatch", `the artifact's digest is ${digest}, the index says ${entry.digest}`);
	}
	const files = new Map<string, Uint8Array>();
	if (entry.type === "skill-md") files.set("SKILL.md", bytes);
	else {
		const kind = archiveKindOf(entry.url.pathname);
		if (!kind) throw new SourceError("archive.format", `${entry.url} is not a .tar.gz or .zip archive`);
		for (const file of await readArchive(bytes, kind, { requireSkillMd: true })) files.set(file.path, file.data);
	}
	checkEntryName(entry.name, files.get("SKILL.md"));
	return cache.store(entry.name, files, entry.digest);
}

/** A v0.1.0 entry's files, held to an archive's bounds: a file at most 8 MiB, 64 MiB in all. */
async function fetchFiles(
	entry: Extract<IndexEntry, { type: "files" }>,
	limits: FetchLimits,
	root: string | undefined,
): Promise<Map<string, Uint8Array>> {
	const files = new Map<string, Uint8Array>();
	let total = 0;
	for (const path of entry.files) {
		const maxBytes = Math.min(limits.maxBytes, DEFAULT_UNPACK_LIMITS.maxFileBytes);
		const bytes = await fetchBelow(root, new URL(path, entry.base), { ...limits, maxBytes });
		total += bytes.length;
		if (total > DEFAULT_UNPACK_LIMITS.maxTotalBytes) {
			throw new SourceError(
				"source.too-large",
				`${entry.name}: its files pass ${DEFAULT_UNPACK_LIMITS.maxTotalBytes} bytes`,
			);
		}
		files.set(path, bytes);
	}
	checkEntryName(entry.name, files.get("SKILL.md"));
	return files;
}
