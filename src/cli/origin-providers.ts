import type { ParseArgsConfig } from "node:util";
import { defaultCacheDir, type OriginProvider } from "../discovery/index.ts";
import { checkSetting, labelFrom, type McpServerSetting, ORIGIN_LABEL, type SkillsetConfig } from "./config.ts";
import { UsageError } from "./io.ts";

/** The origin options of every discovering command. */
export const originFlags: NonNullable<ParseArgsConfig["options"]> = {
	mcp: { type: "string", multiple: true },
	index: { type: "string", multiple: true },
	"origin-timeout": { type: "string" },
	"no-origins": { type: "boolean" },
	"allow-unverified": { type: "boolean" },
};

/** Usage lines for {@link originFlags}. */
export const originUsage: string = `  --mcp LABEL=COMMAND ARGS   an MCP server as an origin of skills: a command line (split like a shell would,
                             never run by one) or LABEL=https://URL (repeatable)
  --index LABEL=URL          a well-known skills index as an origin (https:, http: or file:; repeatable)
  --origin-timeout MS        how long an origin may take: a whole MCP load (default 20000), a whole index load
                             with its artifacts (default 30000)
  --no-origins               ignore the origins of the config file and SKILLSET_* (flags still count)
  --allow-unverified         read a v0.1.0 index (no digests, so its files cannot be verified); never a
                             fallback over plain http: name the v0.1.0 index URL there`;

/** The parsed values of {@link originFlags}. */
export interface OriginFlagValues {
	mcp?: string[];
	index?: string[];
	"origin-timeout"?: string;
	"no-origins"?: boolean;
	"allow-unverified"?: boolean;
}

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

const FLAG_NAMES: Readonly<Record<string, string>> = {
	mcpServers: "--mcp",
	indexes: "--index",
	originTimeoutMs: "--origin-timeout",
};

/**
 * Splits a command line into words as a POSIX shell would quote them, without running a shell: single quotes keep
 * everything, double quotes keep all but `\"` and `\\`, a backslash outside quotes escapes only a space, a quote or a
 * backslash (so Windows paths survive). Nothing is expanded.
 */
export function splitCommandLine(line: string): string[] {
	const words: string[] = [];
	let word: string | undefined;
	let quote: "'" | '"' | undefined;
	for (let i = 0; i < line.length; i++) {
		const char = line[i] as string;
		const next = line[i + 1];
		if (quote === "'") {
			if (char === "'") quote = undefined;
			else word = (word ?? "") + char;
		} else if (quote === '"') {
			if (char === '"') quote = undefined;
			else if (char === "\\" && (next === '"' || next === "\\")) word = (word ?? "") + line[++i];
			else word = (word ?? "") + char;
		} else if (/\s/.test(char)) {
			if (word !== undefined) words.push(word);
			word = undefined;
		} else if (char === "'" || char === '"') {
			quote = char;
			word ??= "";
		} else if (char === "\\" && next !== undefined && /[\s'"\\]/.test(next)) {
			word = (word ?? "") + line[++i];
		} else word = (word ?? "") + char;
	}
	if (quote) throw new UsageError(`unterminated ${quote} quote in '${line}'`);
	if (word !== undefined) words.push(word);
	return words;
}

/** `LABEL=COMMAND ARGS...` or `LABEL=URL` as an MCP server setting, relative to `cwd`. */
export function parseMcpFlag(text: string, cwd: string, flag = "--mcp"): { label: string; server: McpServerSetting } {
	const { label, rest } = labelled(text, flag, "COMMAND or URL");
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) return { label, server: { url: rest } };
	const [command, ...args] = splitCommandLine(rest);
	if (!command) throw new UsageError(`${flag} ${label}= needs a command or a URL`);
	return { label, server: { command, args, cwd } };
}

function labelled(text: string, flag: string, what: string): { label: string; rest: string } {
	const at = text.indexOf("=");
	if (at < 0) throw new UsageError(`${flag} must be LABEL=${what}, not '${text}'`);
	const label = text.slice(0, at).trim();
	if (!ORIGIN_LABEL.test(label)) {
		throw new UsageError(
			`${flag}: '${label}' is not a valid origin label (lowercase letters, digits and '-', starting with a letter or digit)`,
		);
	}
	return { label, rest: text.slice(at + 1).trim() };
}

/** The origin settings the flags give, checked by the config file's rules and named as flags. */
export function originsFromFlags(values: OriginFlagValues, cwd: string): SkillsetConfig {
	const config: SkillsetConfig = {};
	const label = labelFrom(FLAG_NAMES);
	for (const text of values.mcp ?? []) {
		const { label: name, server } = parseMcpFlag(text, cwd);
		config.mcpServers = { ...config.mcpServers, [name]: server };
	}
	for (const text of values.index ?? []) {
		const { label: name, rest } = labelled(text, "--index", "URL");
		config.indexes = { ...config.indexes, [name]: rest };
	}
	if (values["origin-timeout"] !== undefined) {
		const ms = Number(values["origin-timeout"]);
		config.originTimeoutMs = (Number.isNaN(ms) ? values["origin-timeout"] : ms) as number;
	}
	for (const [key, value] of Object.entries(config)) checkSetting(value, key, label);
	return config;
}

/** Origins layered by label: a higher source's label replaces a lower one's; `--no-origins` drops the lower ones. */
export function layerOrigins(
	lower: readonly SkillsetConfig[],
	flags: SkillsetConfig,
	noOrigins: boolean,
): Pick<SkillsetConfig, "mcpServers" | "indexes"> {
	const layers = noOrigins ? [flags] : [...lower, flags];
	const mcpServers = Object.assign({}, ...layers.map((layer) => layer.mcpServers ?? {}));
	const indexes = Object.assign({}, ...layers.map((layer) => layer.indexes ?? {}));
	return { mcpServers, indexes };
}

/**
 * The cache folder origins and the discovery index use (`SKILLSET_CACHE_DIR`, relative to `cwd`, else the user
 * cache folder): discovery's rule, so that a scan without origins never loads the sources stage (a test keeps it
 * equal to the sources stage's `defaultCacheDir`).
 */
export function cacheDirFor(env: Readonly<Record<string, string | undefined>>, cwd: string): string {
	return defaultCacheDir(env, cwd);
}

/** The sources stage, loaded only when an origin is configured. */
const sourcesStage = () => import("../sources/index.ts");

/** What every configured origin is, where it is and where its cache is, without loading any. */
export async function summarizeOrigins(config: SkillsetConfig, cacheDir: string): Promise<OriginSummary[]> {
	const servers = Object.entries(config.mcpServers ?? {});
	const indexes = Object.entries(config.indexes ?? {});
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
 * The providers for the configured origins. The MCP SDK (an optional peer) is imported only when an MCP origin is
 * configured; a bearer token named by `tokenEnv` must be set. `allowUnverified` comes from the command line only
 * (`--allow-unverified`): no config file or variable can turn verification off.
 */
export async function createOriginProviders(
	config: SkillsetConfig,
	env: Readonly<Record<string, string | undefined>>,
	cacheDir: string,
	allowUnverified = false,
): Promise<OriginProvider[]> {
	const timeoutMs = config.originTimeoutMs;
	const providers: OriginProvider[] = [];
	const servers = Object.entries(config.mcpServers ?? {});
	if (servers.length > 0) {
		// The origin alone: it needs only the client SDK, where the stage's entry also loads the server's.
		const { createMcpOrigin } = await import("../mcp/origin.ts");
		for (const [label, { skillUris, ...server }] of servers) {
			const options = { cacheDir, ...(timeoutMs ? { timeoutMs } : {}), ...(skillUris ? { skillUris } : {}) };
			providers.push(createMcpOrigin(label, withToken(label, server, env), options));
		}
	}
	const indexes = Object.entries(config.indexes ?? {});
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
