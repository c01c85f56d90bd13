import { basename, dirname } from "node:path";
import { discover } from "../discovery/index.ts";
import { type Diagnostic, type SkillProperties, validateSkillPath } from "../skill/index.ts";
import { type DiscoveryFlagValues, discoverFor } from "./discovery-flags.ts";
import type { CliIo } from "./io.ts";
import { noSkillsDiagnostic, resolveNamedPath } from "./paths.ts";
import { announceBounds } from "./render-bounds.ts";

/** A skill folder to audit or lint. */
export interface Target {
	name: string;
	dir: string;
	properties: SkillProperties | null;
}

/** The skills to check, and the PATHs that named none (missing, not a folder, or holding no skill). */
export interface Targets {
	targets: Target[];
	problems: Diagnostic[];
}

/**
 * The skills PATHs name: a folder holding a SKILL.md (or the SKILL.md itself) is one skill; any other folder is a
 * root whose skills (usable or not) are all taken. Without PATHs, every skill discovery finds for the workspace,
 * rejected ones included. A PATH that is missing, a plain file, or a folder without skills is a problem.
 */
export async function resolveTargets(
	paths: readonly string[],
	values: DiscoveryFlagValues,
	io: CliIo,
): Promise<Targets> {
	if (paths.length === 0) {
		const { index, report } = await discoverFor(values, undefined, io);
		const targets = [
			...index.skills.map((s) => ({ name: s.name, dir: dirname(s.realFile), properties: s.properties })),
			...report.rejected.map(rejected),
		];
		return { targets, problems: [] };
	}
	const result: Targets = { targets: [], problems: [] };
	for (const path of paths) {
		const named = await resolveNamedPath(path, io.cwd);
		if (named.kind === "problem") {
			result.problems.push(named.diagnostic);
		} else if (named.kind === "skill") {
			const checked = await validateSkillPath(named.dir, { profile: "lenient" });
			const name = checked.properties?.name ?? basename(named.dir);
			result.targets.push({ name, dir: named.dir, properties: checked.properties });
		} else {
			const { dir } = named;
			const includeHidden = values["include-hidden"] === true;
			const { index, report } = await discover({
				cwd: dir,
				home: dir,
				defaultRoots: false,
				roots: [dir],
				includeHidden,
			});
			announceBounds(report, io);
			const found = [
				...index.skills.map((s) => ({ name: s.name, dir: dirname(s.realFile), properties: s.properties })),
				...report.rejected.map(rejected),
			];
			if (found.length === 0) result.problems.push(await noSkillsDiagnostic(path, report));
			result.targets.push(...found);
		}
	}
	return result;
}

function rejected(skill: { dir: string; name?: string }): Target {
	return { name: skill.name ?? basename(skill.dir), dir: skill.dir, properties: null };
}
