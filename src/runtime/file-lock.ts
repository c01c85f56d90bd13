import { mkdir, open, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";

const LOCK_ATTEMPTS = 500;
const STALE_LOCK_MS = 10_000;

/**
 * Runs `work` holding `<file>.lock` (created exclusively), for a read-modify-write of `file` that another process
 * may be doing at the same time. Waits for another holder, and breaks a lock older than ten seconds (left by a
 * process that died); gives up after about ten seconds with an error naming the lock (`what` names the file).
 */
export async function withFileLock<T>(file: string, work: () => Promise<T>, what = "the file"): Promise<T> {
	const lock = `${file}.lock`;
	// A file where a folder should be is reported by the open below, by its own code (ENOTDIR), not as EEXIST.
	await mkdir(dirname(file), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
		if (error.code !== "EEXIST") throw error;
	});
	for (let attempt = 0; ; attempt++) {
		try {
			const handle = await open(lock, "wx", 0o600);
			await handle.close();
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			if (attempt >= LOCK_ATTEMPTS) {
				throw new Error(`${file}: ${what} stays locked by ${lock}; remove it if no skillset is running`);
			}
			await breakStale(lock);
			await new Promise((done) => setTimeout(done, 5 + Math.random() * 20));
		}
	}
	try {
		return await work();
	} finally {
		await rm(lock, { force: true });
	}
}

async function breakStale(lock: string): Promise<void> {
	try {
		if (Date.now() - (await stat(lock)).mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
	} catch (error) {
		// The holder released it meanwhile.
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
	}
}
