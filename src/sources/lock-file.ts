import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
	MAX_LOCK_FILE_BYTES,
	NotRegularFileError,
	parseLock,
	readRegularFile,
	renderLock,
	type SkillsLock,
	withFileLock,
} from "../runtime/index.ts";
import { SourceError } from "./errors.ts";

/**
 * Reads a lock file; a missing one is the empty lock, a broken one a refusal (never overwritten blindly). It is
 * data from the repository: a FIFO, a device (a link to `/dev/zero`) or an oversized file is refused at once.
 */
export async function readLockFile(file: string): Promise<SkillsLock> {
	let text: string;
	try {
		text = await readRegularFile(file, MAX_LOCK_FILE_BYTES);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, skills: {} };
		if (error instanceof NotRegularFileError) throw new SourceError("install.io", error.message);
		throw new SourceError("install.io", `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
	}
	const lock = parseLock(text);
	if ("error" in lock) throw new SourceError("install.io", `${file} is not a valid lock file: ${lock.error}`);
	return lock;
}

/** Writes a lock file atomically: a temporary file beside it, renamed into place, removed if anything fails. */
export async function writeLockFile(file: string, lock: SkillsLock): Promise<void> {
	const temp = await mkdtemp(join(dirname(file), `.${basename(file)}.`));
	try {
		await writeFile(join(temp, "lock"), renderLock(lock));
		await rename(join(temp, "lock"), file);
	} finally {
		await rm(temp, { recursive: true, force: true });
	}
}

/**
 * Changes a lock file as another process may at the same time: under `<file>.lock`, the file is read again, `change`
 * applied to what is there now, and the result written atomically, so concurrent installs and removals merge.
 */
export async function updateLockFile(file: string, change: (lock: SkillsLock) => void): Promise<void> {
	await withFileLock(
		file,
		async () => {
			const lock = await readLockFile(file);
			change(lock);
			await writeLockFile(file, lock);
		},
		"the lock file",
	);
}
