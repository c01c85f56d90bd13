// A second public entry of the `sources/` stage, beside `index.ts`: the MCP origin provider. It is its own entry
// because it imports the MCP client SDK, which must load only when an MCP origin is configured: `sources/index.ts`
// serves every install, update and index-origin command, and none of them may pay for the SDK at start-up. Import
// it lazily (`await import(".../sources/mcp-origin.ts")`), and only from a later stage; `skillset/mcp` re-exports it.

import { STATUS_CODES } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Skill, SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { DiscoveryDiagnostic, OriginLoad, OriginProvider } from "../discovery/index.ts";
import { isValidSkillName, parseFrontmatterYaml } from "../skill/index.ts";
import { type CachedSkill, OriginCache } from "./cache.ts";

/** How to reach an MCP server: a command to spawn (stdio) or a Streamable HTTP URL. */
export type McpServerConfig =
	| { command: string; args?: readonly string[]; env?: Readonly<Record<string, string>>; cwd?: string }
	| { url: string; token?: string };

/** Options for {@link createMcpOrigin}. */
export interface McpOriginOptions {
	cacheDir: string;
	/** The whole load (connect, list, read) must finish within this (default 20 s). */
	timeoutMs?: number;
	/** Skill URIs to fetch with `skills/get` even when the server does not list them. */
	skillUris?: readonly string[];
}

const DEFAULT_TIMEOUT_MS = 20_000;

/**
 * An MCP server as a discovery origin (`mcp:<label>`, the host's label, never the server's own name). Its skills are
 * used only if it declares `io.modelcontextprotocol/skills`; every file is read by its listed URI and checked by the
 * SDK's skills client (listed, size, digest, and SKILL.md frontmatter equal to the listing) before it is cached.
 * An unchanged resource set is served from the cache; an unreachable server serves its last verified copies.
 */
export function createMcpOrigin(label: string, server: McpServerConfig, options: McpOriginOptions): OriginProvider {
	const origin = `mcp:${label}`;
	const where = "url" in server ? server.url : [server.command, ...(server.args ?? [])].join(" ");
	const cache = new OriginCache(options.cacheDir, origin, where);
	return {
		origin,
		async load(): Promise<OriginLoad> {
			const state = await cache.read(origin, where);
			const diagnostics: DiscoveryDiagnostic[] = [];
			const note = (code: DiscoveryDiagnostic["code"], severity: DiscoveryDiagnostic["severity"], message: string) =>
				diagnostics.push({ code, severity, message, file: `${origin} ${where}` });
			const client = new Client({ name: "skillset", version: "1" });
			const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
			let timer: NodeJS.Timeout | undefined;
			const deadline = new Promise<never>((_, reject) => {
				timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
			});
			try {
				const current = await Promise.race([refresh(client, server, state.skills, cache, options, note), deadline]);
				await cache.save({ origin, url: where, refreshedAt: new Date().toISOString(), skills: current });
				return cache.serve(current, diagnostics, false);
			} catch (error) {
				note("origin.failed", "warning", describeFailure(error));
				return cache.serve(state.skills, diagnostics, true);
			} finally {
				clearTimeout(timer);
				await client.close().catch(() => undefined);
			}
		},
	};
}

type Note = (code: DiscoveryDiagnostic["code"], severity: DiscoveryDiagnostic["severity"], message: string) => void;

async function refresh(
	client: Client,
	server: McpServerConfig,
	previous: Record<string, CachedSkill>,
	cache: OriginCache,
	options: McpOriginOptions,
	note: Note,
): Promise<Record<string, CachedSkill>> {
	const transport =
		"url" in server
			? new StreamableHTTPClientTransport(new URL(server.url), {
					...(server.token ? { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } } : {}),
				})
			: new StdioClientTransport({
					command: server.command,
					args: [...(server.args ?? [])],
					...(server.env ? { env: { ...server.env } } : {}),
					...(server.cwd ? { cwd: server.cwd } : {}),
					stderr: "ignore",
				});
	await client.connect(transport);
	const skills = new SkillsClient(client, { skipInvalid: true, parseFrontmatter });
	if (!skills.supported) throw new Error("the server does not declare the io.modelcontextprotocol/skills extension");
	const listing = await skills.list();
	for (const invalid of listing.invalid)
		note("origin.refused", "error", `listing entry ${invalid.index}: ${invalid.reason}`);
	const entries = [...listing.skills];
	for (const uri of options.skillUris ?? []) {
		if (entries.some((entry) => entry.uri === uri)) continue;
		try {
			entries.push((await skills.get(uri)).skill);
		} catch (error) {
			note("origin.refused", "error", `${uri}: ${(error as Error).message}`);
		}
	}
	const current: Record<string, CachedSkill> = {};
	for (const entry of entries) {
		const name = String(entry.frontmatter.name);
		try {
			if (!isValidSkillName(name)) throw new Error(`'${name}' is not a valid skill name`);
			if (current[name]) throw new Error(`two listed skills are named '${name}'`);
			current[name] = await fetchSkill(skills, entry, previous[name], cache);
		} catch (error) {
			note("origin.refused", "error", `${name} (${entry.uri}): ${(error as Error).message}`);
			const kept = previous[name];
			if (kept) current[name] = kept;
		}
	}
	return current;
}

/** Reads every listed file through the verifying client, or reuses the cached copy of an identical listing. */
async function fetchSkill(
	skills: SkillsClient,
	entry: Skill,
	previous: CachedSkill | undefined,
	cache: OriginCache,
): Promise<CachedSkill> {
	if (entry.resources === "dynamic")
		throw new Error("its resources are dynamic: they cannot be verified against digests");
	const published = JSON.stringify(entry.resources.map((r) => [r.uri, r.digest]).sort());
	if (previous?.published === published && cache.verify(previous)) return previous;
	const root = entry.uri.slice(0, entry.uri.length - "SKILL.md".length);
	if (!entry.uri.endsWith("/SKILL.md")) throw new Error("its URI does not name a SKILL.md");
	const files = new Map<string, Uint8Array>();
	for (const resource of entry.resources) {
		if (!resource.uri.startsWith(root)) throw new Error(`${resource.uri} is outside the skill`);
		const path = decodeURIComponent(resource.uri.slice(root.length));
		if (path.split("/").some((part) => part === "" || part === "." || part === ".."))
			throw new Error(`${resource.uri} is not a plain relative path`);
		files.set(path, (await skills.read(entry, resource.uri)).bytes);
	}
	if (!files.has("SKILL.md")) throw new Error("its resources do not include SKILL.md");
	return cache.store(String(entry.frontmatter.name), files, published);
}

/**
 * The SDK client's frontmatter parser, replaced by skillset's own: SEP-2640 asks hosts to read the frontmatter as
 * YAML, and the SDK's built-in reader refuses valid YAML that skillset serves (a flow list holding a mapping, as in
 * `argument-hint: [optional: date]`). No colon repair: the server never serves frontmatter that needs it, so a
 * repaired reading could only make a forged entry match. The result is plain JSON, as the entry arrives.
 */
function parseFrontmatter(yaml: string): Record<string, unknown> {
	const parsed = parseFrontmatterYaml(yaml);
	if (parsed.data === null) throw new Error(parsed.findings[0]?.message ?? "the frontmatter is not valid YAML");
	return JSON.parse(JSON.stringify(parsed.data)) as Record<string, unknown>;
}

/**
 * Why a load failed, in words a user can act on: an HTTP answer names its status (the SDK's message carries only the
 * body, often empty for a 401), and a network failure names its cause (`fetch failed` alone says nothing).
 */
function describeFailure(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const data = (error as { data?: { status?: unknown; statusText?: unknown } }).data;
	if (typeof data?.status === "number") {
		const text = typeof data.statusText === "string" && data.statusText ? data.statusText : STATUS_CODES[data.status];
		return `HTTP ${data.status} ${text ?? ""}`.trim();
	}
	const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
	if (cause && typeof cause.code === "string") return `${error.message} (${cause.code})`;
	if (cause && typeof cause.message === "string") return `${error.message} (${cause.message})`;
	return error.message || error.name;
}
