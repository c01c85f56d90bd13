import { dirname } from "node:path";
import { DEFAULT_CONVENTIONS, PRESETS, type SkillIndex } from "../discovery/index.ts";
import { isInside } from "../runtime/index.ts";
import { resolvePath } from "./paths.ts";

// Protected paths per index and options, computed once: skill folders, their roots, and the workspace's
// conventional and preset skill folders (which may be empty or not exist yet). A root that holds the workspace
// itself cannot be protected whole (nothing could be written); only new SKILL.md files in it are refused.
const PROTECTED = new WeakMap<SkillIndex, Map<string, Protected>>();

/** The paths no tool or shell command may write, and the roots only new SKILL.md files are refused in. */
export interface Protected {
	protectedPaths: string[];
	broadRoots: string[];
}

/** The protected paths of an index in a workspace (see {@link Protected}), computed once per index and options. */
export function protectedPaths(index: SkillIndex, workspace: string, extraRoots: readonly string[]): Protected {
	const key = JSON.stringify([workspace, extraRoots]);
	const byKey = PROTECTED.get(index) ?? new Map<string, Protected>();
	PROTECTED.set(index, byKey);
	const cached = byKey.get(key);
	if (cached) return cached;
	const conventional = [...DEFAULT_CONVENTIONS, ...Object.values(PRESETS).flatMap((preset) => preset.workspace)];
	const roots = [
		...index.skills.map((skill) => resolvePath(workspace, skill.root)),
		...extraRoots.map((root) => resolvePath(workspace, root)),
		...conventional.map((folder) => resolvePath(workspace, folder)),
	];
	const broad = new Set(roots.filter((root) => isInside(root, workspace)));
	const paths = new Set<string>([
		...index.skills.flatMap((skill) => [dirname(skill.realFile), resolvePath(workspace, skill.dir)]),
		...roots,
	]);
	const result = { protectedPaths: [...paths].filter((path) => !broad.has(path)).sort(), broadRoots: [...broad] };
	byKey.set(key, result);
	return result;
}
