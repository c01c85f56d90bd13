import { readdirSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { DiscoveryReport } from "../discovery/index.ts";
import type { Diagnostic, Finding } from "../skill/index.ts";
import { plural } from "./render-diagnostics.ts";

/** The skill stage, loaded only when a diagnostic is made: a scan that finds nothing to report never loads it. */
const skillStage = () => import("../skill/index.ts");

/** Whether a folder listing holds a skill file (`SKILL.md` in any case). */
function hasSkillFile(names: readonly string[]): boolean {
	return names.some((name) => name.toLowerCase() === "skill.md");
}

/** A PATH the user named, resolved once for every command: one skill's folder, or a folder that may hold skills. */
export type NamedPath =
	| { path: string; dir: string; kind: "skill" | "folder" }
	| { path: string; kind: "problem"; diagnostic: Diagnostic };

/**
 * Resolves a PATH the way validate, lint, audit, lock and read all take it: a SKILL.md file (any case) means its
 * folder; a folder holding a SKILL.md is one skill; any other folder may hold skills; a missing path is
 * `path.not-found`, and another kind of file is `path.not-directory`.
 */
export async function resolveNamedPath(path: string, cwd: string): Promise<NamedPath> {
	// An empty PATH would resolve to the working directory: a typo must not validate the whole tree.
	if (path.trim() === "") return problem(path, { code: "path.not-found", message: "The path is empty" });
	const absolute = resolve(cwd, path);
	const info = attempt(() => statSync(absolute));
	if (info instanceof Error) {
		const missing = info.code === "ENOENT" || info.code === "ENOTDIR";
		const finding: Finding = missing
			? { code: "path.not-found", message: `Path does not exist: ${path}` }
			: { code: "file.unreadable", message: `Cannot read ${path}: ${info.code ?? info.message}` };
		return problem(path, finding);
	}
	if (!info.isDirectory()) {
		if (basename(absolute).toLowerCase() === "skill.md") return { path, dir: dirname(absolute), kind: "skill" };
		return problem(path, {
			code: "path.not-directory",
			message: `Not a skill folder, SKILL.md or collection: ${path}`,
		});
	}
	const names = attempt(() => readdirSync(absolute));
	if (names instanceof Error) {
		return problem(path, { code: "file.unreadable", message: `Cannot list ${path}: ${names.code ?? names.message}` });
	}
	return { path, dir: absolute, kind: hasSkillFile(names) ? "skill" : "folder" };
}

/** `path.no-skills` for a folder the user named that held no skill, with a hint fitted to what the walk skipped. */
export async function noSkillsDiagnostic(path: string, report?: DiscoveryReport): Promise<Diagnostic> {
	const hidden = report?.diagnostics.find((d) => d.code === "walk.hidden-skipped");
	const finding: Finding = { code: "path.no-skills", message: `No skill found under ${path}` };
	if (hidden) finding.hint = `${hidden.message}. If the skills are there, --include-hidden scans them.`;
	const [diagnostic] = (await skillStage()).placeFindings([finding], { file: path, profile: "strict" });
	return diagnostic as Diagnostic;
}

/** SKILL.md folders below `dir`, found by a bounded walk that also looks into hidden folders. */
export async function findSkillFolders(dir: string, maxDirs = 5000, maxDepth = 8): Promise<string[]> {
	const found: string[] = [];
	let level = [dir];
	let listed = 0;
	for (let depth = 0; depth <= maxDepth && level.length > 0 && listed < maxDirs; depth++) {
		const next: string[] = [];
		for (const folder of level) {
			if (listed++ >= maxDirs) break;
			const read = attempt(() => readdirSync(folder, { withFileTypes: true }));
			const entries = read instanceof Error ? [] : read;
			if (hasSkillFile(entries.map((e) => e.name))) {
				found.push(folder);
				continue;
			}
			for (const entry of entries) {
				if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== ".git") {
					next.push(join(folder, entry.name));
				}
			}
		}
		level = next.sort();
	}
	return found;
}

/**
 * When a workspace DIR gave no skill from its conventional folders but holds SKILL.md files deeper, a note saying
 * so with the command that finds them (`--root` at their common parent, `--include-hidden` when needed).
 */
export async function deeperSkillsNote(
	command: string,
	given: string,
	dir: string,
	report: DiscoveryReport,
	cwd: string,
): Promise<string | undefined> {
	const inside = (path: string) => path === dir || path.startsWith(`${dir}${sep}`);
	const fromDir = report.roots.some((root) => root.exists && inside(root.path) && root.counts.candidates > 0);
	if (fromDir) return undefined;
	const folders = await findSkillFolders(dir);
	if (folders.length === 0) return undefined;
	const root = commonParent(folders.map((folder) => dirname(folder)));
	const isHidden = (from: string) => (folder: string) =>
		relative(from, folder)
			.split(sep)
			.some((part) => part.startsWith("."));
	const hidden = folders.some(isHidden(root));
	const run = `skillset ${command} ${given} --root ${shorter(cwd, root)}${hidden ? " --include-hidden" : ""}`;
	const example = shorter(cwd, join(folders[0] as string, "SKILL.md"));
	const note = folders.some(isHidden(dir)) ? " Skills in hidden folders are scanned only with --include-hidden." : "";
	return `No skill folder at a conventional place in ${given}, but ${plural(folders.length, "SKILL.md file")} below it (e.g. ${example}).${note} To find them: ${run}`;
}

/** `path` relative to `cwd` when it is below it, else absolute. */
function shorter(cwd: string, path: string): string {
	const rel = relative(cwd, path);
	return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

function commonParent(paths: readonly string[]): string {
	const [first, ...rest] = paths.map((path) => path.split(sep));
	let common = first ?? [];
	for (const parts of rest) {
		let length = 0;
		while (length < common.length && common[length] === parts[length]) length++;
		common = common.slice(0, length);
	}
	return common.join(sep) || sep;
}

async function problem(path: string, finding: Finding): Promise<NamedPath> {
	const [diagnostic] = (await skillStage()).placeFindings([finding], { file: path, profile: "strict" });
	return { path, kind: "problem", diagnostic: diagnostic as Diagnostic };
}

/**
 * What `look` returns, or the error it threw. The file system is asked synchronously here: a few stats and listings
 * of folders the user named, where the promise API would cost every command its module and a thread pool.
 */
function attempt<T>(look: () => T): T | NodeJS.ErrnoException {
	try {
		return look();
	} catch (error) {
		return error as NodeJS.ErrnoException;
	}
}
