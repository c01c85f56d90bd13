import { SourceError } from "./errors.ts";

/** One entry of a tar archive, as its header says. Only `file` entries carry data. */
export interface TarEntry {
	path: string;
	type: "file" | "directory" | "symlink" | "hardlink" | "special" | "unknown";
	mode: number;
	data: Uint8Array;
}

const BLOCK = 512;

/**
 * Reads a tar archive (ustar, with pax `path` records and GNU long names) from memory. It never touches the file
 * system and keeps links, devices and FIFOs as typed entries, so the caller decides; a bad checksum, a truncated
 * entry or an unknown layout throws `archive.corrupt`.
 */
export function readTar(bytes: Uint8Array, maxEntries: number): TarEntry[] {
	const entries: TarEntry[] = [];
	let offset = 0;
	let longName: string | undefined;
	while (offset + BLOCK <= bytes.length) {
		const header = bytes.subarray(offset, offset + BLOCK);
		if (header.every((byte) => byte === 0)) break;
		checkChecksum(header, offset);
		const size = octal(header, 124, 12, offset);
		const flag = String.fromCharCode(header[156] ?? 0);
		const dataStart = offset + BLOCK;
		if (dataStart + size > bytes.length) throw new SourceError("archive.corrupt", "tar entry runs past the end");
		const data = bytes.subarray(dataStart, dataStart + size);
		offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
		if (flag === "x") {
			longName = paxPath(data) ?? longName;
			continue;
		}
		if (flag === "L") {
			longName = text(data, 0, data.length);
			continue;
		}
		if (flag === "g") continue;
		if (entries.length >= maxEntries) throw new SourceError("archive.too-many", `more than ${maxEntries} entries`);
		const prefix = text(header, 345, 155);
		const name = longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
		longName = undefined;
		entries.push({ path: name, type: entryType(flag), mode: octal(header, 100, 8, offset), data });
	}
	return entries;
}

/** One file to write into a tar archive. */
export interface TarFile {
	path: string;
	data: Uint8Array;
	executable?: boolean;
}

/**
 * Writes a deterministic ustar archive: entries in the given order, mode 0644 or 0755, mtime 0, no owner names,
 * so the same files always give the same bytes (and the same digest).
 */
export function writeTar(files: readonly TarFile[]): Uint8Array {
	const chunks: Uint8Array[] = [];
	for (const file of files) {
		const name = new TextEncoder().encode(file.path);
		if (name.length > 100) chunks.push(...paxRecord(file.path));
		chunks.push(header(name.length > 100 ? "././@PaxHeader-path" : file.path, file.data.length, "0", file.executable));
		chunks.push(padded(file.data));
	}
	chunks.push(new Uint8Array(BLOCK * 2));
	return Buffer.concat(chunks);
}

function paxRecord(path: string): Uint8Array[] {
	const body = (length: number) => `${length} path=${path}\n`;
	let length = Buffer.byteLength(body(0));
	while (Buffer.byteLength(body(length)) !== length) length = Buffer.byteLength(body(length));
	const data = new TextEncoder().encode(body(length));
	return [header("././@PaxHeader", data.length, "x", false), padded(data)];
}

function header(name: string, size: number, flag: string, executable = false): Uint8Array {
	const block = new Uint8Array(BLOCK);
	const put = (value: string, at: number, width: number) =>
		block.set(new TextEncoder().encode(value).subarray(0, width), at);
	put(name, 0, 100);
	put(`${(executable ? 0o755 : 0o644).toString(8).padStart(7, "0")}\0`, 100, 8);
	put("0000000\0", 108, 8);
	put("0000000\0", 116, 8);
	put(`${size.toString(8).padStart(11, "0")}\0`, 124, 12);
	put("00000000000\0", 136, 12);
	put(flag, 156, 1);
	put("ustar\0", 257, 6);
	put("00", 263, 2);
	put("        ", 148, 8);
	const sum = block.reduce((total, byte) => total + byte, 0);
	put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
	return block;
}

function padded(data: Uint8Array): Uint8Array {
	const out = new Uint8Array(Math.ceil(data.length / BLOCK) * BLOCK);
	out.set(data);
	return out;
}

function checkChecksum(header: Uint8Array, offset: number): void {
	const stored = octal(header, 148, 8, offset);
	let sum = 0;
	for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
	if (sum !== stored) throw new SourceError("archive.corrupt", `tar header checksum mismatch at byte ${offset}`);
}

function octal(header: Uint8Array, at: number, width: number, offset: number): number {
	const field = text(header, at, width).trim();
	if (field === "") return 0;
	if (!/^[0-7]+$/.test(field)) throw new SourceError("archive.corrupt", `bad number in tar header at byte ${offset}`);
	return Number.parseInt(field, 8);
}

function text(bytes: Uint8Array, at: number, width: number): string {
	const field = bytes.subarray(at, at + width);
	const end = field.indexOf(0);
	return new TextDecoder().decode(end < 0 ? field : field.subarray(0, end));
}

/** The `path` record of a pax extended header (`<length> <key>=<value>\n` records, lengths in bytes), if any. */
function paxPath(data: Uint8Array): string | undefined {
	let at = 0;
	let path: string | undefined;
	while (at < data.length) {
		const space = data.indexOf(0x20, at);
		const length = Number(text(data, at, space - at));
		if (space < 0 || !Number.isInteger(length) || length <= space - at || at + length > data.length) {
			throw new SourceError("archive.corrupt", "bad pax record");
		}
		const record = text(data, space + 1, at + length - space - 2);
		const key = record.slice(0, record.indexOf("="));
		if (key === "path") path = record.slice(5);
		// A pax size or link target would override the header; nothing we accept needs one, so refuse, not misread.
		if (key === "size" || key === "linkpath")
			throw new SourceError("archive.corrupt", `unsupported pax record '${key}'`);
		at += length;
	}
	return path;
}

function entryType(flag: string): TarEntry["type"] {
	if (flag === "0" || flag === "\0" || flag === "7") return "file";
	if (flag === "5") return "directory";
	if (flag === "2") return "symlink";
	if (flag === "1") return "hardlink";
	if (flag === "3" || flag === "4" || flag === "6") return "special";
	return "unknown";
}
