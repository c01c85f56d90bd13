// A second public entry of the `mcp/` stage (beside index.ts): `skillset mcp --check` plans what a server would serve
// without loading the MCP SDK, which index.ts brings in (start-up pays for every module).

import { SkillIndex } from "../discovery/index.ts";
import { DEFAULT_MAX_RESOURCE_BYTES } from "../runtime/index.ts";
import { discoverOptionsFor } from "../settings/index.ts";
import { BufferPool } from "./buffer-pool.ts";
import type { ServeRules } from "./entries.ts";
import { buildServeSection, type ServeSection } from "./instructions.ts";
import { LARGE_READ_BYTES, LargeReads } from "./large-reads.ts";
import { ListingCache } from "./listings.ts";
import type { SkillServerOptions } from "./options.ts";
import { type LeftOutSkill, type PlanRules, planServe, type ServePlan } from "./plan.ts";

// What a server would serve is decided here, for the server and for `--check` alike, so the two cannot drift.

/** The options a server runs with: `settings`, when given, resolved into discovery options. */
export function serveOptions(given: SkillServerOptions): SkillServerOptions {
	return given.settings ? { ...given, ...discoverOptionsFor(given.settings, given) } : given;
}

/** The rules every snapshot is planned and every file served under. */
export function serveRules(options: SkillServerOptions): ServeRules & PlanRules {
	const rules: ServeRules & PlanRules = {
		maxBytes: options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES,
		allowHardLinks: options.allowHardLinks === true,
		...(options.integrity ? { lock: options.integrity.lock } : {}),
		listings: new ListingCache(),
		largeReads: new LargeReads(),
		buffers: new BufferPool(LARGE_READ_BYTES),
	};
	// A verified server checks every SKILL.md's bytes against the lock: nothing read earlier may stand in for them.
	if (options.cacheDir !== undefined && !options.integrity) rules.cacheDir = options.cacheDir;
	return rules;
}

/** One snapshot's plan, the index of the skills it serves, and their instructions and catalog. */
export interface PlannedSnapshot extends ServeSection {
	plan: ServePlan;
	index: SkillIndex;
}

/** Plans `discovered` under `rules` and fits the served skills' catalog into the instructions. */
export async function planSnapshot(
	discovered: SkillIndex,
	rules: PlanRules,
	options: SkillServerOptions,
): Promise<PlannedSnapshot> {
	const plan: ServePlan = planServe(discovered, rules);
	// Tools, prompts and instructions offer exactly the served skills: one set, whichever way a client reads it.
	const index = new SkillIndex(plan.served.map((served) => served.skill));
	// One catalog per snapshot, for the instructions and the tools alike: never rebuilt per request or client.
	const { instructions, catalog } = await buildServeSection(index, options);
	return { plan, index, instructions, catalog };
}

/** What a server given `index` and `given` would serve, and leave out with why. */
export interface ServeCheck {
	served: { name: string; uri: string }[];
	leftOut: LeftOutSkill[];
}

/**
 * Plans `index` as {@link createSkillServer} would at start-up (the same rules, the same catalog, so a budget too small
 * for the instructions fails here too), without the protocol: what `skillset mcp --check` reports.
 */
export async function checkServe(index: SkillIndex, given: SkillServerOptions): Promise<ServeCheck> {
	const options = serveOptions(given);
	// The report names the served skills: a saved plan's frontmatter is not read for it.
	const { plan } = await planSnapshot(index, { ...serveRules(options), planOnly: true }, options);
	return { served: plan.served.map((served) => ({ name: served.skill.name, uri: served.uri })), leftOut: plan.leftOut };
}
