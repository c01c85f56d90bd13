import { existsSync } from "node:fs";
import { lstat, mkdtemp, rename, rm } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { isValidSkillName } from "../skill/index.ts";
import { describeFailure, type SourceErrorCode } from "./errors.ts";
import { readLockFile, writeLockFile } from "./lock-file.ts";

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
	/** Remove a folder the lock does not know. */
	force?: boolean;
}

/**
 * Removes installed skills: each folder is first renamed aside (so it vanishes at once, whole), then deleted, and
 * its lock entry dropped. A folder the lock does not know is refused unless `force`: it may be the user's own work.
 */
export async function removeSkills(options: RemoveOptions): Promise<RemoveOutcome[]> {
	const lock = await readLockFile(options.lockFile);
	const outcomes: RemoveOutcome[] = [];
	for (const name of options.names) {
		const entry = lock.skills[name];
		const dir = entry ? resolve(dirname(options.lockFile), entry.path) : join(options.target, name);
		if (!entry && !isValidSkillName(name)) {
			outcomes.push({ name, status: "refused", code: "install.unknown", message: `'${name}' is not a skill name` });
			continue;
		}
		// A lock file is data from the repository: its path must lead to a skill folder below the lock's folder.
		const base = dirname(options.lockFile);
		if (
			entry &&
			(relative(base, dir).startsWith("..") || relative(base, dir) === "" || isAbsolute(relative(base, dir)))
		) {
			outcomes.push({
				name,
				status: "refused",
				code: "install.io",
				message: `${dir} is not below ${base}: not removed`,
			});
			continue;
		}
		if (!entry && !options.force) {
			outcomes.push({
				name,
				status: "refused",
				code: "install.unknown",
				message: `${name} is not in ${options.lockFile}; pass --force to remove ${dir}`,
			});
			continue;
		}
		try {
			const stats = await lstat(dir).catch(() => undefined);
			if (stats && (!stats.isDirectory() || !existsSync(join(dir, "SKILL.md")))) {
				outcomes.push({ name, status: "refused", code: "install.io", message: `${dir} is not a skill folder` });
				continue;
			}
			if (stats) {
				const aside = await mkdtemp(join(dirname(dir), `.${basename(dir)}.remove-`));
				await rename(dir, join(aside, "skill"));
				await rm(aside, { recursive: true, force: true });
			}
			delete lock.skills[name];
			outcomes.push({
				name,
				status: "removed",
				message: stats ? `removed ${dir}` : `${dir} was already gone; lock entry dropped`,
				dir,
			});
		} catch (error) {
			outcomes.push({ name, status: "refused", ...describeFailure(error, "install.io") });
		}
	}
	if (outcomes.some((o) => o.status === "removed")) await writeLockFile(options.lockFile, lock);
	return outcomes;
}
