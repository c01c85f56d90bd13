import { existsSync } from "node:fs";
import { lstat, mkdtemp, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { LockedSkill } from "../runtime/index.ts";
import { isValidSkillName } from "../skill/index.ts";
import { describeFailure, type SourceErrorCode } from "./errors.ts";
import { realPathInside } from "./inside.ts";
import { checkInstalledCopy } from "./installed-copy.ts";
import { readLockFile, updateLockFile } from "./lock-file.ts";

/** What `removeSkills` did with one name. */
export interface RemoveOutcome {
	name: string;
	status: "removed" | "refused";
	code?: SourceErrorCode;
	message: string;
	dir?: string;
}

/** Options of `removeSkills`. */
export interface RemoveOptions {
	lockFile: string;
	/** The skills folder, for names the lock does not know (only with `force`). */
	target: string;
	names: readonly string[];
	/** Remove what an install did not put there, or what changed since: a folder the lock does not know, a skill it
	 * only pins (no install source), or an installed skill with local edits. */
	force?: boolean;
}

/**
 * Removes installed skills: each folder is first renamed aside (so it vanishes at once, whole), then deleted, and
 * its lock entry dropped (under the lock file's lock, merged with what other processes wrote). Only what an install
 * put there and nobody changed since goes without `force`; nothing is ever removed through a link that leads out
 * of the lock's folder (or the skills folder), `force` or not.
 */
export async function removeSkills(options: RemoveOptions): Promise<RemoveOutcome[]> {
	const lock = await readLockFile(options.lockFile);
	const outcomes: RemoveOutcome[] = [];
	for (const name of options.names) {
		const entry = Object.hasOwn(lock.skills, name) ? lock.skills[name] : undefined;
		try {
			outcomes.push(await removeOne(name, entry, options));
		} catch (error) {
			outcomes.push({ name, status: "refused", ...describeFailure(error, "install.io") });
		}
	}
	const removed = outcomes.filter((o) => o.status === "removed");
	if (removed.length === 0) return outcomes;
	try {
		await updateLockFile(options.lockFile, (fresh) => {
			for (const { name } of removed) delete fresh.skills[name];
		});
	} catch (error) {
		// The folders are gone; their entries stay, and the next `remove` drops them ("already gone").
		const why = describeFailure(error, "install.io").message;
		for (const outcome of removed) {
			outcome.code = "install.unpinned";
			outcome.message = `${outcome.message}, but its entry could not be dropped from ${options.lockFile} (${why})`;
		}
	}
	return outcomes;
}

async function removeOne(name: string, entry: LockedSkill | undefined, options: RemoveOptions): Promise<RemoveOutcome> {
	const refuse = (code: SourceErrorCode, message: string): RemoveOutcome => ({
		name,
		status: "refused",
		code,
		message,
	});
	if (!entry && !isValidSkillName(name)) return refuse("install.unknown", `'${name}' is not a skill name`);
	const notInstalled = () =>
		refuse(
			"install.unknown",
			`${name} is not installed (not in ${options.lockFile}, no ${join(options.target, name)})`,
		);
	if (!entry && !existsSync(options.target)) return notInstalled();
	// A lock file is data from the repository: its path must lead to a folder inside the lock's folder, after links.
	const dir = entry
		? await realPathInside(dirname(options.lockFile), entry.path, "install.outside")
		: await realPathInside(options.target, name, "install.outside");
	const stats = await lstat(dir).catch(() => undefined);
	if (!entry && !stats) return notInstalled();
	if (stats && (!stats.isDirectory() || !existsSync(join(dir, "SKILL.md")))) {
		return refuse("install.io", `${dir} is not a skill folder`);
	}
	if (!entry && !options.force) {
		return refuse(
			"install.unknown",
			`${name} is not in ${options.lockFile}; pass --force to remove ${dir} (skillset add did not put it there)`,
		);
	}
	if (entry && stats) {
		if (!entry.source && !options.force) {
			const message = `${name} was not installed by skillset add (${options.lockFile} only pins it, with no source); pass --force to remove ${dir}`;
			return refuse("install.unknown", message);
		}
		await checkInstalledCopy(name, entry, dir, options.force === true);
	}
	if (stats) {
		const aside = await mkdtemp(join(dirname(dir), `.${basename(dir)}.remove-`));
		await rename(dir, join(aside, "skill"));
		await rm(aside, { recursive: true, force: true });
	}
	return {
		name,
		status: "removed",
		message: stats ? `removed ${dir}` : `${dir} was already gone; lock entry dropped`,
		dir,
	};
}
