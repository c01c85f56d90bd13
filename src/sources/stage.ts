import { lstat, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { hashPackage, readContained, sha256 } from "../runtime/index.ts";
import { describeFailure, SourceError, type SourceErrorCode } from "./errors.ts";
import { DEFAULT_FETCH_LIMITS, type FetchLimits, fetchBelow, fetchBytes, withDeadline } from "./fetch.ts";
import { checkoutRepository } from "./git.ts";
import { withoutPassword } from "./git-values.ts";
import { fetchManifestFiles } from "./index-files.ts";
import { realPathInside } from "./inside.ts";
import type { SourceSpec } from "./source.ts";
import { archiveKindOf, readArchive, writeArchiveFiles } from "./unpack.ts";
import { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";
import { checkEntryName, fetchSkillIndex, type IndexEntry } from "./well-known.ts";

/** Where installed skills came from, as the lock records it. */
export interface SourceRecord {
	type: SourceSpec["kind"];
	/** The folder path, git URL, archive URL or index origin, as resolved. */
	url: string;
	/** The git ref asked for (branch, tag or commit), if any. */
	ref?: string;
	/** The git commit fetched. */
	commit?: string;
	/** A folder inside a git source. */
	subpath?: string;
	/** The SHA-256 of the archive or index artifact, `sha256:<hex>`. */
	digest?: string;
}

/** A source fetched into a local folder, ready to be searched for skills. */
export interface StagedSource {
	dir: string;
	record: SourceRecord;
	/** Per skill (index sources): the digest of its artifact. */
	digests: Map<string, string>;
	/** Per skill (index sources): why its artifact was refused; the others still stage. */
	failures: Map<string, { code: SourceErrorCode; message: string }>;
	warnings: string[];
	/** Removes the staging folder and everything fetched into it. */
	cleanup(): Promise<void>;
}

/** How to fetch. */
export interface StageOptions {
	limits?: FetchLimits;
	/** For index sources: fetch only these skills (all when absent). */
	skills?: readonly string[];
	/** For index sources: accept a v0.1.0 index, whose files have no digests (`IndexFetchOptions`). */
	allowUnverified?: boolean;
}

/**
 * Brings a source to a local folder: a folder is used where it is; a git source is checked out shallow into a
 * temporary folder; an archive is downloaded and unpacked there after every entry passed the checks; an index's
 * artifacts are each verified against their digests before they are unpacked. Nothing from the source runs.
 */
export async function stageSource(spec: SourceSpec, options: StageOptions = {}): Promise<StagedSource> {
	// One deadline for the whole source: the index, its fallback and every artifact.
	const limits = withDeadline(options.limits ?? DEFAULT_FETCH_LIMITS);
	// Its real path: the contained reads below it compare against the kernel's path of each folder.
	const temp = await realpath(await mkdtemp(join(tmpdir(), "skillset-source-")));
	const cleanup = () => rm(temp, { recursive: true, force: true });
	try {
		const staged = await stageInto(temp, spec, limits, options);
		return { ...staged, cleanup };
	} catch (error) {
		await cleanup();
		throw error;
	}
}

async function stageInto(
	temp: string,
	spec: SourceSpec,
	limits: FetchLimits,
	options: StageOptions,
): Promise<Omit<StagedSource, "cleanup">> {
	const only = options.skills;
	if (spec.kind === "dir") {
		// A private copy first: the review and the install then see the same bytes, whatever happens to the
		// folder meanwhile.
		const dir = join(temp, "folder");
		await copyFolder(await realpath(spec.path), dir);
		return { dir, record: { type: "dir", url: spec.path }, digests: new Map(), failures: new Map(), warnings: [] };
	}
	if (spec.kind === "git") {
		const checkout = await checkoutRepository(
			spec.url,
			spec.ref,
			join(temp, "repo"),
			limits.timeoutMs,
			limits.maxBytes * 4,
		);
		// The sub-folder is proven inside the checkout after links are resolved, not only by its spelling.
		const dir = spec.subpath ? await realPathInside(checkout.dir, spec.subpath, "archive.traversal") : checkout.dir;
		const record: SourceRecord = { type: "git", url: withoutPassword(spec.url), commit: checkout.commit };
		if (spec.ref) record.ref = spec.ref;
		if (spec.subpath) record.subpath = spec.subpath;
		return { dir, record, digests: new Map(), failures: new Map(), warnings: [] };
	}
	if (spec.kind === "archive") {
		const bytes = await fetchBytes(spec.url, limits);
		const kind = archiveKindOf(spec.url.pathname) ?? "tar.gz";
		const dir = join(temp, "archive");
		await mkdir(dir);
		await writeArchiveFiles(dir, await readArchive(bytes, kind));
		const url = withoutPassword(spec.url.href);
		const record: SourceRecord = { type: "archive", url, digest: `sha256:${sha256(bytes)}` };
		return { dir, record, digests: new Map(), failures: new Map(), warnings: [] };
	}
	const index = await fetchSkillIndex(spec.url, limits, { allowUnverified: options.allowUnverified === true });
	const digests = new Map<string, string>();
	const failures: StagedSource["failures"] = new Map();
	const dir = join(temp, "index");
	await mkdir(dir);
	for (const entry of index.entries) {
		if (only && !only.includes(entry.name)) continue;
		try {
			const digest = await stageEntry(join(dir, entry.name), entry, limits, index.root);
			if (digest) digests.set(entry.name, digest);
		} catch (error) {
			failures.set(entry.name, describeFailure(error, "source.fetch"));
			await rm(join(dir, entry.name), { recursive: true, force: true });
		}
	}
	const warnings = [...index.warnings];
	if (index.version === "0.1.0") warnings.push("a v0.1.0 index publishes no digests: its files are not verified");
	return { dir, record: { type: "index", url: withoutPassword(spec.url.href) }, digests, failures, warnings };
}

/**
 * Fetches one index entry into `dir`, verified against its digest first; returns the digest. A local index's files
 * are read only inside its `root`, links refused.
 */
async function stageEntry(
	dir: string,
	entry: IndexEntry,
	limits: FetchLimits,
	root: string | undefined,
): Promise<string | undefined> {
	if (entry.type === "files") {
		await mkdir(dir);
		for (const file of entry.files) {
			const target = contained(dir, file);
			await mkdir(resolve(target, ".."), { recursive: true });
			const maxBytes = Math.min(limits.maxBytes, DEFAULT_UNPACK_LIMITS.maxFileBytes);
			const bytes = await fetchBelow(root, new URL(file, entry.base), { ...limits, maxBytes });
			if (file === "SKILL.md") checkEntryName(entry.name, bytes);
			await writeFile(target, bytes, { flag: "wx" });
		}
		if (!entry.files.includes("SKILL.md")) checkEntryName(entry.name, undefined);
		return undefined;
	}
	if (entry.type === "manifest") {
		const files = await fetchManifestFiles(entry, limits, root);
		await mkdir(dir);
		await writeArchiveFiles(dir, files);
		return entry.digest;
	}
	const bytes = await fetchBelow(root, entry.url, limits);
	const digest = `sha256:${sha256(bytes)}`;
	if (digest !== entry.digest) {
		throw new SourceError(
			"digest.mismatch",
			`${entry.name}: ${entry.url} has digest ${digest}, the index says ${entry.digest}`,
		);
	}
	if (entry.type === "skill-md") {
		checkEntryName(entry.name, bytes);
		await mkdir(dir);
		await writeFile(join(dir, "SKILL.md"), bytes, { flag: "wx" });
		return digest;
	}
	const kind = archiveKindOf(entry.url.pathname);
	if (!kind) throw new SourceError("archive.format", `${entry.name}: ${entry.url} is not a .tar.gz or .zip archive`);
	const files = await readArchive(bytes, kind, { requireSkillMd: true });
	checkEntryName(entry.name, files.find((file) => file.path === "SKILL.md")?.data);
	await mkdir(dir);
	await writeArchiveFiles(dir, files);
	return digest;
}

/** `base/path` when it stays inside `base`; a refusal otherwise. */
function contained(base: string, path: string): string {
	const target = resolve(base, path);
	const rel = relative(base, target);
	if (rel === "" || rel.startsWith("..") || rel.split(sep).includes("..") || path.includes("\0")) {
		throw new SourceError("archive.traversal", `${path} leaves the source folder`);
	}
	return target;
}

/** Copies a folder's files through contained reads; a link or special file refuses the source (never followed). */
async function copyFolder(from: string, to: string): Promise<void> {
	const hashed = hashPackage(from);
	if (hashed.problems.length > 0) {
		throw new SourceError(
			"install.invalid",
			`${from} holds what cannot be installed: ${hashed.problems.slice(0, 3).join("; ")}`,
		);
	}
	for (const path of Object.keys(hashed.files)) {
		const read = readContained(from, path, { maxBytes: 16 << 20 });
		if (!read.ok) throw new SourceError("install.invalid", `${path}: ${read.message}`);
		const target = join(to, ...path.split("/"));
		await mkdir(dirname(target), { recursive: true });
		const executable = ((await lstat(read.absolute)).mode & 0o111) !== 0;
		await writeFile(target, read.bytes, { flag: "wx", mode: executable ? 0o755 : 0o644 });
	}
}
