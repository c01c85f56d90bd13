import { constants } from "node:fs";
import { open } from "node:fs/promises";
import type { SavedConversation } from "../agent/index.ts";
import { UsageError } from "./io.ts";

/** Largest saved conversation `--resume` reads. */
const MAX_SAVED_BYTES = 64 * 1024 * 1024;

/** The conversation `/save` wrote to `file`, checked; a usage error names what is wrong with it. */
export async function readSaved(file: string): Promise<SavedConversation> {
	let data: unknown;
	try {
		data = JSON.parse(await readRegularFile(file, MAX_SAVED_BYTES));
	} catch (error) {
		throw new UsageError(
			`cannot resume from ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
		);
	}
	const saved = data as Partial<SavedConversation> | null;
	if (
		saved?.version !== 1 ||
		!Array.isArray(saved.entries) ||
		!Array.isArray(saved.active) ||
		!Array.isArray(saved.grants)
	)
		throw new UsageError(`${file} is not a conversation saved with /save`);
	return saved as SavedConversation;
}

// A FIFO, a device or an endless file at the name (planted in the workspace) must not hang or fill memory.
async function readRegularFile(file: string, maxBytes: number): Promise<string> {
	const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
	try {
		const stat = await handle.stat();
		if (!stat.isFile()) throw new Error("not a regular file");
		if (stat.size > maxBytes) throw new Error(`over ${maxBytes} bytes`);
		// Read no more than the cap even if the file grows meanwhile.
		const buffer = Buffer.alloc(stat.size + 1);
		let length = 0;
		for (;;) {
			const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
			if (bytesRead === 0) break;
			length += bytesRead;
			if (length === buffer.length) throw new Error("it grew while it was read");
		}
		return buffer.toString("utf8", 0, length);
	} finally {
		await handle.close();
	}
}
