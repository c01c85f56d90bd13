import { lstat, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { hashPackage, type LockedSource, readContained, sha256 } from "../runtime/index.ts";
import { describeFailure, SourceError, type SourceErrorCode } from "./errors.ts";
import type { FetchLimits } from "./fetch.ts";
import { readLockFile, writeLockFile } from "./lock-file.ts";
import { findSkillDirs, reviewSkill, type SkillReview } from "./review.ts";
import { parseSource } from "./source.ts";
import { type SourceRecord, stageSource } from "./stage.ts";

/** The largest file an installed skill may carry (the runtime serves no larger resource either). */
const MAX_INSTALL_FILE_BYTES = 16 << 20;

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
 * failure installs nothing of that skill; an existing different skill is never replaced without `force`.
 */
export async function addSkills(options: AddOptions): Promise<AddResult> {
	const result: AddResult = { source: null, lockFile: options.lockFile, outcomes: [], warnings: [] };
	let staged: Awaited<ReturnType<typeof stageSource>> | undefined;
	try {
		const spec = parseSource(options.source, options.cwd);
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
			const outcome = await installReviewed(review, options);
			result.outcomes.push(outcome);
			if (outcome.status === "installed" || outcome.status === "unchanged") {
				const digest = staged.digests.get(review.name) ?? staged.record.digest;
				const source: LockedSource = { ...staged.record, fetchedAt, ...(digest ? { digest } : {}) };
				if (staged.record.type === "dir") source.url = join(staged.record.url, review.path);
				else if (review.path !== "." && staged.record.type !== "index")
					source.subpath = [staged.record.subpath, review.path].filter(Boolean).join("/");
				await recordInstall(options.lockFile, review.name, join(options.target, review.name), source);
			}
		}
	} catch (error) {
		result.failure = describeFailure(error, "source.fetch");
	} finally {
		await staged?.cleanup();
	}
	return result;
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
async function installReviewed(review: SkillReview, options: AddOptions): Promise<InstallOutcome> {
	const refuse = (code: SourceErrorCode, message: string): InstallOutcome => ({
		name: review.name,
		status: "refused",
		code,
		message,
		review,
	});
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
	try {
		const dir = await placeSkill(review, options.target, options.force === true, options.signal);
		return dir === null
			? {
					name: review.name,
					status: "unchanged",
					message: "already installed, identical",
					dir: join(options.target, review.name),
					review,
				}
			: { name: review.name, status: "installed", message: `installed into ${dir}`, dir, review };
	} catch (error) {
		const failure = describeFailure(error, "install.io");
		return refuse(failure.code, failure.message);
	}
}

/**
 * Copies a reviewed skill into `target/<name>` atomically; null when an identical copy is already there. Files are
 * copied one by one (links and special files refuse the skill) into `.<name>.add-*` beside the target, then renamed.
 */
export async function placeSkill(
	review: SkillReview,
	target: string,
	force: boolean,
	signal?: AbortSignal,
): Promise<string | null> {
	const dest = join(target, review.name);
	const hashed = hashPackage(review.dir);
	if (hashed.problems.length > 0) {
		throw new SourceError(
			"install.invalid",
			`${review.name} has files that cannot be installed: ${hashed.problems.slice(0, 3).join("; ")}`,
		);
	}
	const existing = await lstat(dest).catch(() => undefined);
	if (existing) {
		if (existing.isDirectory() && hashPackage(dest).digest === hashed.digest) return null;
		if (!force)
			throw new SourceError("install.exists", `${dest} already holds a different skill; pass --force to replace it`);
	}
	await mkdir(target, { recursive: true });
	const staging = await mkdtemp(join(target, `.${review.name}.add-`));
	try {
		for (const path of Object.keys(hashed.files)) {
			if (signal?.aborted) throw new SourceError("install.io", "interrupted; nothing of this skill was installed");
			// Read through the contained reader (no link followed, regular files only), never by plain path: a
			// source folder changed between the hash and the copy cannot slip a file from elsewhere in.
			const read = readContained(review.dir, path, { maxBytes: MAX_INSTALL_FILE_BYTES });
			if (!read.ok) throw new SourceError("install.invalid", `${review.name}: ${path}: ${read.message}`);
			if (sha256(read.bytes) !== hashed.files[path]?.sha256) {
				throw new SourceError("install.invalid", `${review.name}: ${path} changed while it was being installed`);
			}
			const to = join(staging, ...path.split("/"));
			await mkdir(dirname(to), { recursive: true });
			const executable = ((await lstat(read.absolute)).mode & 0o111) !== 0;
			await writeFile(to, read.bytes, { flag: "wx", mode: executable ? 0o755 : 0o644 });
		}
		if (signal?.aborted) throw new SourceError("install.io", "interrupted; nothing of this skill was installed");
		await swapInto(staging, dest, existing !== undefined);
		return dest;
	} finally {
		await rm(staging, { recursive: true, force: true });
	}
}

/** Renames `staging` to `dest`; an old `dest` is moved aside first and put back if the rename fails. */
export async function swapInto(staging: string, dest: string, replace: boolean): Promise<void> {
	if (!replace) {
		await rename(staging, dest);
		return;
	}
	const aside = `${staging}.old`;
	await rename(dest, aside);
	try {
		await rename(staging, dest);
	} catch (error) {
		await rename(aside, dest);
		throw error;
	}
	await rm(aside, { recursive: true, force: true });
}

/** Pins the installed folder's files in the lock with where they came from. */
export async function recordInstall(lockFile: string, name: string, dir: string, source: LockedSource): Promise<void> {
	const lock = await readLockFile(lockFile);
	const hashed = hashPackage(dir);
	const path = relative(dirname(lockFile), dir).split(sep).join("/") || ".";
	lock.skills[name] = { path, digest: hashed.digest, files: hashed.files, source };
	await writeLockFile(lockFile, lock);
}
