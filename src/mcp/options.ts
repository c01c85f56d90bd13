import type { Tokenizer } from "../catalog/index.ts";
import type { DiscoverOptions, SkillIndex } from "../discovery/index.ts";
import type { IntegrityOptions, SessionOptions } from "../runtime/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";

// What a skills server can be told: read by the server itself and by the snapshots it serves (discover or watch).

/** Severity of a server log line (a subset of MCP's logging levels). */
export type McpLogLevel = "info" | "warning" | "error";

/** Options for `createSkillServer` (`server.ts`): discovery settings plus how skills are served. */
export interface SkillServerOptions extends DiscoverOptions {
	/**
	 * Settings made by `resolveSettings`: its discovery options are the defaults, under the ones given here. Its
	 * remote origins need their providers in `origins`.
	 */
	settings?: ResolvedSettings;
	/** Serve this index instead of discovering (no watching). */
	index?: SkillIndex;
	/** How long the scan that made `index` took, in milliseconds (reported by metrics). */
	scanMs?: number;
	/** Rescan on file changes and notify clients. Default false. */
	watch?: boolean;
	/** Quiet time after the last file event before a rescan. Default 200 ms. */
	debounceMs?: number;
	/** Longest wait from a file event to its rescan, however often events come. Default 2,000 ms. */
	maxWaitMs?: number;
	/** Offer `load_skill`, `read_skill_resource`, `search_skills` and `list_skills`. Default true. */
	tools?: boolean;
	/** Tokens for the catalog in the server instructions. Default 2,000. */
	budgetTokens?: number;
	/**
	 * Entries per `skills/list`, `resources/list`, `prompts/list` and directory page: a positive integer. Default 100;
	 * by default a `skills/list` page also takes skills whose entries are held unchanged, up to 1,000 (and 2,048 files).
	 */
	pageSize?: number;
	/** Largest file served, in bytes. Default 8 MiB. */
	maxResourceBytes?: number;
	/** Serve files with several hard links (for package managers that hard-link, such as pnpm). Default false. */
	allowHardLinks?: boolean;
	/** Verify mode: serve only files that match this lock. */
	integrity?: IntegrityOptions;
	/** Limits of each connection's session (active skills, tokens). */
	session?: Pick<SessionOptions, "maxActive" | "maxTokens">;
	/** Counts tokens for the instructions and sessions. Default o200k. */
	tokenizer?: Tokenizer;
	/** Receives every log line (also sent to clients as MCP log notifications). */
	onLog?: (level: McpLogLevel, message: string) => void;
	/** The server's name and version in `initialize`. */
	info?: { name: string; version: string };
}
