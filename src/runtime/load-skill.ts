import { realpathSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { IndexedSkill } from "../discovery/index.ts";
import { DEFAULT_MAX_FILE_BYTES, parseSkillMd } from "../skill/index.ts";
import { readContained } from "./contain.ts";
import { comparePackage, hashPackageAsync, type LockedFile, type SkillsLock, sha256 } from "./integrity.ts";
import { listResources, type SkillResources } from "./resources.ts";

/** Verify mode: the lock to check against, and the folder its paths are relative to. */
export interface IntegrityOptions {
	lock: SkillsLock;
	root: string;
}

/** A skill's body and resources, read for delivery. */
export interface LoadedBody {
	body: string;
	dir: string;
	resources: SkillResources;
}

/** Why a skill could not be loaded for activation. */
export interface LoadFailure {
	code: "unreadable" | "integrity.mismatch";
	message: string;
	details?: Record<string, unknown>;
}

/**
 * Reads a skill's SKILL.md once through the contained reader (from the real folder discovery recorded), checks it
 * against the lock in verify mode (the same bytes that are served, and the package's file list and hashes, read
 * off the event loop), and lists its resources.
 */
export async function loadSkillBody(
	skill: IndexedSkill,
	options: { integrity?: IntegrityOptions; maxFiles?: number },
): Promise<LoadedBody | LoadFailure> {
	const dir = dirname(skill.realFile);
	// SKILL.md is the skill's own entry file, already read at discovery: a hard link to it (package managers such
	// as pnpm install files that way) aliases nothing the skill does not own.
	const read = readContained(dir, basename(skill.realFile), { maxBytes: DEFAULT_MAX_FILE_BYTES, allowHardLinks: true });
	if (!read.ok) return { code: "unreadable", message: `SKILL.md of '${skill.name}' cannot be read: ${read.message}` };
	// A remote skill is checked against the digests recorded when its copy was fetched, never against a lock.
	const failure = skill.origin
		? await verifyRemote(skill, dir, read.path, read.bytes)
		: options.integrity && (await verifySkill(skill, dir, read.path, read.bytes, options.integrity));
	if (failure) return failure;
	const parsed = parseSkillMd(read.bytes, { profile: "lenient", file: skill.file });
	if (!parsed.frontmatter || parsed.body === undefined) {
		const codes = parsed.diagnostics.map((d) => d.code).join(", ");
		return { code: "unreadable", message: `SKILL.md of '${skill.name}' no longer parses (${codes})` };
	}
	const resources = listResources(dir, { maxFiles: options.maxFiles ?? 200 });
	return { body: parsed.body, dir, resources: skill.pins ? onlyPinned(resources, skill.pins) : resources };
}

/**
 * A remote skill's verified copy: SKILL.md (the bytes served) and then every file of the folder must equal the
 * digests its origin provider recorded when it fetched and verified them; no file may be added or missing.
 */
async function verifyRemote(
	skill: IndexedSkill,
	dir: string,
	file: string,
	bytes: Uint8Array,
): Promise<LoadFailure | undefined> {
	const mismatch = (message: string, details?: Record<string, unknown>): LoadFailure => ({
		code: "integrity.mismatch",
		message: `'${skill.name}' no longer matches the copy verified from ${skill.origin}: ${message}`,
		...(details ? { details } : {}),
	});
	if (!skill.pins) return mismatch("no digests were recorded for it");
	return comparePins(skill.pins, dir, file, bytes, mismatch);
}

async function verifySkill(
	skill: IndexedSkill,
	dir: string,
	file: string,
	bytes: Uint8Array,
	integrity: IntegrityOptions,
): Promise<LoadFailure | undefined> {
	const mismatch = (message: string, details?: Record<string, unknown>): LoadFailure => ({
		code: "integrity.mismatch",
		message: `'${skill.name}' does not match ${integrity.root}/skills.lock.json: ${message}`,
		...(details ? { details } : {}),
	});
	const locked = integrity.lock.skills[skill.name];
	if (!locked) return mismatch("the skill is not in the lock");
	if (realPath(resolve(integrity.root, locked.path)) !== dir)
		return mismatch(`it is pinned at ${locked.path}, not here`);
	return comparePins(locked.files, dir, file, bytes, mismatch);
}

/** The served SKILL.md bytes, then the whole folder, against pins (changed, extra and missing files). */
async function comparePins(
	files: Readonly<Record<string, LockedFile>>,
	dir: string,
	file: string,
	bytes: Uint8Array,
	mismatch: (message: string, details?: Record<string, unknown>) => LoadFailure,
): Promise<LoadFailure | undefined> {
	if (!Object.hasOwn(files, file) || files[file]?.sha256 !== sha256(bytes)) return mismatch(`${file} changed`);
	const difference = comparePackage(await hashPackageAsync(dir), { files });
	const { changed, extra, missing } = difference;
	if (changed.length + extra.length + missing.length > 0) {
		const parts = [
			changed.length ? `changed: ${changed.join(", ")}` : "",
			extra.length ? `extra: ${extra.join(", ")}` : "",
			missing.length ? `missing: ${missing.join(", ")}` : "",
		];
		return mismatch(parts.filter(Boolean).join("; "), { ...difference });
	}
	return undefined;
}

/** A listing cut to the pinned files: a file that appeared in a verified copy is never offered. */
function onlyPinned(resources: SkillResources, pins: Readonly<Record<string, LockedFile>>): SkillResources {
	const keep = (paths: string[]) => paths.filter((path) => Object.hasOwn(pins, path));
	const { scripts, references, assets, other } = resources;
	return {
		...resources,
		scripts: keep(scripts),
		references: keep(references),
		assets: keep(assets),
		other: keep(other),
	};
}

function realPath(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return path;
	}
}
