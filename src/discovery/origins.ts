import { join } from "node:path";
import { type DiscoveryDiagnostic, discoveryDiagnostic } from "./codes.ts";
import type { DiscoveryRoot } from "./roots.ts";
import type { Candidate, RootWalk } from "./walk.ts";

/** One remote skill, already fetched and verified into a local folder (`folder/<dir>/SKILL.md`). */
export interface OriginSkill {
	/** The skill's folder under the origin's `folder`, POSIX. */
	dir: string;
	/** Diagnostics about this skill from the origin (refusals go in `OriginLoad.diagnostics`). */
	diagnostics?: DiscoveryDiagnostic[];
	/**
	 * Every file of the verified copy (POSIX path under `dir` → sha256 hex and size), as verified when fetched. The
	 * runtime checks every read of the copy against these; a remote skill without pins serves nothing.
	 */
	pins?: Readonly<Record<string, FilePin>>;
}

/** One file's recorded digest: sha256 hex of its bytes and its size. */
export interface FilePin {
	sha256: string;
	size: number;
}

/** What an origin provider hands discovery: the folder of its verified copies, the skills in it, and problems. */
export interface OriginLoad {
	folder: string;
	skills: OriginSkill[];
	diagnostics: DiscoveryDiagnostic[];
}

/**
 * A source of remote skills (an MCP server, a well-known index). Discovery knows only this interface; providers
 * live in the `sources/` and `mcp/` stages. `load` must not throw for the origin's faults: it reports them.
 */
export interface OriginProvider {
	/** `mcp:<label>` or `index:<label>`: the host's label, never the server's own name. */
	readonly origin: string;
	load(): Promise<OriginLoad>;
}

/** Loads every origin at once; each becomes a root of scope `remote`, ranked after every folder root. */
export async function walkOrigins(providers: readonly OriginProvider[], firstRank: number): Promise<RootWalk[]> {
	const loads = await Promise.all(providers.map((provider) => loadSafely(provider)));
	return loads.map((load, i) => {
		const provider = providers[i] as OriginProvider;
		const root: DiscoveryRoot = {
			path: load.folder,
			scope: "remote",
			rank: firstRank + i,
			trusted: true,
			locked: false,
			source: "origin",
			origin: provider.origin,
		};
		const candidates: Candidate[] = load.skills.map((skill) => {
			const dir = join(load.folder, ...skill.dir.split("/"));
			const file = join(dir, "SKILL.md");
			// A frozen copy: the provider's records can change after this load without changing what was verified.
			const pins = skill.pins ? { pins: Object.freeze({ ...skill.pins }) } : {};
			return { root, dir, file, realFile: file, relDir: skill.dir, diagnostics: skill.diagnostics ?? [], ...pins };
		});
		const walk: RootWalk = {
			root,
			exists: true,
			candidates,
			rejected: [],
			diagnostics: load.diagnostics,
			counts: { dirs: 0, entries: 0 },
			bounds: { depth: false, dirs: false, entries: false },
		};
		return walk;
	});
}

async function loadSafely(provider: OriginProvider): Promise<OriginLoad> {
	try {
		return await provider.load();
	} catch (error) {
		const message = `${provider.origin} failed: ${(error as Error).message ?? String(error)}`;
		return { folder: "", skills: [], diagnostics: [discoveryDiagnostic("origin.failed", message, provider.origin)] };
	}
}
