// What a skill package carries: every file (bounded walk, links never followed), read once inside the skill
// folder, sorted into text the rules read and everything else, which is reported as not inspected. Archives are
// listed (zip central directory, tar and tar.gz headers) so their entries are checked without unpacking.

import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { readContained } from "../runtime/index.ts";
import { executableKind } from "./audit-rules.ts";

/** Bounds of one skill's audit. */
export interface AuditLimits {
	/** Largest file read, in bytes (default 16 MiB). */
	maxFileBytes: number;
	/** Most bytes read for one skill (default 64 MiB). */
	maxTotalBytes: number;
	/** Most files looked at (default 5,000). */
	maxFiles: number;
	/** Deepest folder (default 12). */
	maxDepth: number;
}

export const DEFAULT_AUDIT_LIMITS: AuditLimits = {
	maxFileBytes: 16 << 20,
	maxTotalBytes: 64 << 20,
	maxFiles: 5000,
	maxDepth: 12,
};

/** One file of the package: its text, or why it was not read as text. */
export type PackageFile =
	| { rel: string; text: string; executable: boolean }
	| { rel: string; skipped: string; binary?: string; entries?: ArchiveEntry[] };

/** One entry of an archive listing; `via` names the archives it is nested in ("inner.zip → "). */
export interface ArchiveEntry {
	name: string;
	kind: "file" | "dir" | "link" | "other";
	via: string;
}

/** Walks the skill folder breadth-first in name order and returns every file with its text or why it was skipped. */
export function readPackage(dir: string, limits: AuditLimits): PackageFile[] {
	const files: PackageFile[] = [];
	let total = 0;
	let level: { rel: string; depth: number }[] = [{ rel: "", depth: 0 }];
	while (level.length > 0) {
		const next: typeof level = [];
		for (const folder of level) {
			let entries: Dirent[];
			try {
				entries = readdirSync(join(dir, folder.rel), { withFileTypes: true });
			} catch (error) {
				files.push({ rel: folder.rel || ".", skipped: `folder unreadable (${(error as NodeJS.ErrnoException).code})` });
				continue;
			}
			for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
				const rel = folder.rel ? `${folder.rel}/${entry.name}` : entry.name;
				if (files.length >= limits.maxFiles) {
					files.push({
						rel,
						skipped: `file limit of ${limits.maxFiles} reached; the rest of the package was not read`,
					});
					return files;
				}
				if (entry.isSymbolicLink()) files.push({ rel, skipped: "symbolic link (never followed)" });
				else if (entry.isDirectory()) {
					if (folder.depth + 1 > limits.maxDepth)
						files.push({ rel, skipped: `deeper than ${limits.maxDepth} folders` });
					else if (entry.name === ".git") files.push({ rel, skipped: "git metadata" });
					else next.push({ rel, depth: folder.depth + 1 });
				} else if (!entry.isFile()) files.push({ rel, skipped: "not a regular file (FIFO, socket or device)" });
				else {
					const file = readFile(dir, rel, limits, limits.maxTotalBytes - total);
					if ("text" in file) total += file.text.length;
					files.push(file);
				}
			}
		}
		level = next;
	}
	return files;
}

function readFile(dir: string, rel: string, limits: AuditLimits, budget: number): PackageFile {
	let executable = false;
	let size = 0;
	try {
		const info = lstatSync(join(dir, rel));
		executable = (info.mode & 0o111) !== 0;
		size = info.size;
	} catch (error) {
		return { rel, skipped: `unreadable (${(error as NodeJS.ErrnoException).code})` };
	}
	if (size > limits.maxFileBytes) return { rel, skipped: `${size} bytes, over the ${limits.maxFileBytes}-byte cap` };
	if (size > budget) return { rel, skipped: `over the skill's ${limits.maxTotalBytes}-byte audit budget` };
	const read = readContained(dir, rel, { maxBytes: limits.maxFileBytes, allowHardLinks: true });
	if (!read.ok) return { rel, skipped: `unreadable (${read.code})` };
	const bytes = read.bytes;
	const binary = executableKind(bytes);
	if (binary) return { rel, skipped: binary, binary };
	const archive = archiveKind(rel, bytes);
	if (archive) return { rel, skipped: `${archive} archive`, entries: listArchive(archive, bytes) };
	if (isBinary(bytes)) return { rel, skipped: "binary file" };
	return { rel, text: new TextDecoder().decode(bytes), executable };
}

/** NUL bytes or mostly invalid UTF-8 in the first 8 KiB. */
function isBinary(bytes: Uint8Array): boolean {
	const head = bytes.subarray(0, 8192);
	if (head.includes(0)) return true;
	const decoded = new TextDecoder().decode(head);
	let bad = 0;
	for (let i = 0; i < decoded.length; i++) if (decoded.charCodeAt(i) === 0xfffd) bad++;
	return bad > head.length / 20;
}

function archiveKind(rel: string, bytes: Uint8Array): "zip" | "tar" | "gzip" | "other" | undefined {
	const [a, b, c, d] = bytes;
	if (a === 0x50 && b === 0x4b && (c === 3 || c === 5) && (d === 4 || d === 6)) return "zip";
	if (a === 0x1f && b === 0x8b) return "gzip";
	if (bytes.length >= 262 && new TextDecoder().decode(bytes.subarray(257, 262)) === "ustar") return "tar";
	if (/\.(7z|rar|xz|bz2|zst|tgz|tar|jar|war|whl|apk|ipa|deb|rpm|dmg|iso|cab|msi)$/i.test(rel)) return "other";
	return undefined;
}

const MAX_ENTRIES = 10_000;
const MAX_NESTING = 3;
const MAX_UNPACKED = 64 << 20;

/** Bounds shared by one archive's listing and the archives nested in it. */
interface Listing {
	entries: ArchiveEntry[];
	unpacked: number;
}

function listArchive(kind: string, bytes: Uint8Array): ArchiveEntry[] {
	const listing: Listing = { entries: [], unpacked: 0 };
	list(kind, bytes, "", 0, listing);
	return listing.entries;
}

/** Lists one archive into `listing`; archives inside it are listed too (nesting and unpacked bytes bounded). */
function list(kind: string, bytes: Uint8Array, via: string, depth: number, listing: Listing): void {
	try {
		if (kind === "zip") listZip(bytes, via, depth, listing);
		else if (kind === "tar") listTar(bytes, via, depth, listing);
		else if (kind === "gzip") {
			const inner = gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED - listing.unpacked });
			listing.unpacked += inner.length;
			if (archiveKind("", inner) === "tar") listTar(inner, via, depth, listing);
		}
	} catch {
		// A damaged or oversized archive lists what was read so far; it is still reported as not inspected.
	}
}

function add(listing: Listing, entry: ArchiveEntry, content: () => Uint8Array | undefined, depth: number): void {
	listing.entries.push(entry);
	if (entry.kind !== "file" || depth >= MAX_NESTING || !/\.(zip|jar|tar|tgz|gz)$/i.test(entry.name)) return;
	const bytes = content();
	const kind = bytes && archiveKind(entry.name, bytes);
	if (bytes && kind && kind !== "other") list(kind, bytes, `${entry.via}${entry.name} → `, depth + 1, listing);
}

function listZip(bytes: Uint8Array, via: string, depth: number, listing: Listing): void {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	let end = -1;
	for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
		if (view.getUint32(i, true) === 0x06054b50) {
			end = i;
			break;
		}
	}
	if (end === -1) return;
	const count = view.getUint16(end + 10, true);
	let at = view.getUint32(end + 16, true);
	for (let i = 0; i < count && listing.entries.length < MAX_ENTRIES && at + 46 <= bytes.length; i++) {
		if (view.getUint32(at, true) !== 0x02014b50) break;
		const method = view.getUint16(at + 10, true);
		const compressed = view.getUint32(at + 20, true);
		const nameLength = view.getUint16(at + 28, true);
		const extra = view.getUint16(at + 30, true);
		const comment = view.getUint16(at + 32, true);
		const attributes = view.getUint32(at + 38, true) >>> 16;
		const local = view.getUint32(at + 42, true);
		const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
		const link = (attributes & 0o170000) === 0o120000;
		const kind = link ? "link" : name.endsWith("/") ? "dir" : "file";
		add(listing, { name, kind, via }, () => zipContent(bytes, view, local, method, compressed, listing), depth);
		at += 46 + nameLength + extra + comment;
	}
}

function zipContent(
	bytes: Uint8Array,
	view: DataView,
	local: number,
	method: number,
	compressed: number,
	listing: Listing,
): Uint8Array | undefined {
	if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) return undefined;
	const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
	const data = bytes.subarray(start, Math.min(bytes.length, start + compressed));
	if (method === 0) return data;
	if (method !== 8) return undefined;
	const inflated = inflateRawSync(data, { maxOutputLength: Math.max(1, MAX_UNPACKED - listing.unpacked) });
	listing.unpacked += inflated.length;
	return inflated;
}

function listTar(bytes: Uint8Array, via: string, depth: number, listing: Listing): void {
	const text = new TextDecoder();
	let at = 0;
	while (at + 512 <= bytes.length && listing.entries.length < MAX_ENTRIES) {
		const header = bytes.subarray(at, at + 512);
		if (header[0] === 0) break;
		const field = (from: number, length: number) => {
			const raw = header.subarray(from, from + length);
			const nul = raw.indexOf(0);
			return text.decode(nul === -1 ? raw : raw.subarray(0, nul));
		};
		const prefix = field(345, 155);
		const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
		const size = Number.parseInt(field(124, 12).trim() || "0", 8) || 0;
		const type = String.fromCharCode(header[156] ?? 0);
		const kind =
			type === "0" || type === "\0" || type === "7"
				? "file"
				: type === "5"
					? "dir"
					: type === "1" || type === "2"
						? "link"
						: "other";
		const content = () => bytes.subarray(at + 512, at + 512 + size);
		if (type !== "x" && type !== "g" && type !== "L") add(listing, { name, kind, via }, content, depth);
		at += 512 + Math.ceil(size / 512) * 512;
	}
}
