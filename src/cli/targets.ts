import { readdir } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { discover } from "../discovery/index.ts";
import { pickSkillFileName, type SkillProperties, validateSkillPath } from "../skill/index.ts";
import { type DiscoveryFlagValues, discoverFor } from "./discovery-flags.ts";
import type { CliIo } from "./io.ts";

/** A skill folder to audit or lint. */
export interface Target {
	name: string;
	dir: string;
	properties: SkillProperties | null;
}

/**
 * The skills PATHs name: a folder holding a SKILL.md is one skill; any other folder is a root whose skills (usable
 * or not) are all taken. Without PATHs, every skill discovery finds for the workspace, rejected ones included.
 */
export async function resolveTargets(
	paths: readonly string[],
	values: DiscoveryFlagValues,
	io: CliIo,
): Promise<Target[]> {
	if (paths.length === 0) {
		const { index, report } = await discoverFor(values, undefined, io);
		return [
			...index.skills.map((s) => ({ name: s.name, dir: dirname(s.realFile), properties: s.properties })),
			...report.rejected.map(rejected),
		];
	}
	const targets: Target[] = [];
	for (const path of paths.map((p) => resolve(io.cwd, p))) {
		const names = await readdir(path).catch(() => [] as string[]);
		if (pickSkillFileName(names)) {
			const checked = await validateSkillPath(path, { profile: "lenient" });
			targets.push({ name: checked.properties?.name ?? basename(path), dir: path, properties: checked.properties });
			continue;
		}
		const { index, report } = await discover({ cwd: path, home: path, defaultRoots: false, roots: [path] });
		targets.push(
			...index.skills.map((s) => ({ name: s.name, dir: dirname(s.realFile), properties: s.properties })),
			...report.rejected.map(rejected),
		);
	}
	return targets;
}

function rejected(skill: { dir: string; name?: string }): Target {
	return { name: skill.name ?? basename(skill.dir), dir: skill.dir, properties: null };
}
