import { readFileSync } from "node:fs";

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

/** The I/O of the running process. */
export function processIo(): CliIo {
	return {
		stdout: (text) => process.stdout.write(text),
		stderr: (text) => process.stderr.write(text),
		cwd: process.cwd(),
		env: process.env,
		isTTY: process.stdout.isTTY === true,
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
