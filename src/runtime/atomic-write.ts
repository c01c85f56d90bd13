import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";

/**
 * Writes `text` to `file` atomically: into a temporary file beside it, then renamed over it, so a reader never sees
 * half a file. On any failure the temporary file is removed and the error is thrown as it was.
 */
export async function writeFileAtomic(file: string, text: string, options: { mode?: number } = {}): Promise<void> {
	const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
	try {
		await writeFile(temporary, text, { flag: "wx", ...(options.mode !== undefined ? { mode: options.mode } : {}) });
		await rename(temporary, file);
	} catch (error) {
		await rm(temporary, { force: true });
		throw error;
	}
}
