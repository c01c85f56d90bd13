import { spawn } from "node:child_process";
import { type AgentTool, errorResult, type ShellExecutor, type ShellOptions, type ShellResult } from "./agent-tool.ts";

/** Default time a shell command may run, in ms. */
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
/** Default cap on a command's stdout and stderr together, in bytes. */
export const DEFAULT_SHELL_OUTPUT_BYTES: number = 256 * 1024;

/** How `run_shell` runs commands. */
export interface ShellToolOptions {
	execute: ShellExecutor;
	/** What the sandbox keeps read-only, and whether it allows the network, for the next command. */
	sandboxOptions: () => { readOnly: readonly string[]; network: boolean };
	timeoutMs?: number;
	maxOutputBytes?: number;
}

/** `run_shell`: one command with the workspace as cwd, no stdin, a timeout and an output cap. */
export function createShellTool(options: ShellToolOptions): AgentTool {
	const timeoutMs = options.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
	return {
		name: "run_shell",
		description: `Run a shell command (sh -c) in the workspace, without input. It stops after ${Math.round(timeoutMs / 1000)} s; long output is cut. Skill folders are read-only.`,
		inputSchema: {
			type: "object",
			properties: { command: { type: "string", minLength: 1, description: "The command line." } },
			required: ["command"],
			additionalProperties: false,
		},
		spec: { risk: "exec", commandArg: "command" },
		async execute(input, { workspace, signal }) {
			const { readOnly, network } = options.sandboxOptions();
			const result = await options.execute(String(input.command), {
				workspace,
				readOnly,
				network,
				timeoutMs,
				maxOutputBytes: options.maxOutputBytes ?? DEFAULT_SHELL_OUTPUT_BYTES,
				signal,
			});
			const text = renderShellResult(result, timeoutMs);
			const failed = result.exitCode !== 0 || result.timedOut;
			return failed
				? errorResult(text, { ...status(result) })
				: { content: text, isError: false, protected: false, details: status(result) };
		},
	};
}

function status(result: ShellResult): Record<string, unknown> {
	const { stdout: _stdout, stderr: _stderr, ...rest } = result;
	return rest;
}

/** The result as the model reads it: status line, then stdout and stderr when not empty. */
export function renderShellResult(result: ShellResult, timeoutMs: number): string {
	const head = result.timedOut
		? `timed out after ${timeoutMs} ms`
		: result.signal
			? `killed by ${result.signal}`
			: `exit code ${result.exitCode}`;
	const parts = [head];
	if (result.stdout) parts.push(`stdout:\n${result.stdout}`);
	if (result.stderr) parts.push(`stderr:\n${result.stderr}`);
	if (result.truncated) parts.push("[output cut at the size limit]");
	return parts.join("\n");
}

/** What an unsandboxed command inherits: enough to run programs, never the agent's keys and tokens. */
function minimalEnvironment(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const key of ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"]) {
		const value = process.env[key];
		if (value !== undefined) env[key] = value;
	}
	return env;
}

/**
 * Runs a command with `sh -c` and no sandbox: the workspace as cwd, stdin closed, its own process group (killed
 * whole on timeout or cancel), output capped, and a minimal environment (no API keys). `readOnly` and `network`
 * cannot be enforced here; the policy asks before every command when this is the executor.
 */
export function runUnsandboxed(command: string, options: ShellOptions): Promise<ShellResult> {
	const max = options.maxOutputBytes ?? DEFAULT_SHELL_OUTPUT_BYTES;
	return new Promise((resolve) => {
		const child = spawn("/bin/sh", ["-c", command], {
			cwd: options.workspace,
			stdio: ["ignore", "pipe", "pipe"],
			detached: true,
			env: { ...minimalEnvironment(), ...options.env },
		});
		const output = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: 0, truncated: false, timedOut: false };
		const kill = () => {
			try {
				if (child.pid) process.kill(-child.pid, "SIGKILL");
			} catch {
				// Already gone.
			}
		};
		const collect = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
			const room = max - output.bytes;
			if (room <= 0) {
				output.truncated = true;
				return;
			}
			output[stream].push(chunk.subarray(0, room));
			output.bytes += Math.min(room, chunk.length);
			if (chunk.length > room) output.truncated = true;
		};
		child.stdout.on("data", collect("stdout"));
		child.stderr.on("data", collect("stderr"));
		const timer = setTimeout(() => {
			output.timedOut = true;
			kill();
		}, options.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS);
		options.signal?.addEventListener("abort", kill, { once: true });
		child.on("error", (error) => {
			output.stderr.push(Buffer.from(String(error)));
		});
		child.on("close", (exitCode, signal) => {
			clearTimeout(timer);
			options.signal?.removeEventListener("abort", kill);
			resolve({
				exitCode,
				signal,
				stdout: Buffer.concat(output.stdout).toString("utf8"),
				stderr: Buffer.concat(output.stderr).toString("utf8"),
				timedOut: output.timedOut,
				truncated: output.truncated,
			});
		});
	});
}
