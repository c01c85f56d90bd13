import type { CliIo } from "./io.ts";

// Kept apart from the warnings so that `main.ts` loads nothing more at start-up than this set.

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
