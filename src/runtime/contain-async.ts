import { createHash, type Hash } from "node:crypto";
import {
	type ContainedFile,
	type ContainOperations,
	type ContainOptions,
	checkRelativePath,
	lstatSegments,
	NODE_CONTAIN_OPERATIONS,
	openRoot,
	openVerified,
	type VerifiedFile,
} from "./contain.ts";
import { type ContainError, errorCode, refusal } from "./contain-errors.ts";

/** Options for {@link readContainedAsync}. */
export interface AsyncContainOptions extends ContainOptions {
	/** Bytes per read; the event loop serves others between two. Default 1 MiB. */
	chunkBytes?: number;
	/** Also hash the bytes as they arrive (no second pass over a large file). */
	digest?: "sha256";
	/** Where the bytes go: a buffer of exactly `size` bytes (a pool's, say). Default a new one per read. */
	buffer?: (size: number) => Uint8Array;
	/**
	 * A verified file of at most this many bytes is read at once, without the thread pool: a small file's read costs
	 * less than the hop to the pool and back. Default 0 (every read goes through the pool).
	 */
	syncBytes?: number;
	/**
	 * Called with the verified descriptor's size before a buffer is taken or a byte read; a promise it gives is
	 * awaited first (a queue for large reads, decided by the file that is read, not by a path's earlier `lstat`).
	 */
	beforeRead?: (size: number) => Promise<void> | undefined;
}

/** A contained read's bytes, with their SHA-256 (hex) when asked for. */
export type ContainedRead = ContainedFile & { sha256?: string };

const CHUNK_BYTES = 1024 * 1024;

/**
 * {@link readContained} for large files: the same checks (lexical path, `lstat` walk below the root descriptor,
 * `O_NOFOLLOW` open, identity, hard links, the kernel's path of the descriptor inside the root, the size cap), all
 * made before a byte is read; then the verified descriptor, and nothing else, is read in chunks on the thread pool
 * (or at once, when it is no larger than `syncBytes`),
 * so one 8 MiB read never holds up the small reads of other clients.
 */
export async function readContainedAsync(
	root: string,
	relPath: unknown,
	options: AsyncContainOptions = {},
): Promise<ContainedRead | ContainError> {
	const ops = options.operations ?? NODE_CONTAIN_OPERATIONS;
	const segments = checkRelativePath(relPath);
	if (!Array.isArray(segments)) return segments;
	const path = segments.join("/");
	const opened = openRoot(root, ops);
	if ("ok" in opened) return opened;
	let file: ReturnType<typeof openVerified>;
	try {
		const checked = lstatSegments(opened.base, segments, ops);
		if ("ok" in checked) return checked;
		file = openVerified(opened, path, checked, options, ops);
		if ("ok" in file) return file;
	} finally {
		// The file was proven inside the root on its own descriptor: the root's descriptor is no longer needed.
		ops.close(opened.fd);
	}
	try {
		const wait = options.beforeRead?.(file.size);
		if (wait) await wait;
		const hash = options.digest ? createHash(options.digest) : undefined;
		const into = options.buffer?.(file.size) ?? new Uint8Array(file.size);
		const bytes =
			file.size <= (options.syncBytes ?? 0)
				? readNow(file, into, path, ops, hash)
				: await readChunks(file, into, path, options.chunkBytes ?? CHUNK_BYTES, ops, hash);
		if (!(bytes instanceof Uint8Array)) return bytes;
		const read: ContainedRead = { ok: true, path, absolute: file.absolute, bytes, size: bytes.length };
		return hash ? { ...read, sha256: hash.digest("hex") } : read;
	} finally {
		ops.close(file.fd);
	}
}

/**
 * Reads up to `size` bytes of the descriptor from its start into `bytes`, a chunk at a time, yielding to the event
 * loop between chunks.
 */
async function readChunks(
	{ fd, size }: VerifiedFile,
	bytes: Uint8Array,
	path: string,
	chunkBytes: number,
	ops: ContainOperations,
	hash: Hash | undefined,
): Promise<Uint8Array | ContainError> {
	const readAt = ops.readAsync?.bind(ops) ?? yieldingRead(ops);
	let filled = 0;
	while (filled < size) {
		let count: number;
		try {
			count = await readAt(fd, bytes, filled, Math.min(chunkBytes, size - filled), filled);
		} catch (error) {
			return refusal("resource.unreadable", `'${path}' could not be read (${errorCode(error)})`);
		}
		// A file that shrank while it was read ends early, as with the synchronous read.
		if (count === 0) break;
		hash?.update(bytes.subarray(filled, filled + count));
		filled += count;
	}
	return bytes.subarray(0, filled);
}

/** Reads up to `size` bytes of the descriptor from its start into `bytes` in this turn (a small file). */
function readNow(
	{ fd, size }: VerifiedFile,
	bytes: Uint8Array,
	path: string,
	ops: ContainOperations,
	hash: Hash | undefined,
): Uint8Array | ContainError {
	let filled = 0;
	try {
		while (filled < size) {
			const count = ops.read(fd, bytes, filled, size - filled, filled);
			// A file that shrank while it was read ends early, as with the chunked read.
			if (count === 0) break;
			filled += count;
		}
	} catch (error) {
		return refusal("resource.unreadable", `'${path}' could not be read (${errorCode(error)})`);
	}
	hash?.update(bytes.subarray(0, filled));
	return bytes.subarray(0, filled);
}

/** For operations without `readAsync` (test doubles): the synchronous read, after giving the event loop a turn. */
function yieldingRead(ops: ContainOperations): NonNullable<ContainOperations["readAsync"]> {
	return async (fd, buffer, offset, length, position) => {
		await new Promise((resolve) => setImmediate(resolve));
		return ops.read(fd, buffer, offset, length, position);
	};
}
