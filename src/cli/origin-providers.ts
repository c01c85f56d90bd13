import type { OriginProvider } from "../discovery/index.ts";
import type { McpServerSetting, OriginSettings } from "../settings/index.ts";
import { UsageError } from "./io.ts";

// Origin providers made from the resolved origin settings. The sources stage's work; here until the MCP origin
// lives in sources/ too (this file then moves there whole).

/** One configured origin as reported: never its token. */
export interface OriginSummary {
	/** `mcp:<label>` or `index:<label>`. */
	origin: string;
	kind: "mcp" | "index";
	label: string;
	/** The URL, or the command line of a stdio server. */
	where: string;
	/** Its folder in the cache. */
	cacheFolder: string;
}

/** The sources stage, loaded only when an origin is configured. */
const sourcesStage = () => import("../sources/index.ts");

/** What every configured origin is, where it is and where its cache is, without loading any. */
export async function summarizeOrigins(origins: OriginSettings, cacheDir: string): Promise<OriginSummary[]> {
	const servers = Object.entries(origins.mcpServers);
	const indexes = Object.entries(origins.indexes);
	if (servers.length === 0 && indexes.length === 0) return [];
	const { OriginCache } = await sourcesStage();
	const summary = (kind: "mcp" | "index", label: string, where: string): OriginSummary => {
		const origin = `${kind}:${label}`;
		return { origin, kind, label, where, cacheFolder: new OriginCache(cacheDir, origin, where).folder };
	};
	const out: OriginSummary[] = [];
	for (const [label, server] of servers) {
		// The same text `createMcpOrigin` keys its cache folder with.
		const where = "url" in server ? server.url : [server.command, ...(server.args ?? [])].join(" ");
		out.push(summary("mcp", label, where));
	}
	for (const [label, url] of indexes) out.push(summary("index", label, url));
	return out;
}

/**
 * The providers for the resolved origins. The MCP SDK (an optional peer) is imported only when an MCP origin is
 * configured; a bearer token named by `tokenEnv` must be set. `allowUnverified` comes from the flags only (the
 * resolver's rule): no config file or variable can turn verification off.
 */
export async function createOriginProviders(
	origins: OriginSettings,
	env: Readonly<Record<string, string | undefined>>,
	cacheDir: string,
): Promise<OriginProvider[]> {
	const { timeoutMs, allowUnverified } = origins;
	const providers: OriginProvider[] = [];
	const servers = Object.entries(origins.mcpServers);
	if (servers.length > 0) {
		// The origin alone: it needs only the client SDK, where the stage's entry also loads the server's.
		const { createMcpOrigin } = await import("../sources/mcp-origin.ts");
		for (const [label, { skillUris, ...server }] of servers) {
			const options = { cacheDir, ...(timeoutMs ? { timeoutMs } : {}), ...(skillUris ? { skillUris } : {}) };
			providers.push(createMcpOrigin(label, withToken(label, server, env), options));
		}
	}
	const indexes = Object.entries(origins.indexes);
	if (indexes.length === 0) return providers;
	const { createIndexOrigin, DEFAULT_FETCH_LIMITS } = await sourcesStage();
	const limits = { ...DEFAULT_FETCH_LIMITS, ...(timeoutMs ? { timeoutMs } : {}) };
	for (const [label, url] of indexes) {
		providers.push(createIndexOrigin(label, url, { cacheDir, limits, allowUnverified }));
	}
	return providers;
}

function withToken(
	label: string,
	server: McpServerSetting,
	env: Readonly<Record<string, string | undefined>>,
): McpServerSetting {
	if (!("url" in server)) return server;
	const { tokenEnv, ...rest } = server;
	if (tokenEnv === undefined) return rest;
	const token = env[tokenEnv];
	if (!token) throw new UsageError(`the MCP origin '${label}' takes its token from ${tokenEnv}, which is not set`);
	return { ...rest, token };
}
