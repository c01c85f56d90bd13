import { constants, type Stats } from "node:fs";
import { basename, sep } from "node:path";
import { type IndexedSkill, type ScanStats, type SkillIndex, takeScanStats } from "../discovery/index.ts";
import type { SkillsLock } from "../runtime/index.ts";
import { SkillsetError } from "../skill/index.ts";
import type { McpCode } from "./codes.ts";
import {
	FRONTMATTER_PROBLEMS,
	type Frontmatter,
	fieldProblem,
	type JsonValue,
	nameProblem,
	readFrontmatter,
} from "./frontmatter-rules.ts";
import { FrontmatterCache, type FrontmatterProblem } from "./read-cache.ts";
import { readSavedPlan, type SavedRow, savedPlanKey, writeSavedPlan } from "./saved-plan.ts";
import { skillFileUri, skillPathOf } from "./uri.ts";
import { type FileRules, walkSkill } from "./walk.ts";

/** What a plan checks files against: the read rules and, in verify mode, the lock. */
export interface PlanRules extends FileRules {
	lock?: SkillsLock;
	/**
	 * The start-up cache's folder (never used with a lock: that needs the bytes): saved plans, and what served
	 * SKILL.md files parsed to in earlier runs (opened only when a plan is made, not taken).
	 */
	cacheDir?: string;
	/** The frontmatter cache, once opened. */
	reads?: FrontmatterCache;
	/**
	 * True when no served skill's frontmatter is ever used (`--check` reports names): a saved plan's is then not
	 * read, and a served skill reads its own SKILL.md if it is asked for it after all.
	 */
	planOnly?: boolean;
}

/** A skill the server serves: where it lives, its skill path and its frontmatter as written. */
export interface ServedSkill {
	skill: IndexedSkill;
	/** The skill path in its URIs: the name, behind the scope when qualified. */
	path: string;
	/** The `skill://…/SKILL.md` URI. */
	uri: string;
	/** The skill folder (real path). */
	dir: string;
	frontmatter: { [key: string]: JsonValue };
}

/** A selected skill that is not served, with why. */
export interface LeftOutSkill {
	name: string;
	file: string;
	code: McpCode;
	message: string;
}

/** Which skills are served, keyed by skill path, and which are left out. */
export interface ServePlan {
	served: ServedSkill[];
	byPath: Map<string, ServedSkill>;
	leftOut: LeftOutSkill[];
}

const SKILL_FILE_TAIL = `${sep}SKILL.md`;
/** How old a scan's stats may be for the plan to take them instead of its own (a CLI plans within a second). */
const SCAN_STATS_FRESH_MS = 10_000;

/**
 * Decides which of the index's selected skills (trusted, enabled, not shadowed: the ones a catalog and a session
 * may use) are served: SKILL.md named exactly, frontmatter that parses as written, a spec-valid `name` equal to
 * the skill's id (the URI's last segment), the fields clients check, and a folder with no links and within limits.
 */
export function planServe(index: SkillIndex, rules: PlanRules): ServePlan {
	const cacheDir = rules.lock ? undefined : rules.cacheDir;
	const key = cacheDir === undefined ? undefined : savedPlanKey(index, rules);
	const saved = key === undefined ? undefined : takeSaved(index, rules, cacheDir as string, key);
	if (saved) {
		// The scan's SKILL.md stats are not needed: dropped now, not kept for as long as the index lives.
		takeScanStats(index);
		return saved;
	}
	if (cacheDir !== undefined) rules.reads ??= FrontmatterCache.open(cacheDir, rules);
	const plan: ServePlan = { served: [], byPath: new Map(), leftOut: [] };
	const reads = rules.lock ? undefined : rules.reads;
	// The SKILL.md stats the scan that made the index took (a fresh warm scan's, used once): where one matches
	// what the read cache holds for the file and walk.ts proves the name still holds that file, it stands for the
	// plan's own. Every time then counts from the scan's start.
	const taken = reads ? takeScanStats(index) : undefined;
	// Only a scan just made stands in: an index kept for a while may have had its files edited in place since.
	const scanned = taken && Date.now() - taken.since <= SCAN_STATS_FRESH_MS ? taken : undefined;
	const now = scanned ? Math.min(Date.now(), scanned.since) : Date.now();
	// Every skill whose file was looked at: what a warm start-up may take from the cache instead.
	const checked = new Set<string>();
	const rows: SavedRow[] = [];
	const checking: Checking = { reads, now, scanned, keep: reads !== undefined, final: false };
	for (const skill of index.selected) {
		const result = checkSkill(skill, rules, checking);
		if (!skill.origin) checked.add(skill.realFile);
		addTo(plan, result);
		if (key !== undefined) rows.push(checking.final ? savedRowOf(result) : null);
	}
	reads?.save(checked, now);
	if (key !== undefined) writeSavedPlan(cacheDir as string, key, rows);
	return plan;
}

function addTo(plan: ServePlan, result: ServedSkill | LeftOutSkill): void {
	if ("code" in result) plan.leftOut.push(result);
	else {
		plan.served.push(result);
		plan.byPath.set(result.path, result);
	}
}

function savedRowOf(result: ServedSkill | LeftOutSkill): SavedRow {
	return "code" in result
		? { code: result.code, message: result.message }
		: { frontmatter: JSON.stringify(result.frontmatter) };
}

/**
 * The plan saved for `index` (saved-plan.ts says why it stands), with its rows to plan again planned now; undefined
 * when there is none or a row is not one this index can have (the plan is then made fresh, and saved again).
 */
function takeSaved(index: SkillIndex, rules: PlanRules, cacheDir: string, key: string): ServePlan | undefined {
	const selected = index.selected;
	const rows = readSavedPlan(cacheDir, key, selected.length, rules.planOnly !== true);
	if (!rows) return undefined;
	const plan: ServePlan = { served: [], byPath: new Map(), leftOut: [] };
	// Rows planned again walk and read as a cold plan does, keeping no cache but noting whether they could be saved.
	const checking: Checking = { reads: undefined, now: Date.now(), scanned: undefined, keep: true, final: false };
	let settledNow = false;
	for (const [at, row] of rows.entries()) {
		const skill = selected[at] as IndexedSkill;
		if (row === null) {
			const result = checkSkill(skill, rules, checking);
			addTo(plan, result);
			if (checking.final) {
				rows[at] = savedRowOf(result);
				settledNow = true;
			}
		} else if ("code" in row)
			plan.leftOut.push({ name: skill.name, file: skill.file, code: row.code, message: row.message });
		else {
			const served = row.frontmatter === undefined ? namedOnly(skill, rules) : savedServed(skill, row.frontmatter);
			if (!served) return undefined;
			addTo(plan, served);
		}
	}
	if (settledNow) writeSavedPlan(cacheDir, key, rows);
	return plan;
}

/** A saved served row, checked as the plan checks a skill it reads (path, URI and folder are the skill's own). */
function savedServed(skill: IndexedSkill, text: string): ServedSkill | undefined {
	if (skill.origin || !skill.realFile.endsWith(SKILL_FILE_TAIL)) return undefined;
	let frontmatter: unknown;
	try {
		frontmatter = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter)) return undefined;
	const checked = frontmatter as Frontmatter;
	if (nameProblem(checked, skill) || fieldProblem(checked)) return undefined;
	return servedSkill(skill, checked);
}

/**
 * A saved served row taken without its frontmatter (`--check`, which only names it): should the frontmatter be
 * asked for after all, it is read from SKILL.md and checked as a plan checks it.
 */
function namedOnly(skill: IndexedSkill, rules: PlanRules): ServedSkill | undefined {
	if (skill.origin || !skill.realFile.endsWith(SKILL_FILE_TAIL)) return undefined;
	const path = skillPathOf(skill);
	return new NamedOnly(skill, path, skillFileUri(path), skill.realFile.slice(0, -SKILL_FILE_TAIL.length) || sep, rules);
}

/** A served skill whose frontmatter is read when first asked for (one class: no property defined per skill). */
class NamedOnly implements ServedSkill {
	readonly skill: IndexedSkill;
	readonly path: string;
	readonly uri: string;
	readonly dir: string;
	readonly #rules: PlanRules;
	#frontmatter: Frontmatter | undefined;

	constructor(skill: IndexedSkill, path: string, uri: string, dir: string, rules: PlanRules) {
		this.skill = skill;
		this.path = path;
		this.uri = uri;
		this.dir = dir;
		this.#rules = rules;
	}

	get frontmatter(): Frontmatter {
		this.#frontmatter ??= readChecked(this.skill, this.dir, this.#rules);
		return this.#frontmatter;
	}
}

/** SKILL.md's frontmatter, read now, when it passes the plan's checks; else the error that it does not. */
function readChecked(skill: IndexedSkill, dir: string, rules: PlanRules): Frontmatter {
	const read = readFrontmatter(skill, dir, rules);
	const problem =
		"code" in read ? read.message : (nameProblem(read.frontmatter, skill)?.message ?? fieldProblem(read.frontmatter));
	if (problem === undefined && !("code" in read)) return read.frontmatter;
	throw new SkillsetError("internal", `${skill.file}: ${problem}; it changed after the plan was made`);
}

function servedSkill(skill: IndexedSkill, frontmatter: Frontmatter): ServedSkill {
	const path = skillPathOf(skill);
	const dir = skill.realFile.slice(0, -SKILL_FILE_TAIL.length) || sep;
	return { skill, path, uri: skillFileUri(path), dir, frontmatter };
}

/** How skills are checked in one plan; `final` tells, after each check, whether its verdict may be saved. */
interface Checking {
	reads: FrontmatterCache | undefined;
	now: number;
	scanned: ScanStats | undefined;
	/** Whether walks keep folder verdicts (and so tell whether they met anything racy). */
	keep: boolean;
	final: boolean;
}

function checkSkill(skill: IndexedSkill, rules: PlanRules, checking: Checking): ServedSkill | LeftOutSkill {
	const { reads, now, scanned } = checking;
	checking.final = false;
	const leave = (code: McpCode, message: string): LeftOutSkill => ({
		name: skill.name,
		file: skill.file,
		code,
		message,
	});
	// Another origin's skill is that origin's to publish: serving it again would strip its origin from clients.
	if (skill.origin)
		return leave("mcp.remote", `${skill.qualifiedName} comes from ${skill.origin}; it is not served again`);
	// Real paths are absolute: one that ends so is named SKILL.md (and no path is cut for the ten thousand that do).
	if (!skill.realFile.endsWith(SKILL_FILE_TAIL)) {
		checking.final = true;
		return leave("mcp.skill-file", `${basename(skill.realFile)} is not named SKILL.md`);
	}
	const dir = skill.realFile.slice(0, -SKILL_FILE_TAIL.length) || sep;
	const known = scanned && reads ? knownFrontmatter(skill.realFile, scanned, reads, rules) : undefined;
	// The folder is walked first (its problems still come last): its lstat of SKILL.md tells whether the file is
	// the one an earlier run parsed. With the start-up cache on (never in verify mode), a folder's kept verdict
	// stands for its files (walk.ts says why that is safe); `--no-cache` checks every file.
	// One object literal of one shape (a spread per skill cost more than the walk's own bookkeeping).
	const walked = walkSkill(dir, rules, rules.listings, { vouched: known, verdicts: checking.keep, now });
	let frontmatter: Frontmatter | FrontmatterProblem | undefined;
	let stats: Stats | undefined;
	if ("files" in walked) {
		if (walked.skillFileVouched) frontmatter = known?.frontmatter;
		else {
			stats = walked.files.find((file) => file.rel === "SKILL.md")?.stats;
			frontmatter = stats && (reads?.get(skill.realFile, stats) as Frontmatter | FrontmatterProblem | undefined);
		}
	}
	if (!frontmatter) {
		const read = readFrontmatter(skill, dir, rules);
		// What the bytes say is kept either way; a read that failed is not (it may work next time).
		const kept = "code" in read ? read.problem : read.frontmatter;
		if (stats && kept) reads?.set(skill.realFile, stats, kept, now);
		if ("code" in read) {
			checking.final = read.problem !== undefined;
			return leave(read.code, read.message);
		}
		frontmatter = read.frontmatter;
	}
	// From here on every verdict follows from SKILL.md's bytes, but the walk's own problem or its racy look.
	checking.final = true;
	if (typeof frontmatter === "string") return leave("mcp.frontmatter", FRONTMATTER_PROBLEMS[frontmatter]);
	const named = nameProblem(frontmatter, skill);
	if (named) return leave(named.code, named.message);
	const field = fieldProblem(frontmatter);
	if (field) return leave("mcp.field-invalid", field);
	// Only a walk that kept verdicts looked for racy entries (walk.ts): any other cannot vouch for the folder.
	checking.final = "files" in walked && walked.settled === true;
	if ("code" in walked) return leave(walked.code, walked.message);
	return servedSkill(skill, frontmatter);
}

/**
 * What the read cache holds for `file` under the stat the scan took of it, when that stat is of a file the walk
 * would take (regular, not hard-linked unless allowed, within the cap). A stat that followed a link or met another
 * file has another signature than the one kept (taken by `lstat` of this path), so it finds nothing.
 */
function knownFrontmatter(
	file: string,
	scanned: ScanStats,
	reads: FrontmatterCache,
	rules: PlanRules,
): { frontmatter: Frontmatter | FrontmatterProblem; size: number; since: number } | undefined {
	const stat = scanned.get(file);
	if (!stat || (stat.mode & constants.S_IFMT) !== constants.S_IFREG) return undefined;
	if ((stat.nlink > 1 && !rules.allowHardLinks) || stat.size > rules.maxBytes) return undefined;
	const frontmatter = reads.get(file, stat) as Frontmatter | FrontmatterProblem | undefined;
	return frontmatter === undefined ? undefined : { frontmatter, size: stat.size, since: scanned.since };
}
