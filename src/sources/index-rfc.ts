import { sha256 } from "../runtime/index.ts";
import { codePointLength, isValidSkillName } from "../skill/index.ts";
import { archiveKindOf } from "./unpack.ts";
import { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";

/** A `sha256:` digest of 64 lowercase hex digits, as both 0.2.0 index shapes write them. */
export const DIGEST: RegExp = /^sha256:[0-9a-f]{64}$/;

/**
 * One skill of an index in the Cloudflare RFC's 0.2.0 shape (`version` plus `files: [{path, digest}]`): each file at
 * `<index folder>/<name>/<path>` with its own digest, a skill digest over them all, and optionally one archive of
 * them (`package`).
 */
export interface ManifestEntry {
	name: string;
	description: string;
	type: "manifest";
	/** The skill's folder: `<name>/` beside the index. */
	base: URL;
	/** The skill-level digest (sha256 of the sorted `path\0hex\n` lines). */
	digest: string;
	files: { path: string; digest: string }[];
	package?: { url: URL; digest: string };
}

// The RFC's path rule: printable ASCII without `\`, `?`, `#`, `[` or `]`; relative, `/`-separated, no `..`.
const PATH_CHARS = /^[\x20-\x7e]+$/;
const PATH_FORBIDDEN = /[\\?#[\]]/;

/**
 * Reads one entry of a RFC-shaped index, or says (in `warnings`) why it is skipped: a name, a description of at most
 * 1,024 characters, a skill digest that matches its files' digests, a non-empty file list holding SKILL.md with
 * safe, unique paths and a digest each, and a `package` (if any) of the index's own scheme and a known format.
 * `resolve` resolves a URL from the index as the other shapes do (never another kind of place).
 */
export function readManifestEntry(
	raw: unknown,
	index: URL,
	warnings: string[],
	resolve: (base: URL, ref: string) => URL | undefined,
): ManifestEntry | undefined {
	const entry = raw as Record<string, unknown> | null;
	if (typeof entry !== "object" || entry === null) return undefined;
	const { name, description, digest, files } = entry;
	const lacks = (what: string) => {
		warnings.push(`entry ${JSON.stringify(name)} lacks ${what}`);
		return undefined;
	};
	if (typeof name !== "string" || !isValidSkillName(name)) return lacks("a spec-valid name");
	if (typeof description !== "string" || codePointLength(description) > 1024)
		return lacks("a description of at most 1,024 characters");
	if (typeof digest !== "string" || !DIGEST.test(digest)) return lacks("a sha256: skill digest");
	if (!Array.isArray(files) || files.length === 0) return lacks("a list of files");
	if (files.some((file) => typeof file === "string")) {
		// The RFC's backward-compatible reading of string paths is a v0.1.0 entry: nothing to verify it by.
		return lacks("a digest for each file (it lists plain paths, the v0.1.0 form, in a 0.2.0 index)");
	}
	if (files.length > DEFAULT_UNPACK_LIMITS.maxEntries)
		return lacks(`at most ${DEFAULT_UNPACK_LIMITS.maxEntries} files`);
	const base = new URL(`${name}/`, index);
	const listed: ManifestEntry["files"] = [];
	const seen = new Set<string>();
	for (const file of files as unknown[]) {
		const { path, digest: fileDigest } = (file ?? {}) as Record<string, unknown>;
		if (typeof path !== "string" || !safePath(path) || seen.has(path)) return lacks("safe, distinct file paths");
		if (!resolve(base, path)?.href.startsWith(base.href)) return lacks("files inside its own folder");
		if (typeof fileDigest !== "string" || !DIGEST.test(fileDigest)) return lacks(`a sha256: digest for ${path}`);
		seen.add(path);
		listed.push({ path, digest: fileDigest });
	}
	if (!seen.has("SKILL.md")) return lacks("a SKILL.md in its files");
	if (skillDigest(listed) !== digest) return lacks("a skill digest that matches its files' digests");
	const result: ManifestEntry = { name, description, type: "manifest", base, digest, files: listed };
	if (entry.package !== undefined) {
		const pkg = entry.package as Record<string, unknown> | null;
		const url = typeof pkg?.url === "string" ? resolve(index, pkg.url) : undefined;
		if (!url || !archiveKindOf(url.pathname)) return lacks("a package url to a .tar.gz or .zip of its own scheme");
		if (typeof pkg?.digest !== "string" || !DIGEST.test(pkg.digest)) return lacks("a sha256: package digest");
		result.package = { url, digest: pkg.digest };
	}
	return result;
}

/**
 * The RFC's skill-level digest: sha256 over `path\0hex\n` for each file, sorted by path in byte order, as
 * `sha256:<hex>`.
 */
export function skillDigest(files: readonly { path: string; digest: string }[]): string {
	const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
	const manifest = sorted.map((file) => `${file.path}\0${file.digest.slice("sha256:".length)}\n`).join("");
	return `sha256:${sha256(new TextEncoder().encode(manifest))}`;
}

function safePath(path: string): boolean {
	if (!PATH_CHARS.test(path) || PATH_FORBIDDEN.test(path) || path.startsWith("/")) return false;
	return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
