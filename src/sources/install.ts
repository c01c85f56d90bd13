import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { hashPackage, type LockedSource } from "../runtime/index.ts";
import { describeFailure, SourceError, type SourceErrorCode } from "./errors.ts";
import type { FetchLimits } from "./fetch.ts";
import { realPathInside, realPathOf } from "./inside.ts";
import { readLockFile, updateLockFile } from "./lock-file.ts";
import { type Placement, placeSkill } from "./place.ts";
import { findSkillDirs, reviewSkill, type SkillReview } from "./review.ts";
import { parseSource } from "./source.ts";
import { type SourceRecord, stageSource } from "./stage.ts";

/** What `addSkills` does with one skill. */
export interface InstallOutcome {
	name: string;
	status: "installed" | "unchanged" | "refused";
	code?: SourceErrorCode;
	message: string;
	/** The installed folder. */
	dir?: string;
	review?: SkillReview;
}

/** The result of an install: the source as resolved and one outcome per skill asked for. */
export interface AddResult {
	source: SourceRecord | null;
	lockFile: string;
	outcomes: InstallOutcome[];
	warnings: string[];
	/** Set when nothing could be fetched at all. */
	failure?: { code: SourceErrorCode; message: string };
}

/** Options of `addSkills`. */
export interface AddOptions {
	/** As `skillset add` takes it (see `parseSource`). */
	source: string;
	cwd: string;
	/** The skills folder to install into. */
	target: string;
	/** The lock file that records installs. */
	lockFile: string;
	/** Skill names to install; with neither this nor `all`, a source with exactly one skill installs it. */
	skills?: readonly string[];
	all?: boolean;
	/** Validate with the strict profile (default lenient). */
	strict?: boolean;
	/** Replace an existing different skill of the same name. */
	force?: boolean;
	/** Asked, when neither `skills` nor `all` is given and the source has several, which to install. */
	pick?: (reviews: readonly SkillReview[]) => Promise<readonly string[]>;
	/** Asked for each skill whose audit has P1 findings; no answer (or false) refuses it. */
	approve?: (review: SkillReview) => boolean | Promise<boolean>;
	limits?: FetchLimits;
	/** Accept a v0.1.0 index source, whose files have no digests (`--allow-unverified`); off by default. */
	allowUnverified?: boolean;
	/** Aborting stops before the next file is written and removes what was staged. */
	signal?: AbortSignal;
}

/**
 * Installs skills from a source: fetch, find, validate, audit (P0 refuses, P1 needs `approve`), then for each skill
 * copy into a temporary folder beside the target and rename it into place, and record it in the lock. A refusal or
 * failure installs nothing of that skill; an existing different skill is never replaced without `force`; an install
 * whose lock entry cannot be written is undone.
 */
export async function addSkills(options: AddOptions): Promise<AddResult> {
	const result: AddResult = { source: null, lockFile: options.lockFile, outcomes: [], warnings: [] };
	let staged: Awaited<ReturnType<typeof stageSource>> | undefined;
	try {
		const spec = parseSource(options.source, options.cwd);
		checkBelowLock(options.target, options.lockFile);
		const target = await realTarget(options.cwd, options.target);
		// A lock that cannot be read (or is broken) refuses before anything is fetched or written.
		await readLockFile(options.lockFile);
		staged = await stageSource(spec, {
			...(options.limits ? { limits: options.limits } : {}),
			...(options.skills ? { skills: options.skills } : {}),
			allowUnverified: options.allowUnverified === true,
		});
		result.source = staged.record;
		result.warnings.push(...staged.warnings);
		for (const [name, failure] of staged.failures) result.outcomes.push({ name, status: "refused", ...failure });
		const reviews = await Promise.all(
			findSkillDirs(staged.dir).map((path) => reviewSkill(staged?.dir ?? "", path, options.strict === true)),
		);
		const picked =
			!options.all && !options.skills?.length && reviews.length > 1 && options.pick
				? await options.pick(reviews)
				: undefined;
		const chosen = choose(reviews, picked ? { ...options, skills: picked } : options, result);
		const fetchedAt = new Date().toISOString();
		for (const review of chosen) {
			const digest = staged.digests.get(review.name) ?? staged.record.digest;
			const source: LockedSource = { ...staged.record, fetchedAt, ...(digest ? { digest } : {}) };
			if (staged.record.type === "dir") source.url = join(staged.record.url, review.path);
			else if (review.path !== "." && staged.record.type !== "index")
				source.subpath = [staged.record.subpath, review.path].filter(Boolean).join("/");
			result.outcomes.push(await installOne(review, target, source, options));
		}
	} catch (error) {
		result.failure = describeFailure(error, "source.fetch");
	} finally {
		await staged?.cleanup();
	}
	return result;
}

/** Refuses a skills folder outside the lock file's folder: update and remove could never act on what it records. */
function checkBelowLock(target: string, lockFile: string): void {
	const rel = relative(dirname(lockFile), target);
	if (rel.startsWith("..") || isAbsolute(rel)) {
		throw new SourceError(
			"install.outside",
			`${target} is not below the lock file's folder ${dirname(lockFile)}; pass --lock with a lock file above it`,
		);
	}
}

/**
 * The skills folder's real path. One named inside the working folder must stay inside it after links are resolved:
 * a cloned workspace can ship `.agents` as a link to anywhere.
 */
async function realTarget(cwd: string, target: string): Promise<string> {
	const rel = relative(cwd, target);
	if (rel.startsWith("..") || isAbsolute(rel)) return realPathOf(target);
	try {
		return await realPathInside(cwd, rel, "install.outside");
	} catch (error) {
		if (!(error instanceof SourceError)) throw error;
		throw new SourceError("install.outside", `${error.message}; to install there, pass it as --dir`);
	}
}

/** Gates, placement, then the lock entry; the placement is undone when the lock cannot be written. */
async function installOne(
	review: SkillReview,
	target: string,
	source: LockedSource,
	options: AddOptions,
): Promise<InstallOutcome> {
	const lockPath = relative(dirname(options.lockFile), join(options.target, review.name)).split(sep).join("/");
	const elsewhere = await otherCopy(options.lockFile, review.name, lockPath || ".");
	if (elsewhere) {
		const message = `${review.name} is already installed at ${elsewhere} (${options.lockFile} keeps one copy per name): update it there, or remove it first (skillset remove ${review.name})`;
		return { name: review.name, status: "refused", code: "install.exists", message, review };
	}
	const outcome = await installReviewed(review, target, options);
	if (outcome.status === "refused") return outcome;
	const { placement, ...done } = outcome;
	const dir = placement?.dir ?? join(target, review.name);
	try {
		await recordInstall(options.lockFile, review.name, dir, lockPath, source);
	} catch (error) {
		await placement?.undo();
		const { message } = describeFailure(error, "install.io");
		const what = placement
			? `${review.name} was not installed: the lock file ${options.lockFile} cannot be written, so the install was undone`
			: `${review.name} is installed (an identical copy was already there) but not pinned: the lock file ${options.lockFile} cannot be written`;
		return { name: review.name, status: "refused", code: "install.unpinned", message: `${what} (${message})`, review };
	}
	await placement?.keep();
	return done;
}

/**
 * Where the lock already keeps `name`, when that is another folder that still exists. The lock has one entry per
 * name: a second copy would move it, and outdated, update and lock --verify would then follow the wrong copy.
 */
async function otherCopy(lockFile: string, name: string, path: string): Promise<string | undefined> {
	const { skills } = await readLockFile(lockFile);
	const entry = Object.hasOwn(skills, name) ? skills[name] : undefined;
	if (!entry || entry.path === path) return undefined;
	return existsSync(join(dirname(lockFile), entry.path)) ? entry.path : undefined;
}

function choose(reviews: SkillReview[], options: AddOptions, result: AddResult): SkillReview[] {
	if (reviews.length === 0 && result.outcomes.length === 0) {
		throw new SourceError(
			"source.no-skills",
			"the source holds no SKILL.md (hidden folders and subfolders were searched)",
		);
	}
	const byName = new Map(reviews.map((review) => [review.name, review]));
	if (options.skills && options.skills.length > 0) {
		const picked: SkillReview[] = [];
		for (const name of options.skills) {
			const review = byName.get(name);
			if (review) picked.push(review);
			else if (!result.outcomes.some((o) => o.name === name)) {
				const available = [...byName.keys()].slice(0, 10).join(", ");
				result.outcomes.push({
					name,
					status: "refused",
					code: "install.unknown",
					message: `no skill '${name}' in the source (it has: ${available})`,
				});
			}
		}
		return picked;
	}
	if (options.all || reviews.length === 1) return reviews;
	throw new SourceError(
		"install.unknown",
		`the source holds ${reviews.length} skills (${[...byName.keys()].slice(0, 10).join(", ")}${reviews.length > 10 ? ", …" : ""}): choose with --skill NAME or --all`,
	);
}

/** The gates, then the atomic copy. */
async function installReviewed(
	review: SkillReview,
	target: string,
	options: AddOptions,
): Promise<InstallOutcome & { placement?: Placement }> {
	const refuse = (code: SourceErrorCode, message: string): InstallOutcome => ({
		name: review.name,
		status: "refused",
		code,
		message,
		review,
	});
	// The name becomes a folder and is printed: control and invisible characters (from a folder name that stood in
	// for a missing one) have no place in either.
	if (/[\p{Cc}\p{Cf}]/u.test(review.name)) {
		const message = `${JSON.stringify(review.name)} holds control or invisible characters: not a name to install under`;
		return refuse("install.invalid", message);
	}
	if (!review.valid) {
		const first = review.errors[0];
		return refuse(
			"install.invalid",
			`${review.name} is not a valid skill: ${first ? `${first.code} ${first.message}` : "no SKILL.md"}`,
		);
	}
	if (review.verdict === "P0") {
		const rules = [...new Set(review.findings.filter((f) => f.severity === "P0").map((f) => f.rule))].join(", ");
		return refuse("install.refused", `the audit forbids ${review.name} (P0: ${rules})`);
	}
	if (review.verdict === "P1" && !(await options.approve?.(review))) {
		const rules = [...new Set(review.findings.filter((f) => f.severity === "P1").map((f) => f.rule))].join(", ");
		return refuse("install.needs-approval", `${review.name} needs approval (P1: ${rules}); pass --yes to accept`);
	}
	const dest = join(target, review.name);
	try {
		const placement = await placeSkill(review, dest, options.force === true, options.signal);
		return placement === null
			? { name: review.name, status: "unchanged", message: "already installed, identical", dir: dest, review }
			: { name: review.name, status: "installed", message: `installed into ${dest}`, dir: dest, review, placement };
	} catch (error) {
		const failure = describeFailure(error, "install.io");
		return refuse(failure.code, failure.message);
	}
}

/** Pins the installed folder's files in the lock (at `path`, relative to the lock's folder) with where they came from. */
export async function recordInstall(
	lockFile: string,
	name: string,
	dir: string,
	path: string,
	source: LockedSource,
): Promise<void> {
	const hashed = hashPackage(dir);
	const entry = { path: path || ".", digest: hashed.digest, files: hashed.files, source };
	await updateLockFile(lockFile, (lock) => {
		// Defined, not assigned: a skill named like an Object.prototype key (`__proto__`) is an entry like any other.
		Object.defineProperty(lock.skills, name, { value: entry, enumerable: true, writable: true, configurable: true });
	});
}
