import { dirname, isAbsolute, relative, resolve } from "node:path";
import { diffPermissions, type PermissionDiff } from "../policy/index.ts";
import { hashPackage, type LockedSkill, type LockedSource, sha256 } from "../runtime/index.ts";
import { isValidSkillName, validateSkillPath } from "../skill/index.ts";
import { describeFailure, type SourceErrorCode } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits, fetchBytes } from "./fetch.ts";
import { remoteCommit } from "./git.ts";
import { placeSkill, recordInstall } from "./install.ts";
import { readLockFile } from "./lock-file.ts";
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
	message?: string;
}

/** Checks each installed skill (every skill in the lock with a source, or `names`) against its source, changing nothing. */
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
			const installed = source.commit ?? source.digest ?? skill.digest;
			const latest = await latestOf(name, source, limits);
			lines.push({ name, status: latest === installed ? "current" : "outdated", installed, latest });
		} catch (error) {
			lines.push({ name, status: "unknown", message: describeFailure(error, "source.fetch").message });
		}
	}
	return lines;
}

async function latestOf(name: string, source: LockedSource, limits: FetchLimits): Promise<string | undefined> {
	if (source.type === "git") return remoteCommit(source.url, source.ref, limits.timeoutMs);
	if (source.type === "archive") return `sha256:${sha256(await fetchBytes(new URL(source.url), limits))}`;
	if (source.type === "index") {
		const index = await fetchSkillIndex(new URL(source.url), limits);
		const entry = index.entries.find((e) => e.name === name);
		return entry && "digest" in entry ? entry.digest : undefined;
	}
	return hashPackage(source.url).digest;
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
	/** Asked for every skill that changed; no answer (or false) leaves it as it is. */
	approve?: (question: UpdateQuestion) => boolean | Promise<boolean>;
	limits?: FetchLimits;
	signal?: AbortSignal;
}

/**
 * Updates installed skills from their recorded sources: fetch, review (validate, audit), diff files and
 * permissions against the installed version, ask, then swap atomically (the old version stays until the new one is
 * in place) and re-pin. P0 refuses; nothing changes without `approve`.
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
	const installedDir = resolve(options.lockFile, "..", skill.path);
	const below = relative(dirname(options.lockFile), installedDir);
	if (below === "" || below.startsWith("..") || isAbsolute(below) || !isValidSkillName(name)) {
		return {
			name,
			status: "refused",
			code: "install.io",
			message: `${installedDir} is not a skill folder below the lock file`,
		};
	}
	const { spec, path } = specOf(name, source);
	let staged: Awaited<ReturnType<typeof stageSource>> | undefined;
	try {
		staged = await stageSource(spec, { ...(options.limits ? { limits: options.limits } : {}), skills: [name] });
		const failure = staged.failures.get(name);
		if (failure) return { name, status: "refused", ...failure };
		const review = await reviewSkill(staged.dir, path, options.strict === true);
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
		if (review.verdict === "P0")
			return { ...base, status: "refused", code: "install.refused", message: "the audit forbids the new version (P0)" };
		const widens = permissions.needsApproval || review.verdict === "P1";
		if (!(await options.approve?.({ review, files, permissions, widens }))) {
			const why = widens ? "it asks for more permissions or has P1 findings" : "it changed";
			return {
				...base,
				status: "refused",
				code: "install.needs-approval",
				message: `not updated: ${why}; pass --yes to accept`,
			};
		}
		await placeSkill({ ...review, name }, resolve(installedDir, ".."), true, options.signal);
		const record = { ...staged.record, fetchedAt: new Date().toISOString() } as LockedSource;
		const digest = staged.digests.get(name) ?? staged.record.digest;
		if (digest) record.digest = digest;
		if (source.subpath) record.subpath = source.subpath;
		if (source.type === "dir") record.url = source.url;
		await recordInstall(options.lockFile, name, installedDir, record);
		return { ...base, status: "updated", message: `updated ${installedDir}` };
	} catch (error) {
		return { name, status: "refused", ...describeFailure(error, "source.fetch") };
	} finally {
		await staged?.cleanup();
	}
}

/** How to fetch an installed skill again, and where it sits in what is fetched. */
function specOf(name: string, source: LockedSource): { spec: SourceSpec; path: string } {
	if (source.type === "git")
		return {
			spec: { kind: "git", url: source.url, ...(source.ref ? { ref: source.ref } : {}) },
			path: source.subpath ?? "",
		};
	if (source.type === "archive")
		return { spec: { kind: "archive", url: new URL(source.url) }, path: source.subpath ?? "" };
	if (source.type === "index") return { spec: { kind: "index", url: new URL(source.url) }, path: name };
	return { spec: { kind: "dir", path: source.url }, path: "" };
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
