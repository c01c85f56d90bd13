import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { codePointLength, isValidSkillName, parseSkillFrontmatter } from "../skill/index.ts";
import { SourceError } from "./errors.ts";
import { type FetchedResource, type FetchLimits, fetchBelow, fetchResource, withDeadline } from "./fetch.ts";
import { DIGEST, type ManifestEntry, readManifestEntry } from "./index-rfc.ts";
import { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";

/** The Agent Skills Discovery index versions read here (the `$schema` of v0.2.0; v0.1.0 has none). */
export const INDEX_SCHEMA_V2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** Where an origin keeps its v0.2.0 index. */
export const INDEX_PATH = ".well-known/agent-skills/index.json";
const INDEX_PATH_V1 = ".well-known/skills/index.json";
/** The largest index read, whatever the download cap. */
const MAX_INDEX_BYTES = 8 << 20;

/**
 * One skill an index offers: a SKILL.md alone or an archive (0.2.0 with `$schema`), files with a digest each (the
 * Cloudflare RFC's 0.2.0 with `version`), or (v0.1.0) a list of files without digests.
 */
export type IndexEntry =
	| { name: string; description: string; type: "skill-md" | "archive"; url: URL; digest: string }
	| ManifestEntry
	| { name: string; description: string; type: "files"; base: URL; files: string[] };

/**
 * The shape of an index. Two shapes are both called 0.2.0: `schema` (a `$schema`, one artifact and digest per skill:
 * agentskills.io's, which `publish` writes) and `version` (a `version` field, a digest per file: the Cloudflare RFC's
 * README). `v0.1.0` lists files without digests.
 */
export type IndexShape = "0.2.0-schema" | "0.2.0-version" | "0.1.0";

/** A short description of an index shape, for people. */
export function describeIndexShape(shape: IndexShape): string {
	if (shape === "0.2.0-schema") return "v0.2.0 ($schema, an artifact digest per skill)";
	if (shape === "0.2.0-version") return "v0.2.0 (version, a digest per file)";
	return "v0.1.0 (no digests)";
}

/** An index, read: its version and shape, its entries and what was skipped. */
export interface SkillIndexDocument {
	version: "0.2.0" | "0.1.0";
	shape: IndexShape;
	url: URL;
	entries: IndexEntry[];
	warnings: string[];
	/** For a local (`file:`) index: the real folder its index and every file it lists are read in, links refused. */
	root?: string;
}

/** How an index may be read. */
export interface IndexFetchOptions {
	/**
	 * Accept a v0.1.0 index, whose files have no digests and cannot be verified: one named by its URL, or the
	 * fallback after a 404 at the v0.2.0 path of an `https:` or `file:` origin (never over plain `http:`, where
	 * anyone on the path can answer that 404). Off by default: a v0.1.0 index is then `index.unverified`.
	 */
	allowUnverified?: boolean;
}

/** The index URL for an origin: the URL itself when it names a `.json` file, else its well-known path. */
export function indexUrlOf(origin: URL): URL {
	if (origin.pathname.endsWith(".json")) return origin;
	return new URL(INDEX_PATH, origin.href.endsWith("/") ? origin : new URL(`${origin.href}/`));
}

/**
 * Fetches and reads an origin's index at its v0.2.0 well-known path. A v0.1.0 index (no `$schema`), and the
 * fallback to the v0.1.0 path after a 404, need `allowUnverified` (see {@link IndexFetchOptions}). One deadline
 * covers the whole fetch, fallback included (it joins the caller's when one is running), and an index is at
 * most 8 MiB. A `text/html` answer is `index.html`.
 */
export async function fetchSkillIndex(
	named: URL,
	limits: FetchLimits,
	options: IndexFetchOptions = {},
): Promise<SkillIndexDocument> {
	const indexLimits = { ...withDeadline(limits), maxBytes: Math.min(limits.maxBytes, MAX_INDEX_BYTES) };
	const local = named.protocol === "file:" ? await localOrigin(named) : undefined;
	const origin = local?.origin ?? named;
	const root = local?.root;
	const url = indexUrlOf(origin);
	let index: SkillIndexDocument;
	try {
		index = await readIndexAt(url, indexLimits, root);
	} catch (error) {
		if (url === origin || !(error instanceof SourceError) || error.code !== "source.not-found") throw error;
		index = await readIndexAt(fallbackOf(url, options), indexLimits, root);
	}
	if (index.version === "0.1.0" && !options.allowUnverified) {
		throw new SourceError(
			"index.unverified",
			`${index.url} is a v0.1.0 index (no $schema): it publishes no digests, so its files cannot be verified; pass --allow-unverified (allowUnverified) to use it anyway`,
		);
	}
	return index;
}

/** The v0.1.0 index to try after a 404 at `url`, or why there is none. */
function fallbackOf(url: URL, options: IndexFetchOptions): URL {
	const v1 = new URL(INDEX_PATH_V1, url.href.slice(0, url.href.length - INDEX_PATH.length));
	if (!options.allowUnverified) {
		throw new SourceError(
			"index.unverified",
			`${url} was not found, and skillset does not fall back to the older v0.1.0 index (${v1}) on its own: it has no digests, so its files cannot be verified; pass --allow-unverified (allowUnverified) to use it anyway`,
		);
	}
	if (url.protocol === "http:") {
		throw new SourceError(
			"index.unverified",
			`${url} was not found; over plain http the fallback to the unverified v0.1.0 index is never automatic (anyone on the path can answer 404): name ${v1} with --allow-unverified to use it`,
		);
	}
	return v1;
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

async function readIndexAt(url: URL, limits: FetchLimits, root: string | undefined): Promise<SkillIndexDocument> {
	const answer: FetchedResource =
		root === undefined ? await fetchResource(url, limits) : { bytes: await fetchBelow(root, url, limits), url };
	const type = answer.contentType?.split(";")[0]?.trim().toLowerCase();
	if (type === "text/html" || type === "application/xhtml+xml") {
		throw new SourceError(
			"index.html",
			`${url} answered ${type}, a web page, not a JSON index (a wrong URL, or a login or portal page in the way?)`,
		);
	}
	const index = parseSkillIndex(new TextDecoder().decode(answer.bytes), answer.url);
	return root === undefined ? index : { ...index, root };
}

/**
 * Reads index JSON of either 0.2.0 shape or v0.1.0 (see {@link IndexShape}): an unknown `$schema` or `version` is
 * refused (`index.schema`), unknown entry types and malformed entries are skipped with a warning, and URLs resolve
 * against the index URL.
 */
export function parseSkillIndex(text: string, url: URL): SkillIndexDocument {
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		if (/^\s*</.test(text)) {
			throw new SourceError("index.html", `${url} is an HTML page (it starts with '<'), not a JSON index`);
		}
		throw new SourceError("index.invalid", `${url} is not JSON: ${(error as Error).message}`);
	}
	const doc = data as { $schema?: unknown; version?: unknown; skills?: unknown } | null;
	if (typeof doc !== "object" || doc === null || !Array.isArray(doc.skills)) {
		throw new SourceError("index.invalid", `${url} has no "skills" list`);
	}
	const shape = shapeOf(doc, url);
	const version = shape === "0.1.0" ? "0.1.0" : "0.2.0";
	const warnings: string[] = [];
	const entries: IndexEntry[] = [];
	for (const [i, raw] of (doc.skills as unknown[]).entries()) {
		const entry =
			shape === "0.2.0-schema"
				? readEntry(raw, url, warnings)
				: shape === "0.2.0-version"
					? readManifestEntry(raw, url, warnings, resolveAgainst)
					: readEntryV1(raw, url, warnings);
		if (entry) entries.push(entry);
		else warnings.push(`skills[${i}] skipped`);
	}
	return { version, shape, url, entries, warnings };
}

/**
 * The index's shape: a `$schema` must be the 0.2.0 one; a `version` (the RFC's `M.m.p`) may be 0.1.x or 0.2.x, any
 * other is refused (`index.schema`: a pre-1.0 minor may break the format); neither means v0.1.0.
 */
function shapeOf(doc: { $schema?: unknown; version?: unknown }, url: URL): IndexShape {
	if (doc.$schema !== undefined) {
		if (doc.$schema !== INDEX_SCHEMA_V2) {
			throw new SourceError("index.schema", `${url} declares an unknown $schema ${JSON.stringify(doc.$schema)}`);
		}
		return "0.2.0-schema";
	}
	if (doc.version === undefined) return "0.1.0";
	const parts = typeof doc.version === "string" ? /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(doc.version) : null;
	if (parts?.[1] === "0" && parts[2] === "2") return "0.2.0-version";
	if (parts?.[1] === "0" && parts[2] === "1") return "0.1.0";
	throw new SourceError(
		"index.schema",
		`${url} declares version ${JSON.stringify(doc.version)}; skillset reads index versions 0.1.x and 0.2.x`,
	);
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
	if (typeof description !== "string" || codePointLength(description) > 1024)
		return invalid(warnings, name, "a description of at most 1,024 characters");
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
	if (files.length > DEFAULT_UNPACK_LIMITS.maxEntries) {
		return invalid(warnings, name, `at most ${DEFAULT_UNPACK_LIMITS.maxEntries} files`);
	}
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

/**
 * The artifact's SKILL.md must declare the name its index entry lists it under (the catalog and the install
 * folder use that name): `index.name-mismatch` otherwise, `archive.no-skill-md` without a SKILL.md.
 */
export function checkEntryName(name: string, skillMd: Uint8Array | undefined): void {
	if (!skillMd) throw new SourceError("archive.no-skill-md", `${name}: the artifact has no SKILL.md`);
	const parsed = parseSkillFrontmatter(skillMd, { complete: true, profile: "lenient" });
	const declared = "frontmatter" in parsed ? (parsed.frontmatter?.data as { name?: unknown } | null)?.name : undefined;
	if (declared !== name) {
		throw new SourceError(
			"index.name-mismatch",
			`its SKILL.md declares the name ${JSON.stringify(declared)}, the index lists it as '${name}'`,
		);
	}
}
