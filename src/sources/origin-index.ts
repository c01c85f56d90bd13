import type { DiscoveryDiagnostic, OriginLoad, OriginProvider } from "../discovery/index.ts";
import { sha256 } from "../runtime/index.ts";
import { parseSkillFrontmatter } from "../skill/index.ts";
import { type CachedSkill, OriginCache } from "./cache.ts";
import { describeFailure, SourceError } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits, fetchBelow } from "./fetch.ts";
import { archiveKindOf, readArchive } from "./unpack.ts";
import { fetchSkillIndex, type IndexEntry } from "./well-known.ts";

/** Options for {@link createIndexOrigin}. */
export interface IndexOriginOptions {
	/** Where verified copies go (`defaultCacheDir()`). */
	cacheDir: string;
	limits?: FetchLimits;
}

/**
 * A well-known index as a discovery origin (`index:<label>`): the index is read, every artifact is verified against
 * its digest (and its SKILL.md's name against the entry) before it is unpacked into the cache, unchanged entries are
 * served from the cache without a download, and an unreachable origin serves its last verified copies.
 */
export function createIndexOrigin(label: string, url: string, options: IndexOriginOptions): OriginProvider {
	const origin = `index:${label}`;
	const limits = options.limits ?? DEFAULT_FETCH_LIMITS;
	const cache = new OriginCache(options.cacheDir, origin, url);
	return {
		origin,
		async load(): Promise<OriginLoad> {
			const state = await cache.read(origin, url);
			const diagnostics: DiscoveryDiagnostic[] = [];
			const report = (code: DiscoveryDiagnostic["code"], message: string, severity: DiscoveryDiagnostic["severity"]) =>
				diagnostics.push({ code, severity, message, file: `${origin} ${url}` });
			let entries: IndexEntry[];
			let root: string | undefined;
			try {
				const index = await fetchSkillIndex(new URL(url), limits);
				root = index.root;
				for (const warning of index.warnings) report("origin.failed", warning, "warning");
				if (index.version === "0.1.0")
					report("origin.failed", "a v0.1.0 index has no digests: its files are trusted as first fetched", "warning");
				entries = index.entries;
			} catch (error) {
				report("origin.failed", describeFailure(error, "source.fetch").message, "warning");
				return cache.serve(state.skills, diagnostics, true);
			}
			const current: Record<string, CachedSkill> = {};
			for (const entry of entries) {
				try {
					current[entry.name] = await refresh(entry, state.skills[entry.name], cache, limits, root);
				} catch (error) {
					const failure = describeFailure(error, "source.fetch");
					report("origin.refused", `${entry.name}: ${failure.message} [${failure.code}]`, "error");
					const previous = state.skills[entry.name];
					if (previous) current[entry.name] = previous;
				}
			}
			await cache.save({ origin, url, refreshedAt: new Date().toISOString(), skills: current });
			return cache.serve(current, diagnostics, false);
		},
	};
}

async function refresh(
	entry: IndexEntry,
	previous: CachedSkill | undefined,
	cache: OriginCache,
	limits: FetchLimits,
	root: string | undefined,
): Promise<CachedSkill> {
	// A local index's files are read only inside its root folder, no link followed (`fetchBelow`).
	if (entry.type === "files") {
		const files = new Map<string, Uint8Array>();
		for (const path of entry.files) files.set(path, await fetchBelow(root, new URL(path, entry.base), limits));
		checkName(entry.name, files.get("SKILL.md"));
		return cache.store(entry.name, files, "unverified");
	}
	if (previous && previous.published === entry.digest && cache.verify(previous)) return previous;
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
	checkName(entry.name, files.get("SKILL.md"));
	return cache.store(entry.name, files, entry.digest);
}

/** The SKILL.md must declare the name the index lists it under (the catalog shows that name). */
function checkName(name: string, skillMd: Uint8Array | undefined): void {
	if (!skillMd) throw new SourceError("archive.no-skill-md", "no SKILL.md");
	const parsed = parseSkillFrontmatter(skillMd, { complete: true, profile: "lenient" });
	const declared = "frontmatter" in parsed ? (parsed.frontmatter?.data as { name?: unknown } | null)?.name : undefined;
	if (declared !== name) {
		throw new SourceError(
			"index.invalid",
			`its SKILL.md declares the name ${JSON.stringify(declared)}, the index says '${name}'`,
		);
	}
}
