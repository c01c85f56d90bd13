import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { SourceError } from "./errors.ts";
import { readTar, type TarEntry } from "./tar.ts";
import { DEFAULT_UNPACK_LIMITS, type UnpackLimits } from "./unpack-limits.ts";
import { readZip } from "./zip.ts";

/** One entry of an archive of either format. */
export type ArchiveEntry = TarEntry;

/** A file that passed every check, with its normalised relative path. */
export interface ArchiveFile {
	path: string;
	data: Uint8Array;
	executable: boolean;
}

/** The archive formats skills come in. */
export type ArchiveKind = "tar.gz" | "zip";

/** The format from a file name or URL path, if it is one we read. */
export function archiveKindOf(name: string): ArchiveKind | undefined {
	const lower = name.toLowerCase().replace(/[?#].*$/, "");
	if (lower.endsWith(".tar.gz") || lower.endsWith(".tgz")) return "tar.gz";
	if (lower.endsWith(".zip")) return "zip";
	return undefined;
}

/**
 * Reads and checks an archive in memory: only regular files and folders (links, hard links and devices refused),
 * relative paths without `..`, no two paths equal after case folding and Unicode normalisation, and the caps.
 * Nothing is written: a refused archive leaves no trace.
 */
export async function readArchive(
	bytes: Uint8Array,
	kind: ArchiveKind,
	options: { limits?: UnpackLimits; requireSkillMd?: boolean } = {},
): Promise<ArchiveFile[]> {
	const limits = options.limits ?? DEFAULT_UNPACK_LIMITS;
	const entries = kind === "zip" ? await readZip(bytes, limits) : readTar(gunzip(bytes, limits), limits.maxEntries);
	const files = checkEntries(entries, limits);
	if (options.requireSkillMd && !files.some((file) => file.path === "SKILL.md")) {
		throw new SourceError("archive.no-skill-md", "the archive has no SKILL.md at its root");
	}
	return files;
}

/** Writes checked files under `dir` (which must be new and empty), never following or replacing anything. */
export async function writeArchiveFiles(dir: string, files: readonly ArchiveFile[]): Promise<void> {
	for (const file of files) {
		const target = join(dir, ...file.path.split("/"));
		await mkdir(dirname(target), { recursive: true });
		await writeFile(target, file.data, { flag: "wx", mode: file.executable ? 0o755 : 0o644 });
	}
}

function gunzip(bytes: Uint8Array, limits: UnpackLimits): Uint8Array {
	const cap = Math.min(limits.maxTotalBytes + limits.maxEntries * 1024, bytes.length * limits.maxRatio + 65536);
	try {
		return gunzipSync(bytes, { maxOutputLength: cap });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
			const code = cap === limits.maxTotalBytes + limits.maxEntries * 1024 ? "archive.too-large" : "archive.ratio";
			throw new SourceError(code, `the archive inflates past ${cap} bytes (${bytes.length} packed)`);
		}
		throw new SourceError("archive.corrupt", `not a gzip stream: ${(error as Error).message}`, { cause: error });
	}
}

function checkEntries(entries: readonly ArchiveEntry[], limits: UnpackLimits): ArchiveFile[] {
	const files: ArchiveFile[] = [];
	const seen = new Map<string, string>();
	const folders = new Set<string>();
	let total = 0;
	for (const entry of entries) {
		const path = normalisePath(entry.path);
		if (entry.type === "symlink" || entry.type === "hardlink") {
			throw new SourceError("archive.link", `${entry.path} is a link; archives may hold only files and folders`);
		}
		if (entry.type !== "file" && entry.type !== "directory") {
			throw new SourceError("archive.special", `${entry.path} is a device, FIFO or unknown entry type`);
		}
		if (path === "") continue;
		const key = path.normalize("NFC").toLowerCase();
		const earlier = seen.get(key);
		if (earlier !== undefined && !(entry.type === "directory" && folders.has(key))) {
			throw new SourceError("archive.collision", `${entry.path} collides with ${earlier} (case or Unicode form)`);
		}
		seen.set(key, entry.path);
		const parts = key.split("/");
		for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
		if (entry.type === "directory") {
			folders.add(key);
			continue;
		}
		if (entry.data.length > limits.maxFileBytes) {
			throw new SourceError(
				"archive.too-large",
				`${entry.path} is ${entry.data.length} bytes (limit ${limits.maxFileBytes})`,
			);
		}
		total += entry.data.length;
		if (total > limits.maxTotalBytes)
			throw new SourceError("archive.too-large", `the archive unpacks past ${limits.maxTotalBytes} bytes`);
		files.push({ path, data: entry.data, executable: (entry.mode & 0o111) !== 0 });
	}
	for (const file of files) {
		const key = file.path.normalize("NFC").toLowerCase();
		if (folders.has(key)) throw new SourceError("archive.collision", `${file.path} is both a file and a folder`);
	}
	return files;
}

/** The entry's path as clean POSIX segments, or a refusal for absolute paths, `..`, NUL and backslashes. */
function normalisePath(raw: string): string {
	if (raw.includes("\0") || raw.includes("\\")) {
		throw new SourceError("archive.traversal", `${JSON.stringify(raw)} has a NUL or a backslash`);
	}
	if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw))
		throw new SourceError("archive.absolute", `${raw} is an absolute path`);
	const segments = raw.split("/").filter((segment) => segment !== "" && segment !== ".");
	if (segments.includes("..")) throw new SourceError("archive.traversal", `${raw} climbs out with '..'`);
	return segments.join("/");
}
