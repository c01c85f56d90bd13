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
