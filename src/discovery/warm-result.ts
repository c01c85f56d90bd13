import type { FileSignature } from "../skill/index.ts";
import type { RootCache } from "./cache.ts";
import { isRacy } from "./cache.ts";
import type { DiscoveryDiagnostic } from "./codes.ts";
import { below } from "./folder.ts";
import { canonicalDiagnostic, relativeTo, savable, signatureRow } from "./index-values.ts";
import { type IndexedSkill, indexedDescription, type RejectedSkill } from "./resolve.ts";
import type { DiscoveryRoot } from "./roots.ts";
import { lstatOrUndefined, statState } from "./signature.ts";
import type { RootWalk } from "./walk.ts";
import { descend } from "./walk-snapshot.ts";

// The resolved result of a whole discover() (after collisions, with its diagnostics, in the order output needs),
// kept beside the per-root index files. It stands only while everything it was made from is as it was: the
// per-root index files it was saved with (their signatures), every folder listed or probed, every SKILL.md read,
// each root's real path, and roots that did not exist still not existing. A warm run then checks those
// signatures from flat arrays and builds the result, with no walk, no candidate and no resolution. Saved only when
// every such entry was old enough to vouch for its content (the racy-git rule) and every value comes back exactly.

/**
 * Bumped whenever the layout below changes. 2: a skill's description is not saved (it follows from its properties).
 * 3: two JSON lines, what the result depends on first (format, key, checks, walks), then its values (skills,
 * rejected, diagnostics): a warm run takes every stat before the values exist, so the garbage of ten thousand stats
 * is collected without copying them, and a stale result's values are never parsed.
 * 4: a skill names its SKILL.md by its place among its root's checked files (no path, file name, size or time of
 * its own: they are the check's, just stat'ed), and its name and qualified name are null when they are what they
 * usually are (its id, `id@scope`): fewer bytes to parse and fewer strings to make on every warm run.
 */
export const RESULT_FORMAT = 4;

/** What a result depends on besides the files: every input of resolution and of the report. */
export interface ResultInputs {
	cwd: string;
	policy: string;
	disabled: readonly string[];
	roots: readonly DiscoveryRoot[];
	/** Each root's cache key (its path and every walk and read option). */
	rootKeys: readonly string[];
}

/** One local root of a finished scan, with the cache and the index file its entries are saved in. */
export interface SavedRoot {
	root: DiscoveryRoot;
	walk: RootWalk;
	cache: RootCache | undefined;
	indexFile: string;
}

/** A finished scan, as a result is saved from it. */
export interface FinishedScan {
	roots: readonly SavedRoot[];
	skills: readonly IndexedSkill[];
	rejected: readonly RejectedSkill[];
	diagnostics: readonly DiscoveryDiagnostic[];
	scanStart: number;
}

/** Where a skill file lies: below its folder `rel` (below both the root and the root's real path). */
export function placed(
	root: DiscoveryRoot,
	real: string,
	rel: string,
	fileName: string,
): { dir: string; file: string; realFile: string } {
	const dir = descend(root.path, rel);
	return { dir, file: below(dir, fileName), realFile: below(descend(real, rel), fileName) };
}

/** The key a result is saved under: the code stamp and every input. */
export function resultKey(stamp: string, inputs: ResultInputs): string {
	const roots = inputs.roots.map((root) => [
		root.path,
		root.scope,
		root.rank,
		root.trusted,
		root.locked,
		root.source,
		root.preset ?? null,
		root.origin ?? null,
	]);
	return JSON.stringify(["result", stamp, inputs.cwd, inputs.policy, inputs.disabled, roots, inputs.rootKeys]);
}

/** Thrown inside {@link encodeResult} when the scan's result cannot be kept (nothing is saved then). */
class NotKept extends Error {}

/** The saved form of a finished scan, or undefined when its result cannot vouch for itself. */
export function encodeResult(fileKey: string, scan: FinishedScan): string | undefined {
	try {
		const checks = scan.roots.map((root) => rootChecks(root, scan.scanStart));
		const reals = checks.map((check) => (check ? check[0] : ""));
		const locate = (file: string): [number, string] => {
			for (const [i, { root }] of scan.roots.entries()) {
				const rel = relativeTo(root.path, file);
				if (rel !== undefined) return [i, rel];
			}
			throw new NotKept();
		};
		const diagnostic = (d: DiscoveryDiagnostic) => diagnosticRow(d, locate);
		const skills = scan.skills.map((skill) => {
			// The description is not saved: a read rebuilds it from the properties, so it must be what they give.
			if (skill.description !== indexedDescription(skill.properties)) throw new NotKept();
			const [i, rel, fileName] = skillPlace(skill, scan.roots, reals);
			const check = checks[i];
			const at = check?.[10].get(skill.file);
			// Its file must be one its root's checks cover, with the size and time its check's stat gives back.
			if (!check || at === undefined || check[8][at] !== (rel === "" ? fileName : `${rel}/${fileName}`))
				throw new NotKept();
			if (check[9][at * 5 + 2] !== skill.size || check[9][at * 5 + 3] !== skill.mtimeMs) throw new NotKept();
			return [
				i,
				at,
				skill.id,
				skill.name === skill.id ? null : skill.name,
				skill.qualifiedName === `${skill.id}@${skill.scope}` ? null : skill.qualifiedName,
				skill.status,
				skill.shadowedBy ?? null,
				skill.modelInvocable,
				skill.properties,
				skill.bodyOffset,
				skill.bodyLine,
				skill.diagnostics.map(diagnostic),
			];
		});
		const rejected = scan.rejected.map((item) => {
			const keys = Object.keys(item).join();
			if (keys !== "file,dir,scope,rank,diagnostics" && keys !== "file,dir,scope,rank,name,diagnostics")
				throw new NotKept();
			const [i, rel, fileName] = skillPlace(item, scan.roots, reals);
			return [i, rel, fileName, item.name ?? null, item.diagnostics.map(diagnostic)];
		});
		const walks = scan.roots.map(({ walk }) => [
			walk.counts.dirs,
			walk.counts.entries,
			walk.candidates.length,
			walk.bounds.depth,
			walk.bounds.dirs,
			walk.bounds.entries,
		]);
		// A result with a word about the index itself would repeat it on every run that uses the result.
		if (scan.diagnostics.some((d) => d.code.startsWith("index."))) throw new NotKept();
		const diagnostics = scan.diagnostics.map(diagnostic);
		// JSON text holds no raw line break (one in a string is escaped): the first one ends the first part.
		// Each root's file positions stay in memory: only what a read can check is written.
		const saved = checks.map((check) => (check ? check.slice(0, 10) : null));
		const head = JSON.stringify({ format: RESULT_FORMAT, key: fileKey, checks: saved, walks });
		return `${head}\n${JSON.stringify({ skills, rejected, diagnostics })}`;
	} catch (error) {
		if (error instanceof NotKept) return undefined;
		throw error;
	}
}

/** A root's checks as saved (the first ten cells), and where each SKILL.md it covers is among them. */
type Checks = [string, number, number, number, number, number, number, number, string[], number[], Map<string, number>];

/**
 * What a root's part of the result depends on: null for a root that does not exist (and must not, to reuse it),
 * else its real path, its index file's signature, and every folder, probe and SKILL.md with its signature.
 */
function rootChecks({ root, walk, cache, indexFile }: SavedRoot, scanStart: number): Checks | null {
	if (!walk.exists) {
		if (statState(root.path) !== "absent") throw new NotKept();
		return null;
	}
	const snapshot = cache?.walk;
	if (!cache || !snapshot || cache.changed || walk.rejected.length > 0) throw new NotKept();
	const rels: string[] = [];
	const signatures: number[] = [];
	const add = (path: string, signature: FileSignature) => {
		const rel = relativeTo(root.path, path);
		if (rel === undefined || isRacy(signature, scanStart)) throw new NotKept();
		rels.push(rel);
		signatures.push(...signatureRow(signature));
	};
	for (const [path, dir] of cache.dirs) {
		if (dir.racy) throw new NotKept();
		add(path, dir.signature);
	}
	for (const [path, signature] of snapshot.probes) add(path, signature);
	const files = new Map<string, number>();
	for (const candidate of walk.candidates) {
		const file = cache.files.get(candidate.file);
		if (!file || file.racy || !savable(candidate.file, file) || files.has(candidate.file)) throw new NotKept();
		files.set(candidate.file, rels.length);
		add(candidate.file, file.signature);
	}
	const info = lstatOrUndefined(indexFile);
	if (!info?.isFile()) throw new NotKept();
	const sizes = [cache.dirs.size, snapshot.probes.size] as const;
	return [snapshot.real, ...signatureRow(info), ...sizes, rels, signatures, files];
}

/** A skill's (or a rejected one's) root, folder and file name, checked to give back exactly its paths. */
function skillPlace(
	skill: Pick<IndexedSkill, "rank" | "dir" | "file" | "scope"> & { realFile?: string },
	roots: readonly SavedRoot[],
	reals: readonly string[],
): [number, string, string] {
	const i = roots.findIndex(({ root }) => root.rank === skill.rank);
	const root = roots[i]?.root;
	const rel = root && relativeTo(root.path, skill.dir);
	const fileName = skill.file.slice(skill.dir.length + 1);
	if (!root || rel === undefined || root.scope !== skill.scope || reals[i] === "") throw new NotKept();
	const back = placed(root, reals[i] as string, rel, fileName);
	if (back.dir !== skill.dir || back.file !== skill.file) throw new NotKept();
	if (skill.realFile !== undefined && back.realFile !== skill.realFile) throw new NotKept();
	return [i, rel, fileName];
}

function diagnosticRow(d: DiscoveryDiagnostic, locate: (file: string) => [number, string]): unknown[] {
	if (!canonicalDiagnostic(d)) throw new NotKept();
	const [root, rel] = locate(d.file);
	return [d.code, d.severity, d.message, root, rel, d.line ?? null, d.column ?? null, d.field ?? null, d.hint];
}
