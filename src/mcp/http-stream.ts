import type { ServerResponse } from "node:http";
import { type Deferrals, type DeferredContent, jsonSlices } from "./deferred.ts";

/** How long an answer may wait for a client that takes none of it before the connection is closed. */
export const STALL_MS = 30_000;

/**
 * Writes the SDK's answer `response` with every deferred content in place of its placeholder, a slice at a time:
 * between two slices other requests are served, and when the client does not take what was written the next slice
 * waits for it (so a stream holds the file and one slice, never the whole answer). A client that takes nothing for
 * `stallMs` has its connection closed. Resolves when the answer is written or given up.
 */
export async function writeDeferred(
	res: ServerResponse,
	response: Response,
	deferrals: Deferrals,
	stallMs: number = STALL_MS,
): Promise<void> {
	// The SDK's answer is small here (each large content is a placeholder): it is read whole to find them.
	const body = await response.text();
	const headers = Object.fromEntries(response.headers.entries());
	delete headers["content-length"];
	return writeSpliced(res, response.status, headers, body, deferrals, stallMs);
}

/**
 * Writes `body` (a JSON answer holding the placeholders of `deferrals`) with every deferred content in its place, as
 * {@link writeDeferred} does: for an answer the HTTP layer made itself.
 */
export async function writeSpliced(
	res: ServerResponse,
	status: number,
	headers: Record<string, string> | string[],
	body: string,
	deferrals: Deferrals,
	stallMs: number = STALL_MS,
): Promise<void> {
	try {
		await writeFound(res, status, headers, body, deferrals, stallMs);
	} finally {
		// Every slice was handed to the system, or the answer was given up: no write reads the buffers any more.
		for (const item of deferrals.items) item.file.release?.();
	}
}

async function writeFound(
	res: ServerResponse,
	status: number,
	headers: Record<string, string> | string[],
	body: string,
	deferrals: Deferrals,
	stallMs: number,
): Promise<void> {
	const found = deferrals.items
		.map((item) => ({ item, at: body.indexOf(item.needle) }))
		.filter((entry) => entry.at >= 0)
		.sort((a, b) => a.at - b.at);
	res.writeHead(status, headers);
	let from = 0;
	for (const { item, at } of found) {
		if (!(await write(res, `${body.slice(from, at)}"`, stallMs))) return;
		if (!(await writeContent(res, item, stallMs))) return;
		from = at + item.needle.length - 1;
	}
	res.end(body.slice(from));
}

async function writeContent(res: ServerResponse, item: DeferredContent, stallMs: number): Promise<boolean> {
	for (const slice of jsonSlices(item.file)) {
		if (!(await write(res, slice, stallMs))) return false;
	}
	return true;
}

/**
 * Writes `text` (a string or bytes), then waits until it is handed to the system (so its buffer may be reused) and
 * for one turn of the event loop; when the client takes nothing for `stallMs`, the connection is destroyed. False
 * when the connection closed or stalled: stop writing.
 */
async function write(res: ServerResponse, text: string | Uint8Array, stallMs: number): Promise<boolean> {
	if (res.destroyed) return false;
	const written = await new Promise<boolean>((resolve) => {
		const done = (ok: boolean) => {
			clearTimeout(timer);
			res.off("close", onClose);
			resolve(ok);
		};
		const onClose = () => done(false);
		const timer = setTimeout(() => done(false), stallMs);
		res.once("close", onClose);
		res.write(text, (error) => done(!error));
	});
	if (!written) {
		res.destroy();
		return false;
	}
	await new Promise((resolve) => setImmediate(resolve));
	return !res.destroyed;
}
