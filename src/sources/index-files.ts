import { sha256 } from "../runtime/index.ts";
import { SourceError } from "./errors.ts";
import { type FetchLimits, fetchBelow } from "./fetch.ts";
import type { ManifestEntry } from "./index-rfc.ts";
import { type ArchiveFile, archiveKindOf, readArchive } from "./unpack.ts";
import { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";
import { checkEntryName } from "./well-known.ts";

/**
 * The verified files of a RFC-shaped entry. With a `package`: the archive's digest first, then exactly the listed
 * files in it (one more or one missing refuses the skill), each against its own digest. Without: each listed file,
 * fetched from the skill's folder and checked against its digest as it arrives, held to an archive's bounds (8 MiB
 * a file, 64 MiB in all). Every file is verified, so the files hash to the skill digest the index was checked
 * against when read. A local index's files are read only inside its `root`, links refused.
 */
export async function fetchManifestFiles(
	entry: ManifestEntry,
	limits: FetchLimits,
	root: string | undefined,
): Promise<ArchiveFile[]> {
	const files = entry.package ? await fromPackage(entry, entry.package, limits, root) : [];
	if (!entry.package) {
		let total = 0;
		for (const listed of entry.files) {
			const maxBytes = Math.min(limits.maxBytes, DEFAULT_UNPACK_LIMITS.maxFileBytes);
			const data = await fetchBelow(root, new URL(listed.path, entry.base), { ...limits, maxBytes });
			total += data.length;
			if (total > DEFAULT_UNPACK_LIMITS.maxTotalBytes) {
				throw new SourceError(
					"source.too-large",
					`${entry.name}: its files pass ${DEFAULT_UNPACK_LIMITS.maxTotalBytes} bytes`,
				);
			}
			verify(entry.name, listed, data);
			files.push({ path: listed.path, data, executable: false });
		}
	}
	checkEntryName(entry.name, files.find((file) => file.path === "SKILL.md")?.data);
	return files;
}

async function fromPackage(
	entry: ManifestEntry,
	pkg: NonNullable<ManifestEntry["package"]>,
	limits: FetchLimits,
	root: string | undefined,
): Promise<ArchiveFile[]> {
	const bytes = await fetchBelow(root, pkg.url, limits);
	const digest = `sha256:${sha256(bytes)}`;
	if (digest !== pkg.digest) {
		throw new SourceError(
			"digest.mismatch",
			`${entry.name}: ${pkg.url} has digest ${digest}, the index says ${pkg.digest}`,
		);
	}
	const kind = archiveKindOf(pkg.url.pathname);
	if (!kind) throw new SourceError("archive.format", `${entry.name}: ${pkg.url} is not a .tar.gz or .zip archive`);
	const files = await readArchive(bytes, kind, { requireSkillMd: true });
	const listed = new Map(entry.files.map((file) => [file.path, file]));
	const extra = files.filter((file) => !listed.has(file.path)).map((file) => file.path);
	if (extra.length > 0) {
		throw new SourceError(
			"digest.mismatch",
			`${entry.name}: its package holds ${extra.slice(0, 5).join(", ")}, which the index does not list (no digest to verify it by)`,
		);
	}
	for (const file of files) verify(entry.name, listed.get(file.path) as ManifestEntry["files"][number], file.data);
	const missing = entry.files.filter((file) => !files.some((found) => found.path === file.path));
	if (missing.length > 0) {
		const names = missing.slice(0, 5).map((file) => file.path);
		throw new SourceError(
			"digest.mismatch",
			`${entry.name}: its package lacks ${names.join(", ")}, listed in the index`,
		);
	}
	return files;
}

function verify(name: string, listed: { path: string; digest: string }, data: Uint8Array): void {
	const digest = `sha256:${sha256(data)}`;
	if (digest !== listed.digest) {
		throw new SourceError(
			"digest.mismatch",
			`${name}: ${listed.path} has digest ${digest}, the index says ${listed.digest}`,
		);
	}
}
