// What a skill package carries: every file (bounded walk, links never followed), read once inside the skill
// folder, and turned into text the rules read whatever its encoding. Gzip files are decompressed and archives opened
// (bounded), so a script is audited wherever it sits. What cannot be read is reported, and whether it could hold
// code; what lies past the walk bounds is reported as not walked, since the install copies only what was walked.

import {
	type ArchiveEntry,
	archiveKind,
	gunzipBounded,
	MAX_ENTRIES,
	openArchive,
	type UnpackBudget,
} from "./archives.ts";
import { decodeText, looksBinary, mediaKind, printableLines, sniffText } from "./decode.ts";
import { type PackageReader, packageReader } from "./package-read.ts";
import { executableKind } from "./rules.ts";
import { type FileKind, fileKind, scriptLikeName } from "./text.ts";

export type { ArchiveEntry } from "./archives.ts";

/** Bounds of one skill's audit. The defaults are the install's, so nothing is installed that was not walked. */
export interface AuditLimits {
	/** Largest file read, in bytes (default 16 MiB, the largest file an install copies). */
	maxFileBytes: number;
	/** Most bytes read and unpacked for one skill (default 64 MiB). */
	maxTotalBytes: number;
	/** Most files walked (default 10,000, the most an install copies). */
	maxFiles: number;
	/** Most folders walked (default 10,000). */
	maxFolders: number;
	/** Deepest folder walked (default 32). */
	maxDepth: number;
}

export const DEFAULT_AUDIT_LIMITS: AuditLimits = {
	maxFileBytes: 16 << 20,
	maxTotalBytes: 64 << 20,
	maxFiles: 10_000,
	maxFolders: 10_000,
	maxDepth: 32,
};

/**
 * One file of the package: its text (and the kind that sets how it is read); an archive's listing and how many of
 * its entries could not be read (the entries that could follow as files of their own); or why it was not read,
 * whether it could hold code, and the printable lines of a binary file.
 */
export type PackageFile =
	| { type: "text"; rel: string; text: string; kind: FileKind; executable: boolean }
	| { type: "archive"; rel: string; format: string; entries: ArchiveEntry[]; unread: number; why?: string }
	| {
			type: "skipped";
			rel: string;
			why: string;
			/** It could hold code: not identified as an image, a font or other media. */
			code: boolean;
			/** A script by its name (a compressed one included) or mode: the skill runs code. */
			script?: boolean;
			binary?: string;
			bound?: boolean;
			lines?: string;
	  };

/** Compression suffixes the audit cannot open (`setup.sh.xz` is still a script by its name). */
const COMPRESSED = /\.(xz|bz2|zst|lz|lzma|lz4|z|br|7z|rar)$/i;
/** Archives nested deeper than this are reported as not inspected. */
const MAX_NESTING = 3;

/** Walks the skill folder breadth-first in name order and returns every file with its text or why it was skipped. */
export function readPackage(dir: string, limits: AuditLimits): PackageFile[] {
	const reader = packageReader(dir);
	try {
		return walk(reader, limits);
	} finally {
		reader.close();
	}
}

function walk(reader: PackageReader, limits: AuditLimits): PackageFile[] {
	const files: PackageFile[] = [];
	const budget: UnpackBudget = { left: limits.maxTotalBytes, entries: MAX_ENTRIES };
	let walked = 0;
	let folders = 0;
	let level: { rel: string; depth: number }[] = [{ rel: "", depth: 0 }];
	while (level.length > 0) {
		const next: typeof level = [];
		for (const folder of level) {
			const entries = reader.list(folder.rel);
			if (typeof entries === "string") {
				files.push({ type: "skipped", rel: folder.rel || ".", why: `folder unreadable (${entries})`, code: true });
				continue;
			}
			for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
				const rel = folder.rel ? `${folder.rel}/${entry.name}` : entry.name;
				const directory = entry.kind === "directory";
				if (directory ? ++folders > limits.maxFolders : ++walked > limits.maxFiles) {
					const what = directory ? `${limits.maxFolders} folders` : `${limits.maxFiles} files`;
					const why = `more than ${what}; the rest of the package was not walked`;
					files.push({ type: "skipped", rel, why, code: true, bound: true });
					return files;
				}
				if (entry.kind === "symlink")
					files.push({ type: "skipped", rel, why: "symbolic link (never followed)", code: true });
				else if (directory && entry.name === ".git") {
					// Its hooks and config run when git is used in the folder; its objects are compressed. One finding.
					const why = "git metadata (hooks and config run when git is used here); not read";
					files.push({ type: "skipped", rel, why, code: true });
				} else if (directory) {
					if (folder.depth + 1 > limits.maxDepth) {
						const why = `deeper than ${limits.maxDepth} folders; not walked`;
						files.push({ type: "skipped", rel, why, code: true, bound: true });
					} else next.push({ rel, depth: folder.depth + 1 });
				} else if (entry.kind !== "file")
					files.push({ type: "skipped", rel, why: "not a regular file (FIFO, socket or device)", code: true });
				else files.push(...readFile(reader, rel, limits, budget));
			}
		}
		level = next;
	}
	return files;
}

function readFile(reader: PackageReader, rel: string, limits: AuditLimits, budget: UnpackBudget): PackageFile[] {
	const read = reader.read(rel, limits, budget);
	if (!read.ok) {
		if (read.executable === undefined) return [{ type: "skipped", rel, why: read.why, code: true }];
		const script = read.executable || scriptLikeName(rel.replace(COMPRESSED, ""));
		return [{ type: "skipped", rel, why: read.why, code: true, ...(script ? { script } : {}) }];
	}
	budget.left -= read.bytes.length;
	const out: PackageFile[] = [];
	classify({ rel, name: rel, bytes: read.bytes, executable: read.executable, depth: 0 }, limits, budget, out);
	return out;
}

/** A file's bytes to classify: `rel` is how findings name it, `name` the path its kind is told from. */
interface Bytes {
	rel: string;
	name: string;
	bytes: Uint8Array;
	executable: boolean;
	depth: number;
}

/** Sorts bytes into text, an archive (opened), a decompressed file, or a file that could not be read. */
function classify(file: Bytes, limits: AuditLimits, budget: UnpackBudget, out: PackageFile[]): void {
	const { rel, name, bytes, executable } = file;
	const binary = executableKind(bytes);
	if (binary) {
		out.push({ type: "skipped", rel, why: binary, binary, code: true });
		return;
	}
	const archive = archiveKind(bytes);
	if (archive === "gzip") {
		const inner = file.depth < MAX_NESTING ? gunzipBounded(bytes, budget, limits.maxFileBytes) : undefined;
		// `x.sh.gz` holds `x.sh`, `x.tgz` a tar: the inner name sets how the content is read.
		const unzipped = name.replace(/\.tgz$/i, ".tar").replace(/\.gz$/i, "");
		if (inner) classify({ ...file, name: unzipped, bytes: inner, depth: file.depth + 1 }, limits, budget, out);
		else {
			const why = "gzip data not decompressed (damaged, too large or nested too deep)";
			out.push({ type: "skipped", rel, why, code: true, ...(scriptLikeName(unzipped) ? { script: true } : {}) });
		}
		return;
	}
	if (archive) {
		openedArchive(file, archive, limits, budget, out);
		return;
	}
	const sniff = sniffText(bytes);
	if (executable || sniff.shebang || scriptLikeName(name) || !looksBinary(sniff)) {
		const text = decodeText(bytes, sniff.encoding);
		const kind = fileKind(name, text, executable);
		out.push({ type: "text", rel, text, kind, executable });
		// Executable Markdown is read as a script too: without a shebang the shell runs it line by line, and a fence
		// under "examples" is then no example.
		if (executable && kind === "markdown") out.push({ type: "text", rel, text, kind: "script", executable });
		// A shell reads bytes, not UTF-16: what it runs (the bytes with NULs dropped) is read too when it differs, so a
		// UTF-16 head cannot hide an ASCII tail.
		if (sniff.encoding !== "utf-8") {
			const bytewise = decodeText(bytes, "utf-8");
			if (bytewise !== text) out.push({ type: "text", rel, text: bytewise, kind, executable });
		}
		return;
	}
	const media = mediaKind(bytes);
	const lines = printableLines(bytes);
	const script = executable || scriptLikeName(name.replace(COMPRESSED, ""));
	out.push({
		type: "skipped",
		rel,
		why: media ? `binary file (${media})` : "binary file",
		code: media === undefined,
		...(script ? { script } : {}),
		...(lines.trim() ? { lines } : {}),
	});
}

function openedArchive(
	file: Bytes,
	format: "zip" | "tar",
	limits: AuditLimits,
	budget: UnpackBudget,
	out: PackageFile[],
): void {
	if (file.depth >= MAX_NESTING) {
		out.push({ type: "archive", rel: file.rel, format, entries: [], unread: 1, why: "nested too deep" });
		return;
	}
	const contents = openArchive(format, file.bytes, budget, limits.maxFileBytes);
	const record: PackageFile = {
		type: "archive",
		rel: file.rel,
		format,
		entries: contents.entries,
		unread: contents.unread,
	};
	if (contents.why) record.why = contents.why;
	out.push(record);
	for (const entry of contents.files) {
		const inner = `${file.rel} → ${displayName(entry.name)}`;
		const nested = { rel: inner, name: entry.name, bytes: entry.bytes, executable: entry.executable };
		classify({ ...nested, depth: file.depth + 1 }, limits, budget, out);
	}
}

/** An entry name as shown in findings: no leading slash and no `..` step, so a path join cannot move it. */
function displayName(name: string): string {
	return name
		.split(/[\\/]+/)
		.filter((part) => part !== "" && part !== ".")
		.map((part) => (part === ".." ? "(..)" : part))
		.join("/");
}
