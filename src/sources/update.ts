import { realpath } from "node:fs/promises";
import { dirname } from "node:path";
import { diffPermissions, type PermissionDiff } from "../policy/index.ts";
import { hashPackage, type LockedSkill, type LockedSource, sha256 } from "../runtime/index.ts";
import { validateSkillPath } from "../skill/index.ts";
import { describeFailure, type SourceErrorCode } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits, fetchBytes } from "./fetch.ts";
import { remoteCommit } from "./git.ts";
import { realPathInside } from "./inside.ts";
import { recordInstall } from "./install.ts";
import { checkInstalledCopy } from "./installed-copy.ts";
import { readLockFile } from "./lock-file.ts";
import { type LockedFetch, lockedFetch } from "./locked-source.ts";
import { placeSkill } from "./place.ts";
import { reviewSkill, type SkillReview } from "./review.ts";
import type { SourceSpec } from "./source.ts";
import { stageSource } from "./stage.ts";
import { fetchSkillIndex } from "./well-known.ts";

/** Whether an installed skill's source has moved on. */
export interface OutdatedLine {
	name: string;
	status: "current" | "outdated" | "unknown";
	/** What is installed: a commit or a digest. */
	installed?: string;
	/** What the source has now. */
	latest?: string;
	/** Why it could not be checked (`lock.invalid` for a lock entry that was refused before anything ran). */
	code?: SourceErrorCode;
	message?: string;
}

/**
 * Checks each installed skill (every skill in the lock with a source, or `names`) against its source, changing
 * nothing. Each lock entry is checked first (`lock.invalid`): nothing is fetched or run for one that fails.
 */
export async function checkOutdated(
	lockFile: string,
	names: readonly string[] = [],
	limits: FetchLimits = DEFAULT_FETCH_LIMITS,
): Promise<OutdatedLine[]> {
	const lock = await readLockFile(lockFile);
	const lines: OutdatedLine[] = [];
	for (const [name, skill] of installedSkills(lock.skills, names)) {
		const source = skill.source as LockedSource;
		try {
			const { spec } = lockedFetch(name, skill);
			const installed = source.commit ?? source.digest ?? skill.digest;
			const latest = await latestOf(name, spec, limits);
			lines.push({ name, status: latest === installed ? "current" : "outdated", installed, latest });
		} catch (error) {
			lines.push({ name, status: "unknown", ...describeFailure(error, "source.fetch") });
		}
	}
	return lines;
}

async function latestOf(name: string, spec: SourceSpec, limits: FetchLimits): Promise<string | undefined> {
	if (spec.kind === "git") return remoteCommit(spec.url, spec.ref, limits.timeoutMs);
	if (spec.kind === "archive") return `sha256:${sha256(await fetchBytes(spec.url, limits))}`;
	if (spec.kind === "index") {
		const index = await fetchSkillIndex(spec.url, limits);
		const entry = index.entries.find((e) => e.name === name);
		return entry && "digest" in entry ? entry.digest : undefined;
	}
	return hashPackage(await realpath(spec.path)).digest;
}

/** One skill's update: what changed in its files and permissions, its audit, and what was done. */
export interface UpdateOutcome {
	name: string;
	status: "updated" | "current" | "refused";
	code?: SourceErrorCode;
	message: string;
	files?: { added: string[]; changed: string[]; removed: string[] };
	permissions?: PermissionDiff;
	review?: SkillReview;
}

/** What an update asks the user about: the new version's review, its file changes and its permission diff. */
export interface UpdateQuestion {
	review: SkillReview;
	files: NonNullable<UpdateOutcome["files"]>;
	permissions: PermissionDiff;
	/** True when the new version asks for more (a new tool, network, read or write path): a P1, like an install. */
	widens: boolean;
}

/** Options of `updateSkills`. */
export interface UpdateOptions {
	lockFile: string;
	/** Skills to update (default: every installed skill with a source). */
	names?: readonly string[];
	strict?: boolean;
	/** Replace an installed copy that differs from its lock entry (local edits are lost). */
	force?: boolean;
	/** Asked for every skill that changed; no answer (or false) leaves it as it is. */
	approve?: (question: UpdateQuestion) => boolean | Promise<boolean>;
	limits?: FetchLimits;
	signal?: AbortSignal;
}

/**
 * Updates installed skills from their recorded sources: check the lock entry (`lock.invalid`) and the installed
 * folder it names (inside the lock's folder after links, holding that skill unchanged since its install, unless
 * `force`), fetch, review (validate, audit), diff files and permissions against the installed version, ask, then
 * swap atomically in exactly that folder (the old version stays until the new one is in place and pinned). P0
 * refuses; nothing changes without `approve`.
 */
export async function updateSkills(options: UpdateOptions): Promise<UpdateOutcome[]> {
	const lock = await readLockFile(options.lockFile);
	const outcomes: UpdateOutcome[] = [];
	for (const name of options.names ?? []) {
		if (!lock.skills[name]?.source)
			outcomes.push({
				name,
				status: "refused",
				code: "install.unknown",
				message: `${name} was not installed from a source (not in the lock with one)`,
			});
	}
	for (const [name, skill] of installedSkills(lock.skills, options.names ?? [])) {
		outcomes.push(await updateOne(name, skill, options));
	}
	return outcomes;
}

async function updateOne(name: string, skill: LockedSkill, options: UpdateOptions): Promise<UpdateOutcome> {
	const source = skill.source as LockedSource;
	let fetch: LockedFetch;
	let installedDir: string;
	try {
		fetch = lockedFetch(name, skill);
		installedDir = await realPathInside(dirname(options.lockFile), skill.path, "install.outside");
		await checkInstalledCopy(name, skill, installedDir, options.force === true);
	} catch (error) {
		return { name, status: "refused", ...describeFailure(error, "lock.invalid") };
	}
	let staged: Awaited<ReturnType<typeof stageSource>> | undefined;
	try {
		staged = await stageSource(fetch.spec, { ...(options.limits ? { limits: options.limits } : {}), skills: [name] });
		const failure = staged.failures.get(name);
		if (failure) return { name, status: "refused", ...failure };
		// The skill's folder in what was fetched, proven inside it after links (a lock's sub-folder is data).
		const folder = fetch.path ? await realPathInside(staged.dir, fetch.path, "lock.invalid") : staged.dir;
		const review = await reviewSkill(folder, "", options.strict === true);
		const next = hashPackage(review.dir);
		if (next.digest === skill.digest) return { name, status: "current", message: "no change" };
		const files = changedFiles(skill, next.files);
		const before = (await validateSkillPath(installedDir, { profile: "lenient" })).properties;
		const permissions = diffPermissions(
			{
				...(before?.manifest ? { manifest: before.manifest } : {}),
				...(before?.allowedTools ? { allowedTools: before.allowedTools } : {}),
			},
			{
				...(review.manifest ? { manifest: review.manifest } : {}),
				...(review.allowedTools ? { allowedTools: review.allowedTools } : {}),
			},
		);
		const base = { name, files, permissions, review };
		if (!review.valid)
			return { ...base, status: "refused", code: "install.invalid", message: "the new version is not a valid skill" };
		if (review.name !== name) {
			const message = `the new version is the skill '${review.name}', not '${name}'`;
			return { ...base, status: "refused", code: "install.invalid", message };
		}
		if (review.verdict === "P0")
			return { ...base, status: "refused", code: "install.refused", message: "the audit forbids the new version (P0)" };
		const widens = permissions.needsApproval || review.verdict === "P1";
		if (!(await options.approve?.({ review, files, permissions, widens }))) {
			const why = widens ? "it asks for more permissions or has P1 findings" : "it changed";
			return {
				...base,
				status: "refused",
				code: "install.needs-approval",
				message: `${why}; pass --yes to accept`,
			};
		}
		const placement = await placeSkill(review, installedDir, true, options.signal);
		const record = { ...staged.record, fetchedAt: new Date().toISOString() } as LockedSource;
		const digest = staged.digests.get(name) ?? staged.record.digest;
		if (digest) record.digest = digest;
		if (source.subpath) record.subpath = source.subpath;
		if (source.type === "dir") record.url = source.url;
		try {
			await recordInstall(options.lockFile, name, installedDir, skill.path, record);
		} catch (error) {
			await placement?.undo();
			const why = describeFailure(error, "install.io").message;
			const message = `the lock file ${options.lockFile} cannot be written, so the update was undone (${why})`;
			return { ...base, status: "refused", code: "install.unpinned", message };
		}
		await placement?.keep();
		return { ...base, status: "updated", message: `written to ${installedDir}` };
	} catch (error) {
		return { name, status: "refused", ...describeFailure(error, "source.fetch") };
	} finally {
		await staged?.cleanup();
	}
}

function changedFiles(
	installed: LockedSkill,
	next: Record<string, { sha256: string }>,
): NonNullable<UpdateOutcome["files"]> {
	const before = installed.files;
	return {
		added: Object.keys(next).filter((path) => !before[path]),
		changed: Object.keys(next).filter((path) => before[path] && before[path]?.sha256 !== next[path]?.sha256),
		removed: Object.keys(before).filter((path) => !next[path]),
	};
}

function installedSkills(skills: Record<string, LockedSkill>, names: readonly string[]): [string, LockedSkill][] {
	return Object.entries(skills).filter(([name, skill]) => skill.source && (names.length === 0 || names.includes(name)));
}
