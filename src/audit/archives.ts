// Opens the archives a skill carries (zip, tar, gzip) without unpacking them to disk: their listing, for the entry
// rules, and the bytes of each file entry, so the audit reads archived scripts like any other file. Every read is
// bounded in entries and bytes; what cannot be read (encryption, other compression methods, damage, a bound) is
// counted as unread, never skipped silently.

import { gunzipSync, inflateRawSync } from "node:zlib";

/** One entry of an archive listing; `via` names the archives it is nested in ("inner.zip → "). */
export interface ArchiveEntry {
	name: string;
	kind: "file" | "dir" | "link" | "other";
	via: string;
}

/** A file entry's bytes, as far as they could be read. */
export interface ArchivedFile {
	name: string;
	bytes: Uint8Array;
	executable: boolean;
}

/** What an archive holds: its listing, the files read from it and how many file entries could not be read. */
export interface ArchiveContents {
	entries: ArchiveEntry[];
	files: ArchivedFile[];
	unread: number;
	/** Why the first unread entry was not read. */
	why?: string;
}

/** How many bytes and archive entries may still be read for this skill (shared by all its files and archives). */
export interface UnpackBudget {
	left: number;
	entries: number;
}

/** Archive entries read for one skill, nested archives included. */
export const MAX_ENTRIES = 10_000;

/** The archive format of `bytes` from its first bytes, or undefined. */
export function archiveKind(bytes: Uint8Array): "zip" | "tar" | "gzip" | undefined {
	const [a, b, c, d] = bytes;
	if (a === 0x50 && b === 0x4b && (c === 3 || c === 5) && (d === 4 || d === 6)) return "zip";
	if (a === 0x1f && b === 0x8b) return "gzip";
	if (bytes.length >= 262 && String.fromCharCode(...bytes.subarray(257, 262)) === "ustar") return "tar";
	return undefined;
}

/** Decompresses gzip data within the budget (and `maxBytes`); undefined when it is damaged or too large. */
export function gunzipBounded(bytes: Uint8Array, budget: UnpackBudget, maxBytes: number): Uint8Array | undefined {
	try {
		const inner = gunzipSync(bytes, { maxOutputLength: Math.max(1, Math.min(maxBytes, budget.left)) });
		budget.left -= inner.length;
		return inner;
	} catch {
		// Damaged, or larger than the bound: the caller reports the file as not inspected.
		return undefined;
	}
}

/** Lists a zip or tar archive and reads its file entries (each at most `maxBytes`, all within the budget). */
export function openArchive(
	kind: "zip" | "tar",
	bytes: Uint8Array,
	budget: UnpackBudget,
	maxBytes: number,
): ArchiveContents {
	const contents: ArchiveContents = { entries: [], files: [], unread: 0 };
	try {
		if (kind === "zip") readZip(bytes, contents, budget, maxBytes);
		else readTar(bytes, contents, budget, maxBytes);
	} catch {
		unread(contents, "the archive is damaged");
	}
	return contents;
}

function unread(contents: ArchiveContents, why: string): void {
	contents.unread++;
	contents.why ??= why;
}

function readZip(bytes: Uint8Array, contents: ArchiveContents, budget: UnpackBudget, maxBytes: number): void {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	let end = -1;
	for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
		if (view.getUint32(i, true) === 0x06054b50) {
			end = i;
			break;
		}
	}
	if (end === -1) {
		unread(contents, "no zip directory");
		return;
	}
	const count = view.getUint16(end + 10, true);
	let at = view.getUint32(end + 16, true);
	for (let i = 0; i < count; i++) {
		const broken =
			--budget.entries < 0
				? `more than ${MAX_ENTRIES} archive entries in the skill`
				: at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50
					? "the zip directory is damaged"
					: undefined;
		if (broken) {
			unread(contents, broken);
			return;
		}
		const nameLength = view.getUint16(at + 28, true);
		const mode = view.getUint32(at + 38, true) >>> 16;
		const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
		const kind = (mode & 0o170000) === 0o120000 ? "link" : name.endsWith("/") ? "dir" : "file";
		contents.entries.push({ name, kind, via: "" });
		if (kind === "file") {
			const read = zipEntry(bytes, view, at, budget, maxBytes);
			if (typeof read === "string") unread(contents, read);
			else contents.files.push({ name, bytes: read, executable: (mode & 0o111) !== 0 });
		}
		at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
	}
}

/** One zip entry's bytes, or why they cannot be read. */
function zipEntry(
	bytes: Uint8Array,
	view: DataView,
	at: number,
	budget: UnpackBudget,
	maxBytes: number,
): Uint8Array | string {
	if ((view.getUint16(at + 8, true) & 1) !== 0) return "an encrypted entry";
	const method = view.getUint16(at + 10, true);
	const compressed = view.getUint32(at + 20, true);
	const local = view.getUint32(at + 42, true);
	if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) return "an entry without its data";
	const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
	const data = bytes.subarray(start, Math.min(bytes.length, start + compressed));
	const bound = Math.min(maxBytes, budget.left);
	if (method === 0) {
		if (data.length > bound) return "an entry over the size bound";
		budget.left -= data.length;
		return data;
	}
	if (method !== 8) return `an entry compressed with method ${method}`;
	try {
		const inflated = inflateRawSync(data, { maxOutputLength: Math.max(1, bound) });
		budget.left -= inflated.length;
		return inflated;
	} catch {
		return "an entry that is damaged or over the size bound";
	}
}

function readTar(bytes: Uint8Array, contents: ArchiveContents, budget: UnpackBudget, maxBytes: number): void {
	const decoder = new TextDecoder();
	let at = 0;
	while (at + 512 <= bytes.length) {
		const header = bytes.subarray(at, at + 512);
		if (header[0] === 0) break;
		if (--budget.entries < 0) {
			unread(contents, `more than ${MAX_ENTRIES} archive entries in the skill`);
			return;
		}
		const field = (from: number, length: number) => {
			const raw = header.subarray(from, from + length);
			const nul = raw.indexOf(0);
			return decoder.decode(nul === -1 ? raw : raw.subarray(0, nul));
		};
		const prefix = field(345, 155);
		const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
		const size = Number.parseInt(field(124, 12).trim() || "0", 8) || 0;
		const mode = Number.parseInt(field(100, 8).trim() || "0", 8) || 0;
		const type = String.fromCharCode(header[156] ?? 0);
		const file = type === "0" || type === "\0" || type === "7";
		const kind = file ? "file" : type === "5" ? "dir" : type === "1" || type === "2" ? "link" : "other";
		if (type !== "x" && type !== "g" && type !== "L" && type !== "K") {
			contents.entries.push({ name, kind, via: "" });
			if (file) {
				const data = bytes.subarray(at + 512, at + 512 + size);
				if (data.length < size) unread(contents, "a truncated entry");
				else if (size > Math.min(maxBytes, budget.left)) unread(contents, "an entry over the size bound");
				else {
					budget.left -= size;
					contents.files.push({ name, bytes: data, executable: (mode & 0o111) !== 0 });
				}
			}
		}
		at += 512 + Math.ceil(size / 512) * 512;
	}
}
