// Stopping a child process of a bench or test, so that nothing it started outlives the run.
import type { ChildProcess } from "node:child_process";

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
