import { fstatSync, readFileSync, writeSync } from "node:fs";

/** What a command may touch: output streams, the working directory and the environment. Tests pass their own. */
export interface CliIo {
	/** Writes command output. */
	stdout: (text: string) => void;
	/** Writes refusals, warnings and errors. */
	stderr: (text: string) => void;
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	/** True when stdout is a terminal (colour is then allowed unless NO_COLOR is set). */
	isTTY: boolean;
}

/** What a command returns: the exit code and the data that `--json` prints. */
export interface CommandResult<Data = unknown> {
	exitCode: number;
	data: Data;
}

/** Human output split by stream: results to stdout, refusals and errors to stderr. */
export interface Rendered {
	stdout: string;
	stderr: string;
}

/** A usage mistake: main prints one line with the message and a pointer to --help, and exits 2. */
export class UsageError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "UsageError";
	}
}

/**
 * The I/O of the running process. Node's stream for stdout or stderr costs a few milliseconds of start-up to set up
 * (the stream modules, and for a pipe the socket ones): stdout that is a regular file is written straight to it, and
 * a stream is made only when something is written to it.
 */
export function processIo(): CliIo {
	const toFile = isRegularFile(1);
	const out = toFile ? fileWriter(1) : quietWhenClosed(() => process.stdout, true);
	const err = quietWhenClosed(() => process.stderr, false);
	return {
		stdout: (text) => out.write(text),
		stderr: (text) => err.write(text),
		cwd: process.cwd(),
		env: process.env,
		isTTY: !toFile && process.stdout.isTTY === true,
	};
}

/** Whether stdout's reader went away (`skillset list | head -1`): the run then ends with status 0. */
export function readerGone(): boolean {
	return stdoutGone;
}

let stdoutGone = false;

/** Whether `fd` is open on a regular file (no reader to go away, no terminal, no partial writes but a full disk). */
function isRegularFile(fd: number): boolean {
	try {
		return fstatSync(fd).isFile();
	} catch {
		return false;
	}
}

/** The error that stopped output to a file (a size limit, a full disk), once one did. */
export function outputError(): NodeJS.ErrnoException | undefined {
	return failed;
}

let failed: NodeJS.ErrnoException | undefined;

/**
 * Writes to the regular file open on `fd`, as the stream would, without making one. A refused write is kept, not
 * thrown into the command (which would report it as its own failure); later writes are dropped and bin.ts names it.
 */
function fileWriter(fd: number): { write: (text: string) => void } {
	return {
		write: (text) => {
			if (failed) return;
			try {
				// A large text (a 10k-skill catalog is 3 MB) goes in pieces: encoding it whole would make a buffer of
				// its size at the run's peak of memory. A piece never ends between the two halves of a surrogate pair.
				for (let start = 0; start < text.length; ) {
					let end = Math.min(start + PIECE, text.length);
					if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
					writeWhole(fd, start === 0 && end === text.length ? text : text.slice(start, end));
					start = end;
				}
			} catch (error) {
				failed = error as NodeJS.ErrnoException;
			}
		},
	};
}

/** UTF-16 units written to a file at once. */
const PIECE = 1 << 16;

function isHighSurrogate(unit: number): boolean {
	return unit >= 0xd800 && unit <= 0xdbff;
}

/** Writes all of `text`: encoded by the write itself; only a short write (a size limit reached) makes a buffer. */
function writeWhole(fd: number, text: string): void {
	const wrote = writeSync(fd, text);
	const size = Buffer.byteLength(text, "utf8");
	if (wrote === size) return;
	const bytes = Buffer.from(text, "utf8");
	for (let done = wrote; done < size; ) {
		const more = writeSync(fd, bytes, done);
		if (more === 0) throw Object.assign(new Error("no byte written"), { code: "EIO" });
		done += more;
	}
}

/**
 * Writes to the stream `open` returns, made on the first write, until its reader goes away: then EPIPE is no crash,
 * and later writes are dropped (the command still finishes what it changes, only its output has nowhere to go).
 * Other stream errors still surface.
 */
function quietWhenClosed(open: () => NodeJS.WriteStream, isStdout: boolean): { write: (text: string) => void } {
	let stream: NodeJS.WriteStream | undefined;
	let gone = false;
	const opened = (): NodeJS.WriteStream => {
		if (stream) return stream;
		const made = open();
		made.on("error", (error: NodeJS.ErrnoException) => {
			if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
			gone = true;
			if (!isStdout) return;
			stdoutGone = true;
			// The error can come after the command returned and its status was set.
			process.exitCode = 0;
		});
		stream = made;
		return made;
	};
	return {
		write: (text) => {
			const target = opened();
			if (!gone && !target.destroyed) target.write(text);
		},
	};
}

/** ANSI styling that turns itself off without a terminal, with NO_COLOR, or with TERM=dumb. */
export interface Style {
	/** Errors and refusals. */
	red: (text: string) => string;
	/** Warnings. */
	yellow: (text: string) => string;
	/** Names and paths. */
	blue: (text: string) => string;
	/** Secondary detail. */
	dim: (text: string) => string;
	/** Headings. */
	bold: (text: string) => string;
}

/** The style for `io`: colour only on a terminal, never when NO_COLOR is set (https://no-color.org). */
export function createStyle(io: Pick<CliIo, "env" | "isTTY">): Style {
	const on = io.isTTY && !io.env.NO_COLOR && io.env.TERM !== "dumb";
	const paint = (open: number, close: number) => (text: string) =>
		on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
	return { red: paint(31, 39), yellow: paint(33, 39), blue: paint(34, 39), dim: paint(2, 22), bold: paint(1, 22) };
}

/** skillset's version, from its package.json. */
export function readVersion(): string {
	const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
	return String(manifest.version);
}

/** The runs (their `io`) in which an origin failed with nothing cached, and `allowOffline` was not given. */
const offline = new WeakSet<CliIo>();

/** Records that an origin of this run failed with nothing of it served. */
export function markOriginFailed(io: CliIo): void {
	offline.add(io);
}

/** `code`, or 1 when an origin failed with nothing cached in this run (and `--allow-offline` was not given). */
export function originExitCode(io: CliIo, code: number): number {
	return code === 0 && offline.has(io) ? 1 : code;
}
