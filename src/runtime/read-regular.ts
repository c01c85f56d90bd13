import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** Why {@link readRegularFile} refused: the path is not a regular file, or it is larger than allowed. */
export class NotRegularFileError extends Error {
	readonly code: "ENOTREG" | "EFBIG";

	constructor(code: "ENOTREG" | "EFBIG", message: string) {
		super(message);
		this.name = "NotRegularFileError";
		this.code = code;
	}
}

/**
 * Reads a small file the host keeps (a lock file, a cache state) as text, bounded: opened without blocking (a FIFO
 * opens at once), refused unless the descriptor is a regular file (a link to `/dev/zero` or a FIFO never streams
 * forever), and refused above `maxBytes`. Other errors (ENOENT, EACCES) are thrown as they are.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<string> {
	const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
	try {
		const stats = await handle.stat();
		if (!stats.isFile()) throw new NotRegularFileError("ENOTREG", `${path} is not a regular file`);
		if (stats.size > maxBytes) throw new NotRegularFileError("EFBIG", `${path} is larger than ${maxBytes} bytes`);
		const bytes = Buffer.alloc(stats.size);
		let filled = 0;
		while (filled < bytes.length) {
			const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
			if (bytesRead === 0) break;
			filled += bytesRead;
		}
		return bytes.subarray(0, filled).toString("utf8");
	} finally {
		await handle.close();
	}
}
