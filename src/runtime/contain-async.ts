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
	rootInPlace,
	type VerifiedFile,
} from "./contain.ts";
import { type ContainError, errorCode, refusal, unverifiable } from "./contain-errors.ts";
import type { HeldRoots } from "./contain-held.ts";

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
	 * No descriptor is held while it waits: the file is opened and every check made again once it settles. A
	 * promise that rejects (a full queue) ends the read with that rejection, nothing read and nothing held.
	 */
	beforeRead?: (size: number) => Promise<void> | undefined;
	/**
	 * Skill folders kept open between reads (a server's): the read takes the root from here instead of opening it, and
	 * leaves it open. Every check after the file's open is made as without it.
	 */
	roots?: HeldRoots;
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
	let file = openFile(root, segments, path, options, ops);
	if ("ok" in file) return file;
	let wait: Promise<void> | undefined;
	try {
		wait = options.beforeRead?.(file.size);
	} catch (error) {
		ops.close(file.fd);
		throw error;
	}
	if (wait) {
		// A read waiting its turn holds no descriptor (thousands may wait): the file is opened and proven again after.
		ops.close(file.fd);
		await wait;
		file = openFile(root, segments, path, options, ops);
		if ("ok" in file) return file;
	}
	try {
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
 * Opens the file below the root (held, or opened for this read and closed before returning) and proves it: the
 * `lstat` walk, then the open and every check of {@link openVerified}, which ends by proving the root descriptor is
 * still the folder at the root's path (the root is not proven at its own open: once is enough). A refusal stands
 * only for the folder at the root's path; through a held folder that moved away, the folder at the path now is
 * opened and asked once more.
 */
function openFile(
	root: string,
	segments: string[],
	path: string,
	options: AsyncContainOptions,
	ops: ContainOperations,
): VerifiedFile | ContainError {
	// A set closed meanwhile (its server stopped while this read waited) holds nothing more.
	const roots = options.roots?.closed ? undefined : options.roots;
	for (let attempt = 0; ; attempt++) {
		const opened = roots ? roots.take(root, ops) : openRoot(root, ops, false);
		if ("ok" in opened) return opened;
		try {
			const checked = lstatSegments(opened.base, segments, ops);
			const file = "ok" in checked ? checked : openVerified(opened, path, checked, options, ops);
			if (!("ok" in file)) return file;
			const inPlace = roots ? roots.keep(opened, ops) : rootInPlace(opened, ops);
			if (inPlace === true) return file;
			if (roots && attempt === 0) continue;
			if (inPlace === undefined) return unverifiable();
			return refusal(
				"resource.changed",
				`the skill folder is not at ${opened.root} any more (or that is not its real path)`,
			);
		} finally {
			// The file is proven inside the root on its own descriptor: a root opened for this read is not needed after.
			if (!roots) ops.close(opened.fd);
		}
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
