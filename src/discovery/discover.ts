import { homedir } from "node:os";
import { resolve } from "node:path";
import { type RootCache, ScanCache } from "./cache.ts";
import { type DiscoveryDiagnostic, discoveryDiagnostic } from "./codes.ts";
import type { Candidate } from "./folder.ts";
import type { LoadedSkill, LoadOptions } from "./load.ts";
import { type DiscoverOptions, validateDiscoverOptions } from "./options.ts";
import type { PersistentIndex } from "./persist.ts";
import { mapInBatches } from "./pool.ts";
import { assembleReport, buildReport, type DiscoveryReport } from "./report.ts";
import { resolveSkills } from "./resolve.ts";
import { rememberResultDigest } from "./result-digest.ts";
import { type DiscoveryRoot, resolveRoots } from "./roots.ts";
import { keepScanStats, ScanStats } from "./scan-stats.ts";
import { statState } from "./signature.ts";
import { adoptIntoIndex, type SkillIndex } from "./skill-index.ts";
import {
	DEFAULT_EXPLICIT_WALK_LIMITS,
	DEFAULT_WALK_LIMITS,
	type RootWalk,
	type WalkLimits,
	type WalkRecord,
	walkRoot,
} from "./walk.ts";
import type { ReadResult } from "./warm-read.ts";
import type { ResultInputs } from "./warm-result.ts";

/** An index and the report that explains it. */
export interface DiscoveryResult {
	index: SkillIndex;
	report: DiscoveryReport;
}

/** Finds, reads and resolves every skill the options point at, once. */
export async function discover(options: DiscoverOptions = {}): Promise<DiscoveryResult> {
	validateDiscoverOptions(options);
	return scanOnce(options, undefined);
}

/**
 * A discovery that remembers what it read: the first `scan()` is a full scan; later ones re-read only folders and
 * SKILL.md files whose signature changed. `current` is the last result.
 */
export interface Discovery {
	/** Scans again (only what changed after the first), and returns the new result; it never throws for a bad skill. */
	scan(): Promise<DiscoveryResult>;
	readonly current: DiscoveryResult | undefined;
	readonly options: Readonly<DiscoverOptions>;
}

/** Creates an incremental {@link Discovery}. Options are read now; the cwd defaults to the cwd at this call. */
export function createDiscovery(options: DiscoverOptions = {}): Discovery {
	validateDiscoverOptions(options);
	const fixed: DiscoverOptions = { ...options, cwd: resolve(options.cwd ?? process.cwd()) };
	const cache = new ScanCache();
	let current: DiscoveryResult | undefined;
	let running: Promise<DiscoveryResult> | undefined;
	const scan = async (): Promise<DiscoveryResult> => {
		const previous = current;
		if (previous) {
			const started = clock();
			const roots = await resolveRoots({ ...fixed, home: fixed.home ?? homedir() });
			const changes = cache.changes(roots.map((root) => rootKey(root, fixed)));
			// Nothing changed: the same index, so callers (and watchers) can tell at a glance.
			if (changes && !changes.structure && changes.files.size === 0)
				return unchangedResult(previous, started, cache.size);
			const origins = keptOrigins(cache.originWalks);
			// Only SKILL.md contents changed: the folders are as they were, so the last walk stands.
			if (changes && !changes.structure && cache.walks)
				return scanOnce(fixed, cache, { walks: cache.walks, origins, changed: changes.files });
			// Only folders listed too close to a change to vouch for themselves: the local roots are walked again, the
			// origins (no folder of theirs changed) are kept as loaded.
			if (changes?.racyOnly && origins) return scanOnce(fixed, cache, { origins, changed: changes.files });
		}
		return scanOnce(fixed, cache);
	};
	return {
		options: fixed,
		get current() {
			return current;
		},
		async scan() {
			// Overlapping calls share one scan: the cache is not safe for two walks at once.
			running ??= scan().finally(() => {
				running = undefined;
			});
			current = await running;
			return current;
		},
	};
}

/** What a rescan keeps of the last scan: its local walks (none: walk again) and its origins' walks. */
interface Reuse {
	/** The local roots' walks, when no folder changed; the SKILL.md files in `changed` are read again. */
	walks?: RootWalk[];
	/** The origins' walks of that scan, when each reached its origin (see {@link keptOrigins}); else loaded again. */
	origins?: RootWalk[];
	changed: Set<string>;
}

async function scanOnce(
	options: DiscoverOptions,
	given: ScanCache | undefined,
	reuse?: Reuse,
): Promise<DiscoveryResult> {
	const started = clock();
	// Wall-clock time before any stat: what changed since (or just before) may have changed while being read.
	const scanStart = Date.now();
	const cache = given ?? (options.cacheDir ? new ScanCache() : undefined);
	cache?.begin(scanStart);
	const cwd = resolve(options.cwd ?? process.cwd());
	const roots = await resolveRoots({ ...options, cwd, home: options.home ?? homedir() });
	const diagnostics: DiscoveryDiagnostic[] = [];
	// The index (and the skill stage it checks against) loads only when some root exists: an empty workspace's scan
	// stays close to a bare Node start.
	const persistent =
		cache && options.cacheDir && roots.some((root) => mayExist(root.path))
			? await openIndex(options.cacheDir, diagnostics)
			: undefined;
	// A one-off discover() with nothing changed since the last one: its saved result, checked and rebuilt.
	const inputs = persistent && !given && !options.origins?.length ? resultInputs(cwd, roots, options) : undefined;
	// The stats its checks take are kept for the index it makes: the MCP plan reuses those of SKILL.md files.
	const stats = inputs && new ScanStats(scanStart);
	const saved = inputs && persistent?.readResult(inputs, stats);
	if (saved) return savedResult(saved, cwd, options, started, stats);
	const rootCaches = cache ? roots.map((root) => rootCacheFor(cache, root, options, persistent, diagnostics)) : [];
	const walkOptions = {
		followSymlinks: options.followSymlinks !== false,
		allowSymlinkedSkillFile: options.allowSymlinkedSkillFile === true,
		includeHidden: options.includeHidden === true,
	};
	const walks: RootWalk[] = reuse?.walks ? [...reuse.walks] : [];
	// What each fresh walk depended on, so its result can be kept for the next scan.
	const records: (WalkRecord | undefined)[] = [];
	if (!reuse?.walks) {
		for (const [i, root] of roots.entries()) {
			const rootCache = rootCaches[i];
			const kept = rootCache?.reuseWalk(root);
			const record: WalkRecord | undefined = rootCache && !kept ? { probes: [], links: false } : undefined;
			const cached = rootCache && record ? { listDir: rootCache.listDir, record } : {};
			walks.push(kept ?? (await walkRoot(root, { ...walkOptions, limits: limitsFor(root, options), ...cached })));
			records.push(record);
		}
	}
	const localWalks = [...walks];
	// Candidates point at their walk's root (a reused walk's is the previous scan's object for the same root).
	const caches = new Map<DiscoveryRoot, RootCache>();
	for (const [i, walk] of localWalks.entries()) {
		const rootCache = rootCaches[i];
		if (rootCache) caches.set(walk.root, rootCache);
	}
	// Origin code loads only with origins: start-up pays for every module.
	const originWalks = reuse?.origins
		? reuse.origins
		: options.origins?.length
			? await (await import("./origins.ts")).walkOrigins(options.origins, roots.length)
			: [];
	walks.push(...originWalks);
	if (cache)
		for (const walk of originWalks) caches.set(walk.root, cache.root(`origin\0${walk.root.path}`, walk.root.path));
	const walked = clock();
	diagnostics.push(...walks.flatMap((walk) => walk.diagnostics));
	const candidates = uniqueCandidates(walks, diagnostics);
	const loadOptions: LoadOptions = {
		maxFileBytes: options.maxFileBytes,
		maxFrontmatterBytes: options.maxFrontmatterBytes,
		allowSymlinkedSkillFile: walkOptions.allowSymlinkedSkillFile,
	};
	// Reading SKILL.md needs the skill stage: loaded only when there is something to read.
	const { loadCandidate } = candidates.length > 0 ? await import("./load.ts") : { loadCandidate: undefined };
	const loaded = !loadCandidate
		? []
		: await mapInBatches(candidates, (candidate) => {
				const known = reuse?.walks !== undefined && !reuse.changed.has(candidate.file);
				const rootCache = caches.get(candidate.root);
				return rootCache
					? rootCache.load(candidate, loadOptions, known, loadCandidate)
					: loadCandidate(candidate, loadOptions);
			});
	const loadedAt = clock();
	const walkRejected = walks.flatMap((walk) => walk.rejected).map(rejectedAtWalk);
	const resolution = resolveSkills([...loaded, ...walkRejected], {
		policy: options.policy ?? "precedence",
		disabled: options.disabled ?? [],
		lockedRanks: new Set(roots.filter((root) => root.locked).map((root) => root.rank)),
	});
	const index = adoptIntoIndex(resolution.skills);
	if (cache) {
		const keys = roots.map((root) => rootKey(root, options));
		const used = new Set([...caches.values()].map((rootCache) => rootCache.key));
		const absent = localWalks.filter((walk) => !walk.exists).map((walk) => walk.root.path);
		cache.end(keys, used, absent, reuse?.walks !== undefined);
		cache.walks = localWalks;
		cache.originWalks = originWalks;
		for (const [i, record] of records.entries()) {
			const walk = localWalks[i];
			if (record && walk) rootCaches[i]?.remember(walk, record, options.followSymlinks !== false);
		}
		for (const [i, walk] of localWalks.entries()) {
			const rootCache = rootCaches[i];
			if (persistent && rootCache && walk.exists) persistent.save(rootCache, scanStart);
		}
		if (inputs && persistent) {
			const saving = roots.map((root, i) => ({ root, walk: localWalks[i] as RootWalk, cache: rootCaches[i] }));
			const rejected = resolution.rejected;
			const saved = { roots: saving, skills: index.skills, rejected, diagnostics, scanStart };
			// The index this scan made is the saved result's, read back or not: a warm run's catalog is this one's.
			const digest = persistent.saveResult(inputs, saved);
			if (digest !== undefined) rememberResultDigest(index, digest);
		}
	}
	const done = clock();
	const report = buildReport({
		cwd,
		policy: options.policy ?? "precedence",
		roots: [...roots, ...originWalks.map((walk) => walk.root)],
		walks,
		skills: index.skills,
		rejected: resolution.rejected,
		diagnostics,
		timings: {
			walkMs: round(walked - started),
			loadMs: round(loadedAt - walked),
			resolveMs: round(done - loadedAt),
			totalMs: round(done - started),
		},
		reused: cache
			? { dirs: reuse?.walks ? cache.size.dirs : cache.reused.dirs, files: cache.reused.files }
			: { dirs: 0, files: 0 },
	});
	return { index, report };
}

/** What a saved result depends on besides the files. */
function resultInputs(cwd: string, roots: DiscoveryRoot[], options: DiscoverOptions): ResultInputs {
	const rootKeys = roots.map((root) => rootKey(root, options));
	return { cwd, policy: options.policy ?? "precedence", disabled: options.disabled ?? [], roots, rootKeys };
}

/** The result a saved one stands for, with this run's timings. */
function savedResult(
	saved: ReadResult,
	cwd: string,
	options: DiscoverOptions,
	started: number,
	stats: ScanStats | undefined,
): DiscoveryResult {
	const index = adoptIntoIndex(saved.skills);
	if (saved.digest !== undefined) rememberResultDigest(index, saved.digest);
	if (stats) keepScanStats(index, stats);
	const totalMs = round(clock() - started);
	const report = assembleReport({
		cwd,
		policy: options.policy ?? "precedence",
		roots: saved.roots,
		skills: index.skills,
		rejected: saved.rejected,
		diagnostics: saved.diagnostics,
		timings: { walkMs: totalMs, loadMs: 0, resolveMs: 0, totalMs },
		reused: saved.reused,
	});
	return { index, report };
}

/** The persistent index of `cacheDir`, loaded only when one is asked for (start-up pays for every module). */
async function openIndex(cacheDir: string, diagnostics: DiscoveryDiagnostic[]): Promise<PersistentIndex | undefined> {
	const { PersistentIndex } = await import("./persist.ts");
	return PersistentIndex.open(cacheDir, diagnostics);
}

/** The cache of one root: the one in memory, else the one saved on disk, else a new one. */
function rootCacheFor(
	cache: ScanCache,
	root: DiscoveryRoot,
	options: DiscoverOptions,
	persistent: PersistentIndex | undefined,
	diagnostics: DiscoveryDiagnostic[],
): RootCache {
	const key = rootKey(root, options);
	const known = cache.peek(key);
	if (known) return known;
	return cache.root(key, root.path, persistent?.load(key, root.path, diagnostics));
}

/**
 * What a root's listings and reads depend on: its path and every option of its walk and reads. Two roots with
 * one key would give the same results; anything else never shares an entry.
 */
function rootKey(root: DiscoveryRoot, options: DiscoverOptions): string {
	return JSON.stringify([
		root.path,
		limitsFor(root, options),
		options.followSymlinks !== false,
		options.allowSymlinkedSkillFile === true,
		options.includeHidden === true,
		options.maxFileBytes ?? null,
		options.maxFrontmatterBytes ?? null,
	]);
}

/** A named root may be a whole collection; a conventional folder keeps the tighter bound. */
function limitsFor(root: DiscoveryRoot, options: DiscoverOptions): WalkLimits {
	const defaults = root.source === "option" ? DEFAULT_EXPLICIT_WALK_LIMITS : DEFAULT_WALK_LIMITS;
	return { ...defaults, ...options.limits };
}

/**
 * The last scan's origin walks, for a rescan in which no folder changed: undefined when one could not reach its
 * origin (failed, or served from the cache), so that a passing network fault does not last until a folder changes.
 */
function keptOrigins(walks: RootWalk[] | undefined): RootWalk[] | undefined {
	const reached = walks?.every((walk) =>
		walk.diagnostics.every((d) => d.code !== "origin.failed" && d.code !== "origin.cached"),
	);
	return reached ? walks : undefined;
}

/** The previous result with this check's timing: everything was reused. */
function unchangedResult(
	previous: DiscoveryResult,
	started: number,
	reused: DiscoveryReport["reused"],
): DiscoveryResult {
	const totalMs = round(clock() - started);
	const timings = { walkMs: totalMs, loadMs: 0, resolveMs: 0, totalMs };
	return { index: previous.index, report: { ...previous.report, timings, reused } };
}

/** One candidate per real SKILL.md: the first root (by precedence) that reaches it owns it. */
function uniqueCandidates(walks: readonly RootWalk[], diagnostics: DiscoveryDiagnostic[]): Candidate[] {
	const owners = new Map<string, Candidate>();
	const unique: Candidate[] = [];
	for (const candidate of walks.flatMap((walk) => walk.candidates)) {
		const owner = owners.get(candidate.realFile);
		if (owner) {
			const message = `Same file as ${owner.file} (from the ${owner.root.scope} root ${owner.root.path}); loaded once`;
			diagnostics.push(discoveryDiagnostic("entry.duplicate-path", message, candidate.file));
			continue;
		}
		owners.set(candidate.realFile, candidate);
		unique.push(candidate);
	}
	return unique;
}

/** A candidate the walk refused (a linked SKILL.md) goes to the rejected list with its diagnostics. */
function rejectedAtWalk(candidate: Candidate): LoadedSkill {
	return {
		candidate,
		properties: null,
		diagnostics: candidate.diagnostics,
		bodyOffset: undefined,
		bodyLine: undefined,
		size: 0,
	};
}

/** False only when `path` surely does not exist (anything a walk would report loads the index). */
function mayExist(path: string): boolean {
	return statState(path) !== "absent";
}

/**
 * Milliseconds on a monotonic clock, for the report's timings: `performance` is not touched, since its first use
 * loads the perf_hooks modules, a few milliseconds of every run's start-up.
 */
function clock(): number {
	return Number(process.hrtime.bigint()) / 1e6;
}

function round(ms: number): number {
	return Math.round(ms * 10) / 10;
}
