import { lstat } from "node:fs/promises";
import { comparePackage, hashPackage, type LockedSkill } from "../runtime/index.ts";
import { validateSkillPath } from "../skill/index.ts";
import { SourceError } from "./errors.ts";

/**
 * Checks that the folder a lock entry names holds that entry's skill as installed: a folder (not a link or a file)
 * whose SKILL.md declares `name`, and, unless `force`, whose files are exactly the pinned ones (no local edit is
 * lost). A folder that is gone passes: there is nothing in it to lose. Throws `install.modified` saying why.
 */
export async function checkInstalledCopy(name: string, skill: LockedSkill, dir: string, force: boolean): Promise<void> {
	const stats = await lstat(dir).catch(() => undefined);
	if (!stats) return;
	if (!stats.isDirectory()) throw new SourceError("install.modified", `${dir} is not a skill folder`);
	const declared = (await validateSkillPath(dir, { profile: "lenient" })).properties?.name;
	if (declared !== name) {
		const holds = declared ? `the skill '${declared}'` : "no skill";
		throw new SourceError("install.modified", `${dir} holds ${holds}, not '${name}' as the lock says`);
	}
	if (force) return;
	const difference = comparePackage(hashPackage(dir), skill);
	const changes = [
		...difference.changed.map((path) => `${path} changed`),
		...difference.extra.map((path) => `${path} added`),
		...difference.missing.map((path) => `${path} removed`),
	];
	if (changes.length > 0) {
		const shown = `${changes.slice(0, 5).join(", ")}${changes.length > 5 ? `, and ${changes.length - 5} more` : ""}`;
		throw new SourceError(
			"install.modified",
			`${dir} differs from what was installed (${shown}); pass --force to lose these changes`,
		);
	}
}
