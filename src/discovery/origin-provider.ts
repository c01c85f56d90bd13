import type { DiscoveryDiagnostic } from "./codes.ts";

// The origin-provider interface: all discovery knows of remote skills. Providers implement it in later stages.

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
 * live in the `sources/` stage. `load` must not throw for the origin's faults: it reports them.
 */
export interface OriginProvider {
	/** `mcp:<label>` or `index:<label>`: the host's label, never the server's own name. */
	readonly origin: string;
	/** Fetches the origin's skills, or reports why it could not (never throws for the origin's own faults). */
	load(): Promise<OriginLoad>;
}
