import { discover } from "../discovery/index.ts";
import { type PermissionDiff, resolveApproval, type TrustStore } from "../policy/index.ts";
import { createCachedOrigin, defaultCacheDir } from "../sources/index.ts";
import { type CliIo, type Style, UsageError } from "./io.ts";
import { plural } from "./render-diagnostics.ts";

/** An approval given or revoked by `skillset trust --skill NAME@ORIGIN`. */
export interface SkillTrustChange {
	name: string;
	approved: boolean;
	/** Files the approval is bound to (0 when revoked). */
	files: number;
	/** What the approval grants compared with the one it replaces (or with nothing): shown before it is given. */
	diff?: PermissionDiff;
	/** For a revocation: false when there was no approval to remove. */
	existed?: boolean;
	/** The approval was shown and not confirmed (no `--yes`, and no one answered yes): nothing was recorded. */
	declined?: boolean;
}

const QUALIFIED = /^([^@\s]+)@((?:mcp|index):[^\s]+)$/;

/**
 * Approves (or with `revoke`, revokes) a remote skill by its qualified name. The skill is read from the verified copy
 * in the cache (`SKILLSET_CACHE_DIR`), never fetched: the approval is bound to the files the host verified last.
 * `confirm` is shown what the approval would grant and decides; when it says no, nothing is recorded and the change
 * comes back with `approved: false` and `declined: true`.
 */
export async function trustSkill(
	store: TrustStore,
	qualifiedName: string,
	revoke: boolean,
	io: CliIo,
	confirm: (change: SkillTrustChange) => Promise<boolean>,
): Promise<SkillTrustChange> {
	const match = QUALIFIED.exec(qualifiedName);
	if (!match) throw new UsageError(`--skill takes NAME@mcp:LABEL or NAME@index:LABEL, not '${qualifiedName}'`);
	if (revoke) {
		const existed = await store.revokeSkill(qualifiedName);
		return { name: qualifiedName, approved: false, files: 0, existed };
	}
	const origin = createCachedOrigin(match[2] as string, { cacheDir: defaultCacheDir(io.env) });
	const { index, report } = await discover({ cwd: io.cwd, home: io.cwd, defaultRoots: false, origins: [origin] });
	const skill = index.get(qualifiedName);
	if (!skill || skill.qualifiedName !== qualifiedName || !skill.pins) {
		const why = report.diagnostics.map((d) => d.message).join("; ");
		throw new UsageError(`no verified copy of ${qualifiedName} is cached${why ? `: ${why}` : ""}`);
	}
	const status = resolveApproval(skill, store);
	const diff = status.status === "unapproved" || status.status === "changed" ? { diff: status.diff } : {};
	const change = { name: qualifiedName, approved: true, files: Object.keys(skill.pins).length, ...diff };
	if (!(await confirm(change))) return { ...change, approved: false, declined: true };
	await store.approveSkill(skill);
	return change;
}

/** What approving would record and grant, shown before it is given. */
export function renderSkillGrant(change: SkillTrustChange): string {
	return `${change.name} would be approved: ${plural(change.files, "file")}, bound to their digests\n${grants(change).join("\n") || "  grants no permission beyond the skill's files"}\n`;
}

function grants(change: SkillTrustChange): string[] {
	const added = change.diff?.added;
	if (!added) return [];
	return Object.entries(added)
		.filter(([, list]) => list.length > 0)
		.map(([kind, list]) => `  grants ${kind}: ${list.join(", ")}`);
}

/** One line for the change, and what the approval grants that was not granted before. */
export function renderSkillTrust(change: SkillTrustChange, style: Style): string {
	if (change.declined) return `${style.yellow("not approved")}: ${change.name}\n`;
	if (!change.approved) {
		return change.existed === false
			? `${style.yellow("not approved")}: ${change.name} had no approval\n`
			: `${style.yellow("revoked")}: ${change.name}\n`;
	}
	const lines = [
		`approved: ${change.name} (${plural(change.files, "file")}, bound to their digests)`,
		...grants(change),
	];
	return `${lines.join("\n")}\n`;
}
