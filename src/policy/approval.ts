import type { FilePin, IndexedSkill } from "../discovery/index.ts";
import { emptyManifest, type PermissionManifest } from "../skill/index.ts";
import { diffPermissions, type PermissionDiff } from "./diff.ts";
import type { SkillApproval, SkillApprovals } from "./trust.ts";

/** How the files of a remote skill differ from the set the user approved. */
export interface ResourceChanges {
	changed: string[];
	added: string[];
	removed: string[];
}

/**
 * Where a skill stands with the user. A skill on disk is `local` (its declarations apply as written). A remote skill
 * is `approved` only while its files are exactly the approved set; `unapproved` (never approved) and `changed` (the
 * set changed since, which revokes the approval) come with the permission diff the user is asked to accept.
 */
export type RemoteApproval =
	| { status: "local" }
	| { status: "approved"; approval: SkillApproval }
	| { status: "unapproved"; diff: PermissionDiff }
	| { status: "changed"; approval: SkillApproval; files: ResourceChanges; diff: PermissionDiff };

/** The permissions a skill holds in the policy: its manifest and allowed-tools, or nothing at all while unapproved. */
export interface EffectivePermissions {
	manifest?: PermissionManifest;
	allowedTools?: string[];
	/** True for a remote skill the user has not approved (or whose files changed since). */
	pending: boolean;
}

/**
 * Checks a skill against the user's approvals (keyed by qualified name, `name@mcp:label`). The diff is from what
 * the approval recorded (or from nothing, for a first approval) to what the skill declares now.
 */
export function resolveApproval(skill: IndexedSkill, approvals: SkillApprovals | undefined): RemoteApproval {
	if (!skill.origin) return { status: "local" };
	const now = { manifest: skill.properties.manifest, allowedTools: skill.properties.allowedTools };
	const approval = approvals?.skillApproval(skill.qualifiedName);
	if (!approval) return { status: "unapproved", diff: diffPermissions({ manifest: emptyManifest() }, now) };
	const files = compareFiles(approval.files, skill.pins ?? {});
	if (files.changed.length + files.added.length + files.removed.length === 0 && skill.pins) {
		return { status: "approved", approval };
	}
	const before = { manifest: approval.manifest, allowedTools: approval.allowedTools };
	return { status: "changed", approval, files, diff: diffPermissions(before, now) };
}

/** What a skill grants in the policy: an unapproved remote skill counts as the empty manifest with no pre-approvals. */
export function effectivePermissions(skill: IndexedSkill, approvals: SkillApprovals | undefined): EffectivePermissions {
	const status = resolveApproval(skill, approvals).status;
	if (status === "unapproved" || status === "changed") return { manifest: emptyManifest(), pending: true };
	const { manifest, allowedTools } = skill.properties;
	return { ...(manifest ? { manifest } : {}), ...(allowedTools ? { allowedTools } : {}), pending: false };
}

function compareFiles(
	approved: Readonly<Record<string, FilePin>>,
	current: Readonly<Record<string, FilePin>>,
): ResourceChanges {
	const has = (record: Readonly<Record<string, FilePin>>, path: string) => Object.hasOwn(record, path);
	return {
		changed: Object.keys(current).filter(
			(path) =>
				has(approved, path) &&
				(approved[path]?.sha256 !== current[path]?.sha256 || approved[path]?.size !== current[path]?.size),
		),
		added: Object.keys(current).filter((path) => !has(approved, path)),
		removed: Object.keys(approved).filter((path) => !has(current, path)),
	};
}
