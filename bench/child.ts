// Child processes of a bench or test: a server started in a process of its own, and stopping one, so that nothing
// it started outlives the run.
import { type ChildProcess, spawn } from "node:child_process";

/** A server running in a child process, and where it listens. */
export interface ServedChild {
	child: ChildProcess;
	url: string;
	/** Everything it wrote on stdout so far (a `--trace-gc` trace, say). */
	stdout: () => string;
	alive: () => boolean;
}

/**
 * Starts `node ...args` in `cwd` with `env` and waits, at most `timeoutMs`, for it to say `listening on URL` on stderr
 * (as `skillset mcp --http` does); a server that exits or stays silent is stopped and its stderr thrown.
 */
export async function serveChild(
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ServedChild> {
	const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env });
	let stderr = "";
	let stdout = "";
	let alive = true;
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	child.stdout?.on("data", (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	child.once("exit", () => {
		alive = false;
	});
	const deadline = performance.now() + (options.timeoutMs ?? 60_000);
	const said = () => /listening on (\S+)/.exec(stderr)?.[1];
	while (said() === undefined) {
		if (!alive || performance.now() > deadline) {
			await stopChild(child);
			throw new Error(`the server did not start (${alive ? "silent" : "exited"}): ${stderr.slice(-2000)}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return { child, url: said() ?? "", stdout: () => stdout, alive: () => alive };
}

/**
 * Ends `child` with SIGTERM, then SIGKILL after five seconds. nginx's master stops its worker on SIGTERM; killed
 * outright (or before an earlier SIGTERM is done), it leaves the worker running, orphaned, after the bench.
 */
export async function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	child.kill("SIGTERM");
	const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
	await exited;
	clearTimeout(timer);
}
