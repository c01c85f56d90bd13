import { execFile } from "node:child_process";
import { join } from "node:path";
import { type CliIo, runCli } from "skillset/cli";

/** What a CLI run printed and returned. */
export interface CliRun {
	exitCode: number;
	stdout: string;
	stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function cli(argv: string[], overrides: Partial<CliIo> = {}): Promise<CliRun> {
	let stdout = "";
	let stderr = "";
	const io: CliIo = {
		stdout: (text) => {
			stdout += text;
		},
		stderr: (text) => {
			stderr += text;
		},
		cwd: process.cwd(),
		env: {},
		isTTY: false,
		...overrides,
	};
	const exitCode = await runCli(argv, io);
	return { exitCode, stdout, stderr };
}

/** The built CLI (`npm run build` first). */
export const BUILT_BIN: string = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");

/** Runs the built CLI in a process of its own, as a user does, with `env` (and nothing of the test's environment). */
export function runBuilt(
	argv: readonly string[],
	options: { cwd: string; env?: Record<string, string> },
): Promise<CliRun> {
	return new Promise((done, fail) => {
		execFile(
			process.execPath,
			[BUILT_BIN, ...argv],
			{ cwd: options.cwd, env: { PATH: process.env.PATH ?? "", ...options.env }, timeout: 60_000, maxBuffer: 1 << 26 },
			(error, stdout, stderr) => {
				const code = error ? (error as { code?: unknown }).code : 0;
				if (typeof code !== "number") fail(error);
				else done({ exitCode: code, stdout, stderr });
			},
		);
	});
}
