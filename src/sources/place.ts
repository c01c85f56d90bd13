import { lstat, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { hashPackage, readContained, sha256 } from "../runtime/index.ts";
import { SourceError } from "./errors.ts";
import type { SkillReview } from "./review.ts";

/** The largest file an installed skill may carry (the runtime serves no larger resource either). */
const MAX_INSTALL_FILE_BYTES = 16 << 20;

/**
 * A skill renamed into place whose previous folder (if any) is still kept aside: `keep` drops the old copy once the
 * install is recorded, `undo` puts the old copy (or nothing) back when it cannot be.
 */
export interface Placement {
	dir: string;
	keep(): Promise<void>;
	undo(): Promise<void>;
}

/**
 * Copies a reviewed skill into the folder `dest` atomically; null when an identical copy is already there. Files are
 * copied one by one (links and special files refuse the skill) into `.<name>.add-*` beside `dest`, then renamed
 * into place. An existing folder is replaced only with `force`, and kept aside until `keep` or `undo`.
 */
export async function placeSkill(
	review: SkillReview,
	dest: string,
	force: boolean,
	signal?: AbortSignal,
): Promise<Placement | null> {
	const hashed = hashPackage(review.dir);
	if (hashed.problems.length > 0) {
		throw new SourceError(
			"install.invalid",
			`${review.name} has files that cannot be installed: ${hashed.problems.slice(0, 3).join("; ")}`,
		);
	}
	// A repository's metadata inside a skill is code that runs later: git runs its hooks and config (fsmonitor,
	// sshCommand) in whatever tool opens the folder. No source brings one.
	const vcs = Object.keys(hashed.files).find((path) => path.split("/").some(isGitFolder));
	if (vcs) {
		throw new SourceError(
			"install.invalid",
			`${review.name} holds ${vcs}: a .git folder is never installed (tools that open the skill would run its hooks and config); install a repository as a git source (file://…) instead`,
		);
	}
	const existing = await lstat(dest).catch(() => undefined);
	if (existing) {
		if (existing.isDirectory() && hashPackage(dest).digest === hashed.digest) return null;
		if (!force)
			throw new SourceError("install.exists", `${dest} already holds a different skill; pass --force to replace it`);
	}
	await mkdir(dirname(dest), { recursive: true });
	const staging = await mkdtemp(join(dirname(dest), `.${basename(dest)}.add-`));
	try {
		await copyReviewed(review, hashed.files, staging, signal);
		return await swapInto(staging, dest, existing !== undefined);
	} finally {
		await rm(staging, { recursive: true, force: true });
	}
}

async function copyReviewed(
	review: SkillReview,
	files: Record<string, { sha256: string }>,
	staging: string,
	signal: AbortSignal | undefined,
): Promise<void> {
	for (const path of Object.keys(files)) {
		if (signal?.aborted) throw new SourceError("install.io", "interrupted; nothing of this skill was installed");
		// Read through the contained reader (no link followed, regular files only), never by plain path: a
		// source folder changed between the hash and the copy cannot slip a file from elsewhere in.
		const read = readContained(review.dir, path, { maxBytes: MAX_INSTALL_FILE_BYTES });
		if (!read.ok) throw new SourceError("install.invalid", `${review.name}: ${path}: ${read.message}`);
		if (sha256(read.bytes) !== files[path]?.sha256) {
			throw new SourceError("install.invalid", `${review.name}: ${path} changed while it was being installed`);
		}
		const to = join(staging, ...path.split("/"));
		await mkdir(dirname(to), { recursive: true });
		const executable = ((await lstat(read.absolute)).mode & 0o111) !== 0;
		await writeFile(to, read.bytes, { flag: "wx", mode: executable ? 0o755 : 0o644 });
	}
	if (signal?.aborted) throw new SourceError("install.io", "interrupted; nothing of this skill was installed");
}

/** Renames `staging` to `dest`; an old `dest` is moved aside first (and put back if the rename fails). */
async function swapInto(staging: string, dest: string, replace: boolean): Promise<Placement> {
	const aside = `${staging}.old`;
	if (replace) await rename(dest, aside);
	try {
		await rename(staging, dest);
	} catch (error) {
		if (replace) await rename(aside, dest);
		throw error;
	}
	return {
		dir: dest,
		keep: () => (replace ? rm(aside, { recursive: true, force: true }) : Promise.resolve()),
		async undo() {
			// The new copy goes aside whole first, so `dest` is never half removed.
			const trash = `${staging}.undo`;
			await rename(dest, trash);
			if (replace) await rename(aside, dest);
			await rm(trash, { recursive: true, force: true });
		},
	};
}

/** `.git` as any file system may spell it (case folded; Windows drops trailing dots and spaces). */
function isGitFolder(segment: string): boolean {
	return segment.toLowerCase().replace(/[. ]+$/, "") === ".git";
}
