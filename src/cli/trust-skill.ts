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
}

const QUALIFIED = /^([^@\s]+)@((?:mcp|index):[^\s]+)$/;

/**
 * Approves (or with `revoke`, revokes) a remote skill by its qualified name. The skill is read from the verified copy
 * in the cache (`SKILLSET_CACHE_DIR`), never fetched: the approval is bound to the files the host verified last.
 */
export async function trustSkill(
	store: TrustStore,
	qualifiedName: string,
	revoke: boolean,
	io: CliIo,
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
	await store.approveSkill(skill);
	return { name: qualifiedName, approved: true, files: Object.keys(skill.pins).length, ...diff };
}

/** One line for the change, and what the approval grants that was not granted before. */
export function renderSkillTrust(change: SkillTrustChange, style: Style): string {
	if (!change.approved) {
		return change.existed === false
			? `${style.yellow("not approved")}: ${change.name} had no approval\n`
			: `${style.yellow("revoked")}: ${change.name}\n`;
	}
	const lines = [`approved: ${change.name} (${plural(change.files, "file")}, bound to their digests)`];
	const added = change.diff?.added;
	if (added) {
		const parts = Object.entries(added).filter(([, list]) => list.length > 0);
		for (const [kind, list] of parts) lines.push(`  grants ${kind}: ${list.join(", ")}`);
	}
	return `${lines.join("\n")}\n`;
}
