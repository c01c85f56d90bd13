import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { SourceError } from "./errors.ts";
import type { TarEntry } from "./tar.ts";
import type { UnpackLimits } from "./unpack-limits.ts";

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/**
 * Reads a zip archive from memory with yauzl (which checks every entry's real size against its header). Names are
 * taken as raw bytes and must be UTF-8; declared sizes are checked against the limits before any entry is inflated,
 * so a zip bomb fails on its headers. Entries come in the tar reader's shape, so one check serves both formats.
 */
export async function readZip(bytes: Uint8Array, limits: UnpackLimits): Promise<TarEntry[]> {
	const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
		yauzl.fromBuffer(
			Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
			{ lazyEntries: true, decodeStrings: false, validateEntrySizes: true },
			(error, file) => (error ? reject(corrupt(error)) : resolve(file)),
		),
	);
	if (zip.entryCount > limits.maxEntries) {
		zip.close();
		throw new SourceError("archive.too-many", `the archive has ${zip.entryCount} entries (limit ${limits.maxEntries})`);
	}
	const entries: TarEntry[] = [];
	let declared = 0;
	try {
		for (let entry = await next(zip); entry; entry = await next(zip)) {
			const path = entryName(entry.fileName as unknown as Buffer);
			const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
			const type = entryType(path, mode);
			if (type !== "file") {
				entries.push({ path, type, mode, data: new Uint8Array() });
				continue;
			}
			declared += entry.uncompressedSize;
			checkSizes(path, entry.uncompressedSize, entry.compressedSize, declared, limits);
			entries.push({ path, type, mode, data: await inflate(zip, entry, limits.maxFileBytes) });
		}
	} finally {
		zip.close();
	}
	return entries;
}

function next(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
	return new Promise((resolve, reject) => {
		const settle = (action: () => void) => {
			zip.removeAllListeners("entry").removeAllListeners("end").removeAllListeners("error");
			action();
		};
		zip.once("entry", (entry: yauzl.Entry) => settle(() => resolve(entry)));
		zip.once("end", () => settle(() => resolve(undefined)));
		zip.once("error", (error: Error) => settle(() => reject(corrupt(error))));
		zip.readEntry();
	});
}

function inflate(zip: yauzl.ZipFile, entry: yauzl.Entry, maxBytes: number): Promise<Uint8Array> {
	return new Promise((resolve, reject) => {
		zip.openReadStream(entry, (error, stream: Readable) => {
			if (error) return reject(corrupt(error));
			const chunks: Buffer[] = [];
			let size = 0;
			stream.on("data", (chunk: Buffer) => {
				size += chunk.length;
				if (size > maxBytes) {
					stream.destroy();
					reject(new SourceError("archive.too-large", `an entry inflates past ${maxBytes} bytes`));
				} else chunks.push(chunk);
			});
			stream.on("error", (streamError) => reject(corrupt(streamError)));
			stream.on("end", () => resolve(Buffer.concat(chunks)));
		});
	});
}

function checkSizes(path: string, size: number, compressed: number, total: number, limits: UnpackLimits): void {
	if (size > limits.maxFileBytes) {
		throw new SourceError("archive.too-large", `${path} unpacks to ${size} bytes (limit ${limits.maxFileBytes})`);
	}
	if (total > limits.maxTotalBytes) {
		throw new SourceError("archive.too-large", `the archive unpacks past ${limits.maxTotalBytes} bytes`);
	}
	if (size > 1024 && size > compressed * limits.maxRatio) {
		throw new SourceError(
			"archive.ratio",
			`${path} compresses ${Math.round(size / Math.max(compressed, 1))}:1 (limit ${limits.maxRatio}:1)`,
		);
	}
}

function entryName(raw: Buffer): string {
	try {
		return new TextDecoder("utf-8", { fatal: true }).decode(raw);
	} catch {
		throw new SourceError("archive.corrupt", "an entry name is not UTF-8");
	}
}

function entryType(path: string, mode: number): TarEntry["type"] {
	const kind = mode & S_IFMT;
	if (kind === S_IFLNK) return "symlink";
	if (path.endsWith("/") || kind === S_IFDIR) return "directory";
	if (kind === 0 || kind === S_IFREG) return "file";
	return "special";
}

function corrupt(error: Error): SourceError {
	return new SourceError("archive.corrupt", `not a readable zip archive: ${error.message}`, { cause: error });
}
