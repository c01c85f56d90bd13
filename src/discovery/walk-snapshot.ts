import { realpathSync } from "node:fs";
import { basename, sep } from "node:path";
import type { FileSignature } from "../skill/index.ts";
import type { DiscoveryDiagnostic } from "./codes.ts";
import { below, type DirEntry, skillCandidate } from "./folder.ts";
import type { DiscoveryRoot } from "./roots.ts";
import { failureSignature, signatureOf, statOrFailure, unchangedNow } from "./signature.ts";
import type { RootWalk, WalkRecord } from "./walk.ts";

/**
 * A walk's result kept for reuse. It follows from the listings of the folders the walk listed and the folders it
 * looked into for nested skills, so it stands while all of those keep their signatures (and the root its real
 * path); a walk that met a link, could not list a folder or refused a skill is never kept.
 */
export interface WalkSnapshot {
	/** The root's real path when walked. */
	real: string;
	counts: { dirs: number; entries: number };
	bounds: { depth: boolean; dirs: boolean; entries: boolean };
	/** The walk's own diagnostics: bounds, hidden folders, nested skills. */
	diagnostics: DiscoveryDiagnostic[];
	/** Each skill found, in walk order: its folder below the root (`/`-separated) and its skill file's name. */
	skills: { rel: string; fileName: string }[];
	/** Folders looked into for a nested SKILL.md, with their signatures then. */
	probes: Map<string, FileSignature>;
}

/** A folder the walk listed, as the cache keeps it: its signature when listed, and whether that was too recent. */
export interface ListedDir {
	signature: FileSignature;
	/** Changed too close to the scan that listed it: listed again next time, never saved. */
	racy: boolean;
}

/** The walk diagnostics a snapshot may carry: each follows from listings and probes alone. */
export const SNAPSHOT_CODES: ReadonlySet<string> = new Set([
	"walk.hidden-skipped",
	"walk.depth-limit",
	"walk.dir-limit",
	"walk.entry-limit",
	"entry.nested",
]);

/**
 * The signatures of a walk's probes (one stat each), or undefined when one is gone, cannot be looked at (its folder
 * became a file or a link loop) or is racy: its listing may yet change unseen. A path in `failed` is one the walk
 * could not look at (a dangling link, a vanished folder): pinned as that failure while its stat still fails (see
 * {@link failureSignature}), or undefined when it now succeeds (it changed after the walk saw it fail).
 */
export function pinProbes(
	paths: readonly string[],
	isRacy: (signature: FileSignature) => boolean,
	failed: ReadonlySet<string> = new Set(),
): Map<string, FileSignature> | undefined {
	const probes = new Map<string, FileSignature>();
	for (const path of paths) {
		if (probes.has(path)) continue;
		const info = statOrFailure(path);
		const failedNow = typeof info === "number";
		if (failedNow !== failed.has(path)) return undefined;
		const signature = failedNow ? failureSignature(info) : signatureOf(info);
		if (!failedNow && isRacy(signature)) return undefined;
		probes.set(path, signature);
	}
	return probes;
}

/** Diagnostics of paths a walk met but could not list: a rescan must look at each again. */
const UNLISTED_CODES: ReadonlySet<string> = new Set([
	"root.not-directory",
	"walk.unreadable",
	"walk.vanished",
	"entry.dangling-link",
	"walk.symlink-loop",
]);

/** Of those, the ones whose stat failed when the walk met them (a dangling link's realpath, a vanished listing). */
const FAILED_CODES: ReadonlySet<string> = new Set(["walk.vanished", "entry.dangling-link"]);

/** The paths {@link unlistedPaths} found, each once, and those among them the walk could not look at. */
export interface Unlisted {
	paths: string[];
	failed: Set<string>;
}

/**
 * Paths a walk's result depends on that no listing of it covers: links in the folders it walked that it did not list
 * (dangling, looping, leading to a file or to a folder already scanned), folders it could not list, and a root that
 * is no folder. Their stat (following links) shows when any of them starts to lead somewhere else. A walk that does
 * not follow links depends on none of their targets: its links are left out (each is an entry of a listing).
 */
export function unlistedPaths(
	walk: RootWalk,
	dirs: ReadonlyMap<string, { entries: readonly DirEntry[] }>,
	followSymlinks: boolean,
): Unlisted {
	const paths = new Set<string>();
	const failed = new Set<string>();
	for (const diagnostic of walk.diagnostics) {
		if (!UNLISTED_CODES.has(diagnostic.code)) continue;
		paths.add(diagnostic.file);
		if (FAILED_CODES.has(diagnostic.code)) failed.add(diagnostic.file);
	}
	if (!followSymlinks) return { paths: [...paths], failed };
	// A skill's folder is not walked into: the links there are not followed by a fresh walk either.
	const skills = new Set<string>();
	for (const candidate of walk.candidates) skills.add(candidate.dir);
	for (const candidate of walk.rejected) skills.add(candidate.dir);
	for (const [dir, cached] of dirs) {
		if (skills.has(dir)) continue;
		for (const entry of cached.entries) {
			if (entry.kind !== "link") continue;
			const path = below(dir, entry.name);
			if (!dirs.has(path)) paths.add(path);
		}
	}
	return { paths: [...paths], failed };
}

/**
 * The snapshot of a fresh walk, or undefined when its result depends on more than the `dirs` it listed (each
 * unchanged and not racy) and its `probes` as {@link pinProbes} pinned them (undefined: they cannot vouch).
 */
export function snapshotOf(
	walk: RootWalk,
	record: WalkRecord,
	dirs: ReadonlyMap<string, ListedDir>,
	probes: Map<string, FileSignature> | undefined,
): WalkSnapshot | undefined {
	if (!probes || !walk.exists || record.links || record.real === undefined || walk.rejected.length > 0)
		return undefined;
	if (!dirs.has(walk.root.path) || walk.diagnostics.some((d) => !SNAPSHOT_CODES.has(d.code))) return undefined;
	for (const dir of dirs.values()) if (dir.racy) return undefined;
	return {
		real: record.real,
		counts: { ...walk.counts },
		bounds: { ...walk.bounds },
		diagnostics: walk.diagnostics.map((d) => ({ ...d })),
		skills: walk.candidates.map((candidate) => ({ rel: candidate.relDir, fileName: basename(candidate.file) })),
		probes,
	};
}

/**
 * The walk a snapshot stands for, for `root` now, or undefined when a folder it listed or probed changed (or was
 * racy), or the root now resolves elsewhere. Costs one stat per folder and one realpath.
 */
export function reuseSnapshot(
	snapshot: WalkSnapshot,
	root: DiscoveryRoot,
	dirs: ReadonlyMap<string, ListedDir>,
): RootWalk | undefined {
	for (const [path, dir] of dirs) if (dir.racy || !unchangedNow(path, dir.signature)) return undefined;
	return walkFromSnapshot(snapshot, root);
}

/**
 * The walk a snapshot stands for, for `root` now, once the folders it listed are known to be unchanged: or
 * undefined when a folder it probed changed, or the root now resolves elsewhere.
 */
export function walkFromSnapshot(snapshot: WalkSnapshot, root: DiscoveryRoot): RootWalk | undefined {
	for (const [path, signature] of snapshot.probes) if (!unchangedNow(path, signature)) return undefined;
	let real: string;
	try {
		real = realpathSync.native(root.path);
	} catch {
		return undefined;
	}
	if (real !== snapshot.real) return undefined;
	const candidates = snapshot.skills.map(({ rel, fileName }) =>
		skillCandidate(root, descend(root.path, rel), descend(real, rel), rel, fileName),
	);
	return {
		root,
		exists: true,
		candidates,
		rejected: [],
		diagnostics: snapshot.diagnostics.map((d) => ({ ...d })),
		counts: { ...snapshot.counts },
		bounds: { ...snapshot.bounds },
	};
}

/** `rel` (checked: no empty, `.` or `..` segment) joined below the normalized `path`, as the walk builds it. */
export function descend(path: string, rel: string): string {
	if (rel === "") return path;
	if (sep === "/") return path.endsWith("/") ? path + rel : `${path}/${rel}`;
	let out = path;
	for (const name of rel.split("/")) out = below(out, name);
	return out;
}
