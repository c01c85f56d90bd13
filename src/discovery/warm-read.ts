import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { SKILL_CODES } from "../skill/index.ts";
import { DISCOVERY_CODES, type DiscoveryCode, type DiscoveryDiagnostic } from "./codes.ts";
import {
	count,
	decodeProperties,
	IndexFormatError,
	list,
	parsedRecord,
	pathBelow,
	placeDiagnostic,
	realPath,
	skillFileName,
	skillFolder,
	text,
	tuple,
} from "./index-values.ts";
import { type RootReport, rootReportOf } from "./report.ts";
import { type IndexedSkill, indexedDescription, type RejectedSkill, type SkillStatus } from "./resolve.ts";
import type { DiscoveryRoot } from "./roots.ts";
import type { ScanStats } from "./scan-stats.ts";
import { changedSince, lstatOrUndefined, sameSignatureAt, statOrUndefined, statState } from "./signature.ts";
import { placed, RESULT_FORMAT, type ResultInputs } from "./warm-result.ts";

// Reading a saved result back (see warm-result.ts): first every signature it depends on, straight from its flat
// arrays (any change, or a racy entry, and the result is not used), then its values, checked as strictly as input
// (anyone who could write the file could have written anything): paths are rebuilt below their roots, codes and
// statuses must be known ones, properties pass the index's own checks.

/** A result read back: what discover() returns for it, and how many folders and files it stood for. */
export interface ReadResult {
	skills: IndexedSkill[];
	rejected: RejectedSkill[];
	diagnostics: DiscoveryDiagnostic[];
	roots: RootReport[];
	reused: { dirs: number; files: number };
	/** The SHA-256 of the file's payload (set by the reader of the file). */
	digest?: string;
}

const STATUSES: ReadonlySet<string> = new Set<SkillStatus>(["selected", "shadowed", "untrusted", "disabled"]);
const SEVERITIES: ReadonlySet<string> = new Set(["error", "warning", "info"]);

/**
 * The result in `payload` (an index file written at `writtenAt`) for `roots`, or undefined when something it depends
 * on changed or was racy. Throws {@link IndexFormatError} when it is not a valid result for `fileKey`.
 */
export function readResult(
	payload: string,
	writtenAt: number,
	fileKey: string,
	inputs: Pick<ResultInputs, "roots" | "disabled">,
	indexFiles: readonly string[],
	stats?: ScanStats,
): ReadResult | undefined {
	const { roots } = inputs;
	const split = payload.indexOf("\n");
	if (split === -1) throw new IndexFormatError("it is not in two parts");
	const saved = parsedRecord(payload.slice(0, split), "the result");
	if (saved.format !== RESULT_FORMAT) throw new IndexFormatError("it is not a result of this format");
	if (saved.key !== fileKey) throw new IndexFormatError("it was written for other roots or settings");
	const checks = list(saved.checks, "checks");
	if (checks.length !== roots.length) throw new IndexFormatError("it has checks for other roots");
	const reals: (string | undefined)[] = [];
	const reused = { dirs: 0, files: 0 };
	// What each root's checks cover: a saved skill names one of its SKILL.md files by place (see RESULT_FORMAT).
	const covered: (Checked | undefined)[] = [];
	for (const [i, root] of roots.entries()) {
		const done = checkRoot(checks[i], root, indexFiles[i] as string, writtenAt, reused, stats);
		if (done === false) return undefined;
		reals.push(done?.real);
		covered.push(done);
	}
	// Only now that the result stands are its values parsed (see RESULT_FORMAT).
	const values = parsedRecord(payload.slice(split + 1), "the result's values");
	const diagnostic = (row: unknown) => decodeDiagnostic(row, roots);
	const skills = list(values.skills, "skills").map((row) => decodeSkill(row, roots, covered, diagnostic));
	const rejected = list(values.rejected, "rejected").map((row) => {
		const [i, rel, fileName, name, diagnostics] = tuple(row, 5, "a rejected skill");
		const { root, where } = place(roots, reals, i, rel, fileName);
		// Built in the order resolution builds it (JSON output shows the order).
		const item = { file: where.file, dir: where.dir, scope: root.scope, rank: root.rank } as RejectedSkill;
		if (name !== null) item.name = text(name, "a name");
		item.diagnostics = list(diagnostics, "diagnostics").map(diagnostic);
		return item;
	});
	checkResolution(skills, roots, inputs.disabled);
	const walks = list(saved.walks, "walks");
	if (walks.length !== roots.length) throw new IndexFormatError("it has walks for other roots");
	const reports = roots.map((root, i) => rootReport(walks[i], root, reals[i] !== undefined, skills, rejected));
	return {
		skills,
		rejected,
		diagnostics: list(values.diagnostics, "diagnostics").map(diagnostic),
		roots: reports,
		reused,
	};
}

/** A root whose checks stand: its real path, and the SKILL.md files its checks cover, for its skills to name. */
interface Checked {
	real: string;
	/** Each checked path below the root (`/`-separated), and its place's signature (five numbers each). */
	rels: unknown[];
	signatures: unknown[];
	/** Where the SKILL.md files begin among them (after the folders and probes). */
	first: number;
	/** Which of them a skill has named already (one skill per file). */
	taken: Uint8Array;
}

/**
 * Checks a root's part: false when anything changed (or is racy), else what its checks cover (undefined for a root
 * that did not exist and still does not).
 */
function checkRoot(
	value: unknown,
	root: DiscoveryRoot,
	indexFile: string,
	writtenAt: number,
	reused: { dirs: number; files: number },
	stats: ScanStats | undefined,
): Checked | undefined | false {
	// A root saved as absent stands while a walk would still count it absent (a link loop now is reported).
	if (value === null) return statState(root.path) === "absent" ? undefined : false;
	const cells = tuple(value, 10, "a root's checks");
	const real = realPath(cells[0]);
	const rels = list(cells[8], "paths");
	const signatures = list(cells[9], "signatures");
	const dirs = count(cells[6], "a folder count");
	const probes = count(cells[7], "a probe count");
	if (signatures.length !== rels.length * 5 || dirs + probes > rels.length)
		throw new IndexFormatError("a root's checks do not add up");
	// The per-root index file it was saved with: rewritten (or touched) since, and this result no longer stands.
	const own = lstatOrUndefined(indexFile);
	if (!own || !sameSignatureAt(own, cells, 1)) return false;
	for (let i = 0; i < rels.length; i++) {
		const path = pathBelow(root.path, rels[i]);
		const at = i * 5;
		const mtimeMs = signatures[at + 3];
		const ctimeMs = signatures[at + 4];
		if (typeof mtimeMs !== "number" || typeof ctimeMs !== "number")
			throw new IndexFormatError("a time is not a number");
		if (changedSince(ctimeMs, writtenAt)) return false;
		const info = statOrUndefined(path);
		if (!info || !sameSignatureAt(info, signatures, at)) return false;
		// Folders and probes come first; what follows them is a SKILL.md a saved skill may stand for. A matching
		// signature only says the entry is as whoever wrote the file saw it: a folder check must still be a folder
		// and a SKILL.md check a regular file (a walk saves no other kind), or a forged row could stand on a FIFO.
		if (i < dirs ? !info.isDirectory() : i >= dirs + probes && !info.isFile()) return false;
		if (i >= dirs + probes) stats?.add(path, info);
	}
	try {
		if (realpathSync.native(root.path) !== real) return false;
	} catch {
		return false;
	}
	reused.dirs += dirs;
	reused.files += rels.length - dirs - probes;
	return { real, rels, signatures, first: dirs + probes, taken: new Uint8Array(rels.length) };
}

function place(
	roots: readonly DiscoveryRoot[],
	reals: readonly (string | undefined)[],
	i: unknown,
	rel: unknown,
	fileName: unknown,
) {
	const index = count(i, "a root number");
	const root = roots[index];
	const real = reals[index];
	if (!root || real === undefined) throw new IndexFormatError("a skill is in a root that does not exist");
	const folder = skillFolder(rel);
	return { root, where: placed(root, real, folder, skillFileName(fileName)) };
}

function decodeSkill(
	row: unknown,
	roots: readonly DiscoveryRoot[],
	covered: readonly (Checked | undefined)[],
	diagnostic: (row: unknown) => DiscoveryDiagnostic,
): IndexedSkill {
	const cells = tuple(row, 12, "a skill");
	const index = count(cells[0], "a root number");
	const root = roots[index];
	const checked = covered[index];
	if (!root || !checked) throw new IndexFormatError("a skill is in a root that does not exist");
	// Its SKILL.md: one its root's checks just stat'ed (so its size and time are that stat's), named by one skill.
	const at = count(cells[1], "a file's place");
	if (at < checked.first || at >= checked.rels.length || checked.taken[at] === 1)
		throw new IndexFormatError("a skill's file is not one its root's checks cover");
	checked.taken[at] = 1;
	const where = fileAt(root, checked, at);
	const id = text(cells[2], "an id");
	const status = text(cells[5], "a status");
	if (!STATUSES.has(status)) throw new IndexFormatError("a skill has an unknown status");
	if (typeof cells[7] !== "boolean") throw new IndexFormatError("model invocation is not true or false");
	const properties = decodeProperties(cells[8]);
	const skill: IndexedSkill = {
		id,
		name: cells[3] === null ? id : text(cells[3], "a name"),
		qualifiedName: cells[4] === null ? `${id}@${root.scope}` : text(cells[4], "a qualified name"),
		// Not saved: it follows from the properties, as resolution builds it (half the bytes of a typical row).
		description: indexedDescription(properties),
		scope: root.scope,
		rank: root.rank,
		root: root.path,
		dir: where.dir,
		file: where.file,
		realFile: where.realFile,
		status: status as SkillStatus,
		trusted: root.trusted,
		modelInvocable: cells[7],
		properties,
		bodyOffset: count(cells[9], "a body offset"),
		bodyLine: count(cells[10], "a body line"),
		size: checked.signatures[at * 5 + 2] as number,
		mtimeMs: checked.signatures[at * 5 + 3] as number,
		diagnostics: decodeDiagnostics(cells[11], diagnostic),
	};
	if (cells[6] !== null) skill.shadowedBy = text(cells[6], "a shadowing name");
	return skill;
}

/** The paths of the SKILL.md at `at` among a root's checks (its path there was checked to stay below the root). */
function fileAt(root: DiscoveryRoot, checked: Checked, at: number) {
	const rel = checked.rels[at] as string;
	const slash = rel.lastIndexOf("/");
	const fileName = skillFileName(rel.slice(slash + 1));
	return placed(root, checked.real, slash === -1 ? "" : rel.slice(0, slash), fileName);
}

/** A saved diagnostics list read back; an empty one (most skills') is taken as it was parsed, not copied. */
function decodeDiagnostics(value: unknown, diagnostic: (row: unknown) => DiscoveryDiagnostic): DiscoveryDiagnostic[] {
	const rows = list(value, "diagnostics");
	return rows.length === 0 ? (rows as DiscoveryDiagnostic[]) : rows.map(diagnostic);
}

function decodeDiagnostic(row: unknown, roots: readonly DiscoveryRoot[]): DiscoveryDiagnostic {
	const [code, severity, message, i, rel, line, column, field, hint] = tuple(row, 9, "a diagnostic");
	const known = typeof code === "string" && (Object.hasOwn(SKILL_CODES, code) || Object.hasOwn(DISCOVERY_CODES, code));
	if (!known || typeof severity !== "string" || !SEVERITIES.has(severity))
		throw new IndexFormatError("a diagnostic has an unknown code or severity");
	const root = roots[count(i, "a root number")];
	if (!root) throw new IndexFormatError("a diagnostic names a root that is not there");
	const d = {
		code: code as DiscoveryCode,
		severity: severity as DiscoveryDiagnostic["severity"],
		message: text(message, "a message"),
		file: pathBelow(root.path, rel),
	} as DiscoveryDiagnostic;
	return placeDiagnostic(d, line, column, field, hint);
}

function rootReport(
	value: unknown,
	root: DiscoveryRoot,
	exists: boolean,
	skills: readonly IndexedSkill[],
	rejected: readonly RejectedSkill[],
): RootReport {
	const cells = tuple(value, 6, "a walk");
	const [depth, dirs, entries] = [cells[3], cells[4], cells[5]];
	if (typeof depth !== "boolean" || typeof dirs !== "boolean" || typeof entries !== "boolean")
		throw new IndexFormatError("a walk bound is not true or false");
	const walked = {
		dirs: count(cells[0], "a folder count"),
		entries: count(cells[1], "an entry count"),
		candidates: count(cells[2], "a candidate count"),
	};
	return rootReportOf(root, exists, walked, { depth, dirs, entries }, skills, rejected);
}

/**
 * What resolution decides (resolve.ts) is not taken from the file: each saved skill must agree with what its root,
 * the disabled list and its own properties say, names must stay unique, a shadowed copy must name its winner, and a
 * locked root's name must be its own. A row that disagrees was forged, and the result is not used.
 */
function checkResolution(
	skills: readonly IndexedSkill[],
	roots: readonly DiscoveryRoot[],
	disabled: readonly string[],
): void {
	const off = new Set(disabled);
	const names = new Set<string>();
	const qualified = new Map<string, IndexedSkill>();
	// Each rank's first root, as a search of the list finds it.
	const ranks = new Map<number, DiscoveryRoot>();
	for (const root of roots) if (!ranks.has(root.rank)) ranks.set(root.rank, root);
	for (const skill of skills) {
		const trusted = ranks.get(skill.rank)?.trusted === true;
		const isOff = off.size > 0 && (off.has(skill.id) || off.has(skill.qualifiedName));
		const status = !trusted ? "untrusted" : isOff ? "disabled" : undefined;
		const agrees =
			// Its name, or its folder's when two skills of one root declare the same name.
			(skill.id === skill.properties.name || skill.id === basename(skill.dir)) &&
			skill.modelInvocable === (skill.properties.disableModelInvocation !== true) &&
			(status === undefined ? skill.status === "selected" || skill.status === "shadowed" : skill.status === status) &&
			(skill.name === skill.id || skill.name === skill.qualifiedName) &&
			!qualified.has(skill.qualifiedName) &&
			(skill.status !== "selected" || !names.has(skill.name));
		if (!agrees) throw new IndexFormatError("a skill disagrees with what resolution decides");
		qualified.set(skill.qualifiedName, skill);
		if (skill.status === "selected") names.add(skill.name);
	}
	const locked = (rank: number) => ranks.get(rank)?.locked === true;
	// No locked root (the usual case): no id is a locked root's.
	const lockedIds = new Set(
		roots.some((root) => root.locked) ? skills.filter((s) => locked(s.rank)).map((s) => s.id) : [],
	);
	for (const skill of skills) {
		const winner = skill.shadowedBy === undefined ? undefined : qualified.get(skill.shadowedBy);
		const shadowing =
			skill.status === "shadowed"
				? winner?.status === "selected" && winner.id === skill.id && winner.rank < skill.rank
				: skill.shadowedBy === undefined;
		const competing = skill.status === "selected" || skill.status === "shadowed";
		if (!shadowing || (competing && lockedIds.size > 0 && lockedIds.has(skill.id) && !locked(skill.rank)))
			throw new IndexFormatError("a skill disagrees with what resolution decides");
	}
}
