import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, readSync, type Stats } from "node:fs";

// Non-blocking open: a FIFO or device named SKILL.md opens at once (and fstat then refuses it) instead of blocking
// until a writer appears. It changes nothing for regular files. O_NONBLOCK does not exist on Windows.
const OPEN_FLAGS: number = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
// For a task that must not follow a link at its name: the open itself refuses one (ELOOP), so a file swapped for a
// link after someone checked its kind cannot lead elsewhere. Windows has no O_NOFOLLOW.
const NO_FOLLOW_FLAGS: number = OPEN_FLAGS | (constants.O_NOFOLLOW ?? 0);

/** What a step of a {@link FileTask} returns to ask for another read (into the task's `buffer`, `offset`, ...). */
export const READ_MORE: unique symbol = Symbol("read more");

/**
 * A file read written once as steps that {@link runSync} and {@link runAsync} drive: the driver opens the file,
 * hands its `fstat` to `opened`, then reads what the task's read fields say and hands the byte count to `read`,
 * until a step returns the result; any I/O error goes to `failed`. The same logic then serves the fast synchronous
 * path used by discovery and the non-blocking one, without two copies of it — and, unlike a generator, the
 * synchronous path allocates nothing per step (a generator's yields cost microseconds per file on Node 20).
 */
export interface FileTask<T> {
	/** The file to open. */
	readonly path: string;
	/** Open with `O_NOFOLLOW`: a link at `path` itself fails the open with `ELOOP` (links on the way still count). */
	readonly noFollow: boolean;
	/**
	 * Where the next read goes and where in the file it starts; set by a step before it returns {@link READ_MORE}.
	 * A read fills the buffer from `offset` to its end (a step that wants fewer bytes hands a shorter view).
	 */
	buffer: Uint8Array;
	offset: number;
	position: number;
	/** The file is open: decide from its stats whether to read (return {@link READ_MORE}) or stop with a result. */
	opened(info: Stats): T | typeof READ_MORE;
	/** A read finished with `bytesRead` bytes: read more or give the result. */
	read(bytesRead: number): T | typeof READ_MORE;
	/** Opening, a stat or a read failed (or a step threw): the result for that. */
	failed(error: unknown): T;
}

/** Runs a task with synchronous calls: a few microseconds per operation, but it blocks the event loop meanwhile. */
export function runSync<T>(task: FileTask<T>): T {
	let fd: number;
	try {
		fd = openSync(task.path, task.noFollow ? NO_FOLLOW_FLAGS : OPEN_FLAGS);
	} catch (error) {
		return task.failed(error);
	}
	try {
		let step = task.opened(fstatSync(fd));
		while (step === READ_MORE)
			step = task.read(readSync(fd, task.buffer, task.offset, task.buffer.length - task.offset, task.position));
		return step;
	} catch (error) {
		return task.failed(error);
	} finally {
		closeSync(fd);
	}
}

/** Runs a task with callback-style asynchronous calls on libuv's thread pool. */
export async function runAsync<T>(task: FileTask<T>): Promise<T> {
	let fd: number;
	try {
		fd = await new Promise<number>((resolve, reject) =>
			open(task.path, task.noFollow ? NO_FOLLOW_FLAGS : OPEN_FLAGS, (error, opened) =>
				error ? reject(error) : resolve(opened),
			),
		);
	} catch (error) {
		return task.failed(error);
	}
	try {
		let step = task.opened(await fstatAsync(fd));
		while (step === READ_MORE) step = task.read(await readAsync(fd, task));
		return step;
	} catch (error) {
		return task.failed(error);
	} finally {
		await new Promise<void>((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve())));
	}
}

function fstatAsync(fd: number): Promise<Stats> {
	return new Promise((resolve, reject) => fstat(fd, (error, info) => (error ? reject(error) : resolve(info))));
}

function readAsync(fd: number, task: FileTask<unknown>): Promise<number> {
	return new Promise((resolve, reject) =>
		read(fd, task.buffer, task.offset, task.buffer.length - task.offset, task.position, (error, bytesRead) =>
			error ? reject(error) : resolve(bytesRead),
		),
	);
}
