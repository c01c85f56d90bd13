import { dirname, resolve } from "node:path";
import type { DiscoveryReport } from "../discovery/index.ts";
import type { Diagnostic } from "../skill/index.ts";
import type { DiscoveryFlagValues } from "./discovery-flags.ts";
import type { CliIo } from "./io.ts";
import { deeperSkillsNote, noSkillsDiagnostic, resolveNamedPath } from "./paths.ts";

/** Where `lock` and `read` look: the workspace folder and the discovery flags to use, or why the DIR is no good. */
export type WorkspaceArg =
	| { ok: true; workspace: string; values: DiscoveryFlagValues }
	| { ok: false; diagnostic: Diagnostic };

/**
 * Resolves the DIR of `lock` and `read` like every PATH: a SKILL.md or a skill folder means that one skill (its
 * parent is the workspace, so the lock file never lands inside the skill); any other folder is a workspace; a
 * missing path or a plain file is a problem.
 */
export async function resolveWorkspaceArg(
	dir: string | undefined,
	values: DiscoveryFlagValues,
	io: CliIo,
): Promise<WorkspaceArg> {
	if (dir === undefined) return { ok: true, workspace: io.cwd, values };
	const named = await resolveNamedPath(dir, io.cwd);
	if (named.kind === "problem") return { ok: false, diagnostic: named.diagnostic };
	if (named.kind === "folder") return { ok: true, workspace: named.dir, values };
	const only = { ...values, root: [named.dir, ...(values.root ?? [])], "no-default-roots": true };
	return { ok: true, workspace: dirname(named.dir), values: only };
}

/** `path.no-skills` when the DIR the user named gave no skill, with the `--root` command when skills are deeper. */
export async function emptyWorkspace(
	command: string,
	dir: string | undefined,
	workspace: string,
	report: DiscoveryReport,
	io: CliIo,
): Promise<Diagnostic | undefined> {
	if (dir === undefined || report.counts.selected > 0) return undefined;
	const diagnostic = await noSkillsDiagnostic(dir, report);
	const note = await deeperSkillsNote(command, dir, workspace, report, io.cwd);
	if (note) diagnostic.hint = note;
	return diagnostic;
}

/**
 * For scan, list and catalog: when the DIR the user named gave no skill from its conventional folders but holds
 * SKILL.md files deeper, says so on stderr with the `--root` command that finds them. True when it did.
 */
export async function noteDeeperSkills(
	command: string,
	dir: string | undefined,
	report: DiscoveryReport,
	io: CliIo,
): Promise<boolean> {
	if (dir === undefined) return false;
	const note = await deeperSkillsNote(command, dir, resolve(io.cwd, dir), report, io.cwd);
	if (note) io.stderr(`skillset: ${note}\n`);
	return note !== undefined;
}
