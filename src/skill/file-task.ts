import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, readSync, type Stats } from "node:fs";

// Non-blocking open: a FIFO or device named SKILL.md opens at once (and fstat then refuses it) instead of blocking
// until a writer appears. It changes nothing for regular files. O_NONBLOCK does not exist on Windows.
const OPEN_FLAGS: number = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** One file operation a read task asks for. */
export type FileOp =
	| { op: "open"; path: string }
	| { op: "fstat"; fd: number }
	| { op: "read"; fd: number; buffer: Uint8Array; offset: number; length: number; position: number }
	| { op: "close"; fd: number };

/**
 * A file read written once as a generator that yields the operations it needs; {@link runSync} and
 * {@link runAsync} carry them out. The same logic then serves the fast synchronous path used by discovery and the
 * non-blocking one, without two copies of it.
 */
export type FileTask<T> = Generator<FileOp, T, unknown>;

/** Runs a task with synchronous calls: a few microseconds per operation, but it blocks the event loop meanwhile. */
export function runSync<T>(task: FileTask<T>): T {
	let step = task.next();
	while (!step.done) {
		let result: unknown;
		try {
			result = doSync(step.value);
		} catch (error) {
			step = task.throw(error);
			continue;
		}
		step = task.next(result);
	}
	return step.value;
}

/** Runs a task with callback-style asynchronous calls on libuv's thread pool. */
export async function runAsync<T>(task: FileTask<T>): Promise<T> {
	let step = task.next();
	while (!step.done) {
		let result: unknown;
		try {
			result = await doAsync(step.value);
		} catch (error) {
			step = task.throw(error);
			continue;
		}
		step = task.next(result);
	}
	return step.value;
}

function doSync(op: FileOp): number | Stats | undefined {
	switch (op.op) {
		case "open":
			return openSync(op.path, OPEN_FLAGS);
		case "fstat":
			return fstatSync(op.fd);
		case "read":
			return readSync(op.fd, op.buffer, op.offset, op.length, op.position);
		case "close":
			closeSync(op.fd);
			return undefined;
	}
}

function doAsync(op: FileOp): Promise<number | Stats | undefined> {
	return new Promise((resolve, reject) => {
		const done = (error: NodeJS.ErrnoException | null, value?: number | Stats) =>
			error ? reject(error) : resolve(value);
		switch (op.op) {
			case "open":
				return open(op.path, OPEN_FLAGS, done);
			case "fstat":
				return fstat(op.fd, done);
			case "read":
				return read(op.fd, op.buffer, op.offset, op.length, op.position, done);
			case "close":
				return close(op.fd, (error) => done(error));
		}
	});
}
