import { basename } from "node:path";
import type { SkillProperties } from "../skill/index.ts";
import { type DiscoveryDiagnostic, discoveryDiagnostic } from "./codes.ts";
import { compareNames } from "./folder.ts";
import type { LoadedSkill } from "./load.ts";
import type { FilePin } from "./origin-provider.ts";
import type { Scope } from "./roots.ts";

/** What happens when several roots hold a skill of the same name. */
export type CollisionPolicy = "precedence" | "reject" | "keep-all" | "qualify";

/** Every collision policy. */
export const COLLISION_POLICIES: readonly CollisionPolicy[] = ["precedence", "reject", "keep-all", "qualify"];

/** Why a skill is where it is. Only `selected` skills can reach the catalog. */
export type SkillStatus = "selected" | "shadowed" | "untrusted" | "disabled";

/** A usable skill as discovery resolved it. Frozen inside a {@link SkillIndex}. */
export interface IndexedSkill {
	/** The skill's identity: its valid declared name, else its folder name. */
	id: string;
	/** The address in the catalog and for activation: `id`, or `qualifiedName` when the policy qualifies it. */
	name: string;
	/** `id@scope` (`id@scope.2`, ... for further copies in one scope): always unique. */
	qualifiedName: string;
	description: string;
	scope: Scope;
	/** The root's precedence rank: 0 is the highest. */
	rank: number;
	root: string;
	/** The skill folder as reached from the root. */
	dir: string;
	file: string;
	/** SKILL.md with every link resolved. */
	realFile: string;
	status: SkillStatus;
	/** For a shadowed skill: the qualified name of the copy that wins. */
	shadowedBy?: string;
	/** Where a remote skill came from (`mcp:<label>`, `index:<label>`); absent for skills on disk. */
	origin?: string;
	/** For a remote skill: every file of its verified copy with the digest recorded when fetched. */
	pins?: Readonly<Record<string, FilePin>>;
	trusted: boolean;
	/** False when the skill opted out of model invocation (`disable-model-invocation`). */
	modelInvocable: boolean;
	properties: SkillProperties;
	bodyOffset: number;
	bodyLine: number;
	size: number;
	/** When SKILL.md was last modified, as read (ms since the epoch). */
	mtimeMs: number;
	diagnostics: DiscoveryDiagnostic[];
}

/** A skill that was found but cannot be used, with why. */
export interface RejectedSkill {
	file: string;
	dir: string;
	scope: Scope;
	rank: number;
	/** The name it would have had, when it got that far. */
	name?: string;
	/** The remote origin it came from, if any. */
	origin?: string;
	diagnostics: DiscoveryDiagnostic[];
}

/** Options for {@link resolveSkills}. */
export interface ResolveOptions {
	policy: CollisionPolicy;
	/** Names (bare or qualified) that are switched off. */
	disabled: readonly string[];
	/** Ranks of locked roots. */
	lockedRanks: ReadonlySet<number>;
}

/** The outcome of {@link resolveSkills}: usable skills in rank-then-name order, and the rejected ones. */
export interface Resolution {
	skills: IndexedSkill[];
	rejected: RejectedSkill[];
}

/**
 * Gives every loaded skill a unique identity and applies the collision policy (DESIGN.md §3): renames inside a
 * root, same-rank errors, locked admin names, trust and disabled lists, then precedence, reject, keep-all or
 * qualify across roots.
 */
export function resolveSkills(loaded: readonly LoadedSkill[], options: ResolveOptions): Resolution {
	const rejected: RejectedSkill[] = [];
	const skills: IndexedSkill[] = [];
	for (const item of loaded) {
		const skill = toIndexed(item);
		if (skill) skills.push(skill);
		else rejected.push(toRejected(item));
	}
	const unique = resolveWithinRoots(skills, rejected);
	assignQualifiedNames(unique);
	const competing = unique.filter((skill) => skill.status === "selected");
	applyDisabled(competing, options.disabled);
	// Ids are unique within a root by now: copies of one id can only be in different roots.
	if (spansRanks(competing)) {
		for (const group of sharedIds(
			competing.filter((s) => s.status === "selected"),
			false,
		)) {
			resolveAcrossRoots(group, options, rejected);
		}
	}
	const rejectedFiles = new Set(rejected.map((r) => r.file));
	const kept = rejectedFiles.size === 0 ? unique : unique.filter((skill) => !rejectedFiles.has(skill.file));
	kept.sort((a, b) => a.rank - b.rank || compareNames(a.id, b.id) || compareNames(a.file, b.file));
	rejected.sort((a, b) => a.rank - b.rank || compareNames(a.file, b.file));
	return { skills: kept, rejected };
}

/** A skill's description as the index holds it: its `description`, then its `when_to_use` when it has one. */
export function indexedDescription(properties: SkillProperties): string {
	return properties.whenToUse ? `${properties.description} ${properties.whenToUse}` : properties.description;
}

function toIndexed(item: LoadedSkill): IndexedSkill | undefined {
	const { candidate, properties } = item;
	if (!properties || item.bodyOffset === undefined || item.bodyLine === undefined) return undefined;
	const skill: IndexedSkill = {
		id: properties.name,
		name: properties.name,
		qualifiedName: "",
		description: indexedDescription(properties),
		scope: candidate.root.scope,
		rank: candidate.root.rank,
		root: candidate.root.path,
		dir: candidate.dir,
		file: candidate.file,
		realFile: candidate.realFile,
		status: candidate.root.trusted ? "selected" : "untrusted",
		trusted: candidate.root.trusted,
		modelInvocable: properties.disableModelInvocation !== true,
		properties,
		bodyOffset: item.bodyOffset,
		bodyLine: item.bodyLine,
		size: item.size,
		mtimeMs: item.signature?.mtimeMs ?? 0,
		diagnostics: [...item.diagnostics],
	};
	// Set after the literal, not spread into it: the same keys in the same order, without an object per skill.
	if (candidate.root.origin) skill.origin = candidate.root.origin;
	if (candidate.pins) skill.pins = candidate.pins;
	return skill;
}

function toRejected(item: LoadedSkill): RejectedSkill {
	const { candidate } = item;
	return {
		file: candidate.file,
		dir: candidate.dir,
		scope: candidate.root.scope,
		rank: candidate.root.rank,
		diagnostics: item.diagnostics,
		...(candidate.root.origin ? { origin: candidate.root.origin } : {}),
	};
}

/**
 * Inside one root, a declared name two skills share goes to nobody by accident: a skill whose folder differs from
 * the name is known by its folder name instead; skills still sharing a name after that are all rejected.
 */
function resolveWithinRoots(skills: IndexedSkill[], rejected: RejectedSkill[]): IndexedSkill[] {
	const shared = sharedIdsByRoot(skills);
	if (shared.length === 0) return skills;
	for (const group of shared) {
		for (const skill of group) {
			const folder = basename(skill.dir);
			if (folder === skill.id) continue;
			const message = `'${skill.id}' is also declared by another skill in this root; this one is named '${folder}' after its folder`;
			skill.diagnostics.push(discoveryDiagnostic("name.collision-renamed", message, skill.file, { field: "name" }));
			skill.id = folder;
			skill.name = folder;
		}
	}
	const clashing = new Set<IndexedSkill>();
	for (const group of sharedIdsByRoot(skills)) {
		const files = group.map((s) => s.file);
		for (const skill of group) {
			clashing.add(skill);
			const others = files.filter((file) => file !== skill.file).join(", ");
			const message = `The name '${skill.id}' is also used in the same root by ${others}`;
			const diagnostics = [...skill.diagnostics, discoveryDiagnostic("collision.same-rank", message, skill.file)];
			rejected.push({ ...rejectedFields(skill), name: skill.id, diagnostics });
		}
	}
	return skills.filter((skill) => !clashing.has(skill));
}

/** `id@scope` for the first copy of an id in each scope, `id@scope.2`, `.3`, ... for later ones. */
function assignQualifiedNames(skills: IndexedSkill[]): void {
	const seen = new Map<string, number>();
	const ordered = [...skills].sort((a, b) => a.rank - b.rank);
	for (const skill of ordered) {
		const key = `${skill.id}@${skill.origin ?? skill.scope}`;
		const count = (seen.get(key) ?? 0) + 1;
		seen.set(key, count);
		skill.qualifiedName = count === 1 ? key : `${key}.${count}`;
	}
}

function applyDisabled(skills: IndexedSkill[], disabled: readonly string[]): void {
	if (disabled.length === 0) return;
	const off = new Set(disabled);
	for (const skill of skills) {
		if (!off.has(skill.id) && !off.has(skill.qualifiedName)) continue;
		skill.status = "disabled";
		skill.diagnostics.push(discoveryDiagnostic("skill.disabled", `'${skill.qualifiedName}' is disabled`, skill.file));
	}
}

/** Applies the policy to copies of one id from different roots (sorted by rank). */
function resolveAcrossRoots(group: IndexedSkill[], options: ResolveOptions, rejected: RejectedSkill[]): void {
	group.sort((a, b) => a.rank - b.rank);
	if (group.some((skill) => skill.origin)) {
		resolveOrigins(group, options, rejected);
		return;
	}
	const locked = group.find((skill) => options.lockedRanks.has(skill.rank));
	if (locked || options.policy === "reject") {
		for (const skill of group) {
			if (skill === locked) continue;
			const diagnostic = locked
				? discoveryDiagnostic(
						"collision.locked",
						`'${skill.id}' is taken by the locked ${locked.qualifiedName}`,
						skill.file,
					)
				: discoveryDiagnostic("collision.rejected", `'${skill.id}' is in ${group.length} roots`, skill.file);
			rejected.push({ ...rejectedFields(skill), name: skill.id, diagnostics: [...skill.diagnostics, diagnostic] });
		}
		return;
	}
	const [winner, ...losers] = group;
	if (!winner) return;
	if (options.policy === "keep-all") {
		for (const skill of group) skill.name = skill.qualifiedName;
		return;
	}
	for (const loser of losers) {
		if (options.policy === "qualify") {
			loser.name = loser.qualifiedName;
			continue;
		}
		loser.status = "shadowed";
		loser.shadowedBy = winner.qualifiedName;
		const message = `Shadowed by ${winner.qualifiedName} (${winner.file}); reachable as ${loser.qualifiedName}`;
		loser.diagnostics.push(discoveryDiagnostic("collision.shadowed", message, loser.file));
	}
}

/**
 * A remote skill never shadows, and is never shadowed by, a skill of another origin: the local copies settle the
 * name among themselves, and every remote copy answers only to its qualified name (`name@mcp:label`).
 */
function resolveOrigins(group: IndexedSkill[], options: ResolveOptions, rejected: RejectedSkill[]): void {
	const local = group.filter((skill) => !skill.origin);
	if (local.length > 1) resolveAcrossRoots(local, options, rejected);
	for (const skill of group) {
		if (!skill.origin) continue;
		skill.name = skill.qualifiedName;
		const others = group.filter((other) => other !== skill).map((other) => other.qualifiedName);
		const message = `'${skill.id}' is also ${others.join(", ")}; this copy from ${skill.origin} is reachable as ${skill.qualifiedName}`;
		skill.diagnostics.push(discoveryDiagnostic("origin.collision", message, skill.file));
	}
}

function rejectedFields(skill: IndexedSkill): Omit<RejectedSkill, "diagnostics"> {
	return { file: skill.file, dir: skill.dir, scope: skill.scope, rank: skill.rank };
}

/** Groups of two or more skills with one id in one root (rank). */
function sharedIdsByRoot(skills: readonly IndexedSkill[]): IndexedSkill[][] {
	return sharedIds(skills, true);
}

/**
 * Groups of two or more skills with one id (in one root when `byRank`), keyed without building a string per skill.
 * A lone skill is kept as itself: nearly every id has one, and a list for each would be garbage.
 */
function sharedIds(skills: readonly IndexedSkill[], byRank: boolean): IndexedSkill[][] {
	const maps = new Map<number, Map<string, IndexedSkill | IndexedSkill[]>>();
	const groups: IndexedSkill[][] = [];
	for (const skill of skills) {
		const rank = byRank ? skill.rank : 0;
		let ids = maps.get(rank);
		if (!ids) {
			ids = new Map();
			maps.set(rank, ids);
		}
		const seen = ids.get(skill.id);
		if (seen === undefined) ids.set(skill.id, skill);
		else if (Array.isArray(seen)) seen.push(skill);
		else {
			const group = [seen, skill];
			ids.set(skill.id, group);
			groups.push(group);
		}
	}
	return groups;
}

/** Whether the skills come from more than one root. */
function spansRanks(skills: readonly IndexedSkill[]): boolean {
	const first = skills[0];
	return first !== undefined && skills.some((skill) => skill.rank !== first.rank);
}
