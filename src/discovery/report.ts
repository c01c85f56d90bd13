import type { DiscoveryDiagnostic } from "./codes.ts";
import type { CollisionPolicy, IndexedSkill, RejectedSkill } from "./resolve.ts";
import type { DiscoveryRoot, RootSource, Scope } from "./roots.ts";
import type { RootWalk } from "./walk.ts";

/** One root in the report: where it is, whether it exists, what it held and which bounds it hit. */
export interface RootReport {
	path: string;
	scope: Scope;
	rank: number;
	source: RootSource;
	preset?: string;
	/** For a remote origin's verified copies: `mcp:<label>` or `index:<label>`. */
	origin?: string;
	exists: boolean;
	trusted: boolean;
	locked: boolean;
	counts: StatusCounts & { dirs: number; entries: number };
	bounds: { depth: boolean; dirs: boolean; entries: boolean };
}

/** How many skills a root (or the whole scan) found, and where they ended up. */
export interface StatusCounts {
	candidates: number;
	selected: number;
	shadowed: number;
	untrusted: number;
	disabled: number;
	rejected: number;
}

/** A skill as the report shows it. */
export interface SkillSummary {
	name: string;
	qualifiedName: string;
	id: string;
	description: string;
	scope: Scope;
	root: string;
	file: string;
	modelInvocable: boolean;
	/** The remote origin it came from, if any. */
	origin?: string;
	/** For shadowed skills: the qualified name of the copy that wins. */
	shadowedBy?: string;
	diagnostics: DiscoveryDiagnostic[];
}

/**
 * Everything discovery found, as JSON-serialisable data: every root, every skill by status (selected, shadowed,
 * untrusted, disabled, rejected) with its diagnostics, the walk's own diagnostics, counts and timings.
 */
export interface DiscoveryReport {
	cwd: string;
	policy: CollisionPolicy;
	roots: RootReport[];
	selected: SkillSummary[];
	shadowed: SkillSummary[];
	untrusted: SkillSummary[];
	disabled: SkillSummary[];
	rejected: RejectedSkill[];
	/** Diagnostics about roots and the walk (skills carry their own). */
	diagnostics: DiscoveryDiagnostic[];
	counts: StatusCounts & { roots: number };
	timings: { walkMs: number; loadMs: number; resolveMs: number; totalMs: number };
	/** What an incremental scan reused from the previous one. */
	reused: { dirs: number; files: number };
}

/** What {@link buildReport} needs. */
export interface ReportInput {
	cwd: string;
	policy: CollisionPolicy;
	roots: readonly DiscoveryRoot[];
	walks: readonly RootWalk[];
	skills: readonly IndexedSkill[];
	rejected: readonly RejectedSkill[];
	diagnostics: readonly DiscoveryDiagnostic[];
	timings: DiscoveryReport["timings"];
	reused: DiscoveryReport["reused"];
}

/**
 * Assembles the report from the stages' outputs. The skill lists are built on first access (and then kept): a
 * command that prints only names or a catalog never pays for ten thousand summaries. They are ordinary enumerable
 * properties to every reader, JSON included.
 */
export function buildReport(input: ReportInput): DiscoveryReport {
	return assembleReport({ ...input, roots: input.walks.map((walk) => rootReport(walk, input)) });
}

/** What {@link assembleReport} needs: the report's parts, each root's part already made. */
export type ReportParts = Omit<ReportInput, "walks" | "roots"> & { roots: RootReport[] };

/** Assembles the report from its parts (a saved result gives the roots' parts as they were). */
export function assembleReport(input: ReportParts): DiscoveryReport {
	const counts = { roots: input.roots.length, candidates: 0, selected: 0, shadowed: 0, untrusted: 0, disabled: 0 };
	for (const skill of input.skills) counts[skill.status]++;
	for (const root of input.roots) counts.candidates += root.counts.candidates;
	const report = {
		cwd: input.cwd,
		policy: input.policy,
		roots: input.roots,
		// Placeholders keep the order of the keys (JSON output shows it); lazyList defines them in place.
		selected: [],
		shadowed: [],
		untrusted: [],
		disabled: [],
		rejected: [...input.rejected],
		diagnostics: [...input.diagnostics],
		counts: { ...counts, rejected: input.rejected.length },
		timings: input.timings,
		reused: input.reused,
	};
	for (const status of ["selected", "shadowed", "untrusted", "disabled"] as const)
		lazyList(report, status, input.skills);
	return report;
}

/** Defines `report[status]` as the summaries of the skills with that status, made once when first read. */
function lazyList(report: DiscoveryReport, status: IndexedSkill["status"], skills: readonly IndexedSkill[]): void {
	let made: SkillSummary[] | undefined;
	Object.defineProperty(report, status, {
		enumerable: true,
		configurable: true,
		get: () => {
			made ??= skills.filter((s) => s.status === status).map(summarize);
			return made;
		},
		set: (value: SkillSummary[]) => {
			made = value;
		},
	});
}

function rootReport(walk: RootWalk, input: ReportInput): RootReport {
	const counts = {
		dirs: walk.counts.dirs,
		entries: walk.counts.entries,
		candidates: walk.candidates.length + walk.rejected.length,
	};
	return rootReportOf(walk.root, walk.exists, counts, { ...walk.bounds }, input.skills, input.rejected);
}

/** A root's part of the report: its place, what its walk counted, and how its skills were decided. */
export function rootReportOf(
	root: DiscoveryRoot,
	exists: boolean,
	walked: { dirs: number; entries: number; candidates: number },
	bounds: RootReport["bounds"],
	skills: readonly IndexedSkill[],
	rejected: readonly RejectedSkill[],
): RootReport {
	const mine = { selected: 0, shadowed: 0, untrusted: 0, disabled: 0 };
	for (const skill of skills) if (skill.rank === root.rank) mine[skill.status]++;
	return {
		path: root.path,
		scope: root.scope,
		rank: root.rank,
		source: root.source,
		...(root.preset ? { preset: root.preset } : {}),
		...(root.origin ? { origin: root.origin } : {}),
		exists,
		trusted: root.trusted,
		locked: root.locked,
		counts: { ...walked, ...mine, rejected: rejected.filter((r) => r.rank === root.rank).length },
		bounds,
	};
}

function summarize(skill: IndexedSkill): SkillSummary {
	return {
		name: skill.name,
		qualifiedName: skill.qualifiedName,
		id: skill.id,
		description: skill.description,
		scope: skill.scope,
		root: skill.root,
		file: skill.file,
		modelInvocable: skill.modelInvocable,
		...(skill.origin ? { origin: skill.origin } : {}),
		...(skill.shadowedBy ? { shadowedBy: skill.shadowedBy } : {}),
		diagnostics: [...skill.diagnostics],
	};
}
