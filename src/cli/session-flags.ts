import { dirname, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import {
	type IntegrityOptions,
	LOCK_FILE_NAME,
	MAX_LOCK_FILE_BYTES,
	parseLock,
	readRegularFile,
} from "../runtime/index.ts";
import { UsageError } from "./io.ts";

/** Options of the commands that activate or read: verify mode and the lock file. */
export const sessionFlags: NonNullable<ParseArgsConfig["options"]> = {
	verify: { type: "boolean", default: false },
	lock: { type: "string" },
};

/** Usage lines for {@link sessionFlags}. */
export const sessionUsage = `  --verify                   refuse content that does not match the lock file
  --lock FILE                the lock file (default: skills.lock.json in the workspace)`;

/** The lock file path for a workspace. */
export function lockPath(values: { lock?: string }, cwd: string, workspace: string): string {
	return values.lock ? resolve(cwd, values.lock) : resolve(workspace, LOCK_FILE_NAME);
}

/** Reads the lock for verify mode; a missing or broken lock is a usage error naming the file. */
export async function loadIntegrity(file: string): Promise<IntegrityOptions> {
	let text: string;
	try {
		// Bounded, and a regular file only: a lock in a cloned workspace may be a FIFO or a link to /dev/zero.
		text = await readRegularFile(file, MAX_LOCK_FILE_BYTES);
	} catch (error) {
		throw new UsageError(
			`cannot read the lock file ${file}: ${(error as NodeJS.ErrnoException).code ?? error} (run 'skillset lock' first)`,
		);
	}
	const lock = parseLock(text);
	if ("error" in lock) throw new UsageError(`${file}: ${lock.error}`);
	return { lock, root: dirname(file) };
}
