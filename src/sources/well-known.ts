import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isValidSkillName } from "../skill/index.ts";
import { SourceError } from "./errors.ts";
import { type FetchLimits, fetchBelow } from "./fetch.ts";

/** The Agent Skills Discovery index versions read here (the `$schema` of v0.2.0; v0.1.0 has none). */
export const INDEX_SCHEMA_V2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** Where an origin keeps its v0.2.0 index. */
export const INDEX_PATH = ".well-known/agent-skills/index.json";
const INDEX_PATH_V1 = ".well-known/skills/index.json";

/** One skill an index offers: a SKILL.md alone, an archive, or (v0.1.0) a list of files without digests. */
export type IndexEntry =
	| { name: string; description: string; type: "skill-md" | "archive"; url: URL; digest: string }
	| { name: string; description: string; type: "files"; base: URL; files: string[] };

/** An index, read: its version, its entries and what was skipped. */
export interface SkillIndexDocument {
	version: "0.2.0" | "0.1.0";
	url: URL;
	entries: IndexEntry[];
	warnings: string[];
	/** For a local (`file:`) index: the real folder its index and every file it lists are read in, links refused. */
	root?: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The index URL for an origin: the URL itself when it names a `.json` file, else its well-known path. */
export function indexUrlOf(origin: URL): URL {
	if (origin.pathname.endsWith(".json")) return origin;
	return new URL(INDEX_PATH, origin.href.endsWith("/") ? origin : new URL(`${origin.href}/`));
}

/** Fetches and reads an origin's index: v0.2.0 at the well-known path, else v0.1.0 at its older path. */
export async function fetchSkillIndex(named: URL, limits: FetchLimits): Promise<SkillIndexDocument> {
	const local = named.protocol === "file:" ? await localOrigin(named) : undefined;
	const origin = local?.origin ?? named;
	const root = local?.root;
	const url = indexUrlOf(origin);
	let bytes: Uint8Array;
	try {
		bytes = await fetchBelow(root, url, { ...limits, maxBytes: Math.min(limits.maxBytes, 8 << 20) });
	} catch (error) {
		if (url === origin) throw error;
		const v1 = new URL(INDEX_PATH_V1, url.href.replace(INDEX_PATH, ""));
		bytes = await fetchBelow(root, v1, limits).catch(() => Promise.reject(error));
		return { ...parseSkillIndex(new TextDecoder().decode(bytes), v1), ...(root ? { root } : {}) };
	}
	return { ...parseSkillIndex(new TextDecoder().decode(bytes), url), ...(root ? { root } : {}) };
}

/**
 * A local origin at its real path, and the folder everything it lists is read in: the site folder, or the folder of
 * an index file named directly. Links in the path the user named are theirs; every link below it is refused.
 */
async function localOrigin(named: URL): Promise<{ origin: URL; root: string }> {
	const path = fileURLToPath(named);
	const file = named.pathname.endsWith(".json");
	const folder = file ? dirname(path) : path;
	// A folder that does not exist stays as named: the read then fails with source.not-found.
	const root = await realpath(folder).catch(() => folder);
	return { origin: pathToFileURL(file ? join(root, basename(path)) : `${root}/`), root };
}

/**
 * Reads index JSON: an unknown `$schema` is refused (`index.schema`), an absent one means v0.1.0, unknown entry
 * types and malformed entries are skipped with a warning, and URLs resolve against the index URL.
 */
export function parseSkillIndex(text: string, url: URL): SkillIndexDocument {
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		throw new SourceError("index.invalid", `${url} is not JSON: ${(error as Error).message}`);
	}
	const doc = data as { $schema?: unknown; skills?: unknown } | null;
	if (typeof doc !== "object" || doc === null || !Array.isArray(doc.skills)) {
		throw new SourceError("index.invalid", `${url} has no "skills" list`);
	}
	if (doc.$schema !== undefined && doc.$schema !== INDEX_SCHEMA_V2) {
		throw new SourceError("index.schema", `${url} declares an unknown $schema ${JSON.stringify(doc.$schema)}`);
	}
	const version = doc.$schema === undefined ? "0.1.0" : "0.2.0";
	const warnings: string[] = [];
	const entries: IndexEntry[] = [];
	for (const [i, raw] of (doc.skills as unknown[]).entries()) {
		const entry = version === "0.2.0" ? readEntry(raw, url, warnings) : readEntryV1(raw, url, warnings);
		if (entry) entries.push(entry);
		else warnings.push(`skills[${i}] skipped`);
	}
	return { version, url, entries, warnings };
}

function readEntry(raw: unknown, base: URL, warnings: string[]): IndexEntry | undefined {
	const entry = raw as Record<string, unknown> | null;
	if (typeof entry !== "object" || entry === null) return undefined;
	const { name, type, description, url, digest } = entry;
	if (type !== "skill-md" && type !== "archive") {
		warnings.push(`entry ${String(name)} has unknown type ${JSON.stringify(type)}`);
		return undefined;
	}
	if (typeof name !== "string" || !isValidSkillName(name)) return invalid(warnings, name, "a spec-valid name");
	if (typeof description !== "string" || description.length > 1024) return invalid(warnings, name, "a description");
	if (typeof url !== "string") return invalid(warnings, name, "a url");
	if (typeof digest !== "string" || !DIGEST.test(digest)) return invalid(warnings, name, "a sha256: digest");
	const resolved = resolveAgainst(base, url);
	if (!resolved) return invalid(warnings, name, "a url of the index's own scheme (http(s) or file)");
	return { name, description, type, url: resolved, digest };
}

function readEntryV1(raw: unknown, base: URL, warnings: string[]): IndexEntry | undefined {
	const entry = raw as Record<string, unknown> | null;
	if (typeof entry !== "object" || entry === null) return undefined;
	const { name, description, files } = entry;
	if (typeof name !== "string" || !isValidSkillName(name)) return invalid(warnings, name, "a spec-valid name");
	if (typeof description !== "string") return invalid(warnings, name, "a description");
	if (!Array.isArray(files) || !files.every((file) => typeof file === "string"))
		return invalid(warnings, name, "files");
	const folder = new URL(`${name}/`, base);
	if (!files.every((file) => resolveAgainst(folder, file)?.href.startsWith(folder.href))) {
		return invalid(warnings, name, "files inside its own folder");
	}
	return { name, description, type: "files", base: folder, files: files as string[] };
}

/**
 * A URL from an index, resolved against the index's own URL: an index served over HTTP may point only to HTTP(S)
 * URLs, and a local one only to local files, so an entry cannot make a client read another kind of place.
 */
export function resolveAgainst(base: URL, ref: string): URL | undefined {
	let resolved: URL;
	try {
		resolved = new URL(ref, base);
	} catch {
		return undefined;
	}
	const web = (url: URL) => url.protocol === "http:" || url.protocol === "https:";
	if (web(base) ? web(resolved) : resolved.protocol === base.protocol) return resolved;
	return undefined;
}

function invalid(warnings: string[], name: unknown, what: string): undefined {
	warnings.push(`entry ${JSON.stringify(name)} lacks ${what}`);
	return undefined;
}
