import { createHash } from "node:crypto";
import { dirname, relative, sep } from "node:path";
import type { IndexedSkill } from "../discovery/index.ts";
import { readContained } from "./contain.ts";
import { readContainedAsync } from "./contain-async.ts";
import { listContained } from "./contain-list.ts";

/** One file's pin. */
export interface LockedFile {
	sha256: string;
	size: number;
}

/** Where an installed skill came from (`skillset add`): kind, location, ref and commit or artifact digest. */
export interface LockedSource {
	type: string;
	url: string;
	ref?: string;
	commit?: string;
	subpath?: string;
	digest?: string;
	/** ISO 8601 time of the fetch. */
	fetchedAt: string;
}

/** One skill's pins: its folder (POSIX, relative to the lock file), the package digest and every file. */
export interface LockedSkill {
	path: string;
	digest: string;
	files: Record<string, LockedFile>;
	/** Present for installed skills. */
	source?: LockedSource;
}

/** `skills.lock.json`: pins for every skill by name. */
export interface SkillsLock {
	version: 1;
	skills: Record<string, LockedSkill>;
}

/** The lock file's name. */
export const LOCK_FILE_NAME = "skills.lock.json";

/** The largest lock file read (64 MiB: far above any real one, far below what would exhaust memory). */
export const MAX_LOCK_FILE_BYTES: number = 64 << 20;

/** A package's hashes, and what could not be hashed (links, hard links, unreadable files). */
export interface PackageHash {
	files: Record<string, LockedFile>;
	digest: string;
	problems: string[];
}

const MAX_PACKAGE_FILES = 10_000;

/**
 * Hashes every file of a skill folder: a walk that never follows links (a link is a problem, not hashed through),
 * each file read once through the contained reader, paths as sorted POSIX paths, and a package digest over
 * `path<TAB>sha256` lines.
 */
export function hashPackage(dir: string): PackageHash {
	// No prototype: a file named `__proto__` is a key like any other, never a setter that drops it from the pins.
	const files: Record<string, LockedFile> = Object.create(null);
	const problems: string[] = [];
	for (const rel of walkFiles(dir, problems)) {
		const read = readContained(dir, rel);
		if (!read.ok) {
			problems.push(`${rel}: ${read.message}`);
			continue;
		}
		files[rel] = { sha256: sha256(read.bytes), size: read.size };
	}
	return { files, digest: packageDigest(files), problems };
}

/**
 * {@link hashPackage} with each file read (contained, the same checks) in chunks off the event loop and hashed as
 * it arrives: verifying a large skill never holds up other work.
 */
export async function hashPackageAsync(dir: string): Promise<PackageHash> {
	const files: Record<string, LockedFile> = {};
	const problems: string[] = [];
	for (const rel of walkFiles(dir, problems)) {
		const read = await readContainedAsync(dir, rel, { digest: "sha256" });
		if (!read.ok || read.sha256 === undefined) {
			problems.push(`${rel}: ${read.ok ? "could not be hashed" : read.message}`);
			continue;
		}
		files[rel] = { sha256: read.sha256, size: read.size };
	}
	return { files, digest: packageDigest(files), problems };
}

/** `sha256:` and the hash of the sorted `path<TAB>sha256` lines. */
export function packageDigest(files: Record<string, LockedFile>): string {
	const lines = sortedPaths(Object.keys(files)).map((path) => `${path}\t${files[path]?.sha256}\n`);
	return `sha256:${sha256(new TextEncoder().encode(lines.join("")))}`;
}

/** Hex SHA-256 of bytes. */
export function sha256(bytes: Uint8Array): string {
	return createHash("sha256").update(bytes).digest("hex");
}

/** Paths in UTF-8 byte order, the order the lock file and the digest use. */
export function sortedPaths(paths: readonly string[]): string[] {
	return [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** How a package differs from its pins: changed, extra and missing files. Empty lists mean it matches. */
export interface PackageDifference {
	changed: string[];
	extra: string[];
	missing: string[];
}

/**
 * A lock for `skills`, with folder paths relative to `root` (where the lock file goes). Where `previous` (the lock
 * being replaced) records the source a skill was installed from, the new entry keeps it.
 */
export function createLock(
	skills: readonly IndexedSkill[],
	root: string,
	previous?: SkillsLock,
): { lock: SkillsLock; problems: { name: string; problems: string[] }[] } {
	const lock: SkillsLock = { version: 1, skills: {} };
	const problems: { name: string; problems: string[] }[] = [];
	for (const skill of skills) {
		const dir = dirname(skill.realFile);
		const hashed = hashPackage(dir);
		if (hashed.problems.length > 0) problems.push({ name: skill.name, problems: hashed.problems });
		const path = relative(root, dir).split(sep).join("/") || ".";
		const source = previous?.skills[skill.name]?.source;
		lock.skills[skill.name] = { path, digest: hashed.digest, files: hashed.files, ...(source ? { source } : {}) };
	}
	return { lock, problems };
}

/** Compares a package's current hashes with its pins. */
export function comparePackage(current: PackageHash, locked: Pick<LockedSkill, "files">): PackageDifference {
	const now = current.files;
	const pinned = locked.files;
	return {
		changed: Object.keys(now).filter(
			(path) => Object.hasOwn(pinned, path) && pinned[path]?.sha256 !== now[path]?.sha256,
		),
		extra: [...Object.keys(now).filter((path) => !Object.hasOwn(pinned, path)), ...current.problems],
		missing: Object.keys(pinned).filter((path) => !now[path]),
	};
}

/** The lock as written to disk: stable key order, two-space indent, final newline. */
export function renderLock(lock: SkillsLock): string {
	const skills: Record<string, LockedSkill> = Object.create(null);
	for (const name of sortedPaths(Object.keys(lock.skills))) {
		const skill = lock.skills[name] as LockedSkill;
		const files: Record<string, LockedFile> = Object.create(null);
		for (const path of sortedPaths(Object.keys(skill.files))) files[path] = skill.files[path] as LockedFile;
		skills[name] = { path: skill.path, digest: skill.digest, files, ...(skill.source ? { source: skill.source } : {}) };
	}
	return `${JSON.stringify({ version: 1, skills }, null, 2)}\n`;
}

/** Parses lock file text, or says what is wrong with it. */
export function parseLock(text: string): SkillsLock | { error: string } {
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		return { error: `not valid JSON: ${(error as Error).message}` };
	}
	const lock = data as Partial<SkillsLock> | null;
	if (lock?.version !== 1 || typeof lock.skills !== "object" || lock.skills === null) {
		return { error: "expected { version: 1, skills: { ... } }" };
	}
	for (const [name, skill] of Object.entries(lock.skills)) {
		if (typeof skill?.path !== "string" || typeof skill.digest !== "string" || typeof skill.files !== "object") {
			return { error: `skills.${name} must have path, digest and files` };
		}
		const source = skill.source as Partial<LockedSource> | undefined;
		if (source !== undefined && (typeof source?.type !== "string" || typeof source.url !== "string")) {
			return { error: `skills.${name}.source must have type and url` };
		}
	}
	return lock as SkillsLock;
}

function walkFiles(dir: string, problems: string[]): string[] {
	const found: string[] = [];
	const pending: string[] = [""];
	while (pending.length > 0 && found.length < MAX_PACKAGE_FILES) {
		const rel = pending.shift() ?? "";
		const listed = listContained(dir, rel);
		if (!listed.ok) {
			problems.push(`${rel || "."}: ${listed.message} (${listed.code})`);
			continue;
		}
		for (const entry of listed.entries) {
			const path = rel ? `${rel}/${entry.name}` : entry.name;
			if (entry.kind === "symlink") problems.push(`${path}: a symbolic link (not followed)`);
			else if (entry.kind === "directory") pending.push(path);
			else if (entry.kind === "file") found.push(path);
			else problems.push(`${path}: not a regular file`);
		}
	}
	if (pending.length > 0) problems.push(`more than ${MAX_PACKAGE_FILES} files`);
	return sortedPaths(found);
}
