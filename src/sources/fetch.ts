import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { SourceError } from "./errors.ts";

/** Limits on one download. */
export interface FetchLimits {
	maxBytes: number;
	timeoutMs: number;
}

/** 64 MiB and 30 s. */
export const DEFAULT_FETCH_LIMITS: FetchLimits = { maxBytes: 64 << 20, timeoutMs: 30_000 };

/**
 * Fetches `url` (`http:`, `https:` or `file:`) into memory with a byte cap and a deadline: a server that never ends
 * its body, or a FIFO behind a `file:` URL, fails with a code instead of hanging.
 */
export async function fetchBytes(url: URL, limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<Uint8Array> {
	if (url.protocol === "file:") return readLocal(fileURLToPath(url), limits.maxBytes);
	if (url.protocol !== "http:" && url.protocol !== "https:") {
		throw new SourceError("source.invalid", `${url.protocol} URLs are not fetched (use https:, http: or file:)`);
	}
	const signal = AbortSignal.timeout(limits.timeoutMs);
	try {
		const response = await fetch(url, { signal, redirect: "follow" });
		if (!response.ok) throw new SourceError("source.fetch", `${url} answered HTTP ${response.status}`);
		const declared = Number(response.headers.get("content-length") ?? "0");
		if (declared > limits.maxBytes) throw tooLarge(url.href, limits.maxBytes);
		return await readBody(response, url.href, limits.maxBytes);
	} catch (error) {
		if (error instanceof SourceError) throw error;
		if (signal.aborted) throw new SourceError("source.timeout", `${url} did not answer within ${limits.timeoutMs} ms`);
		throw new SourceError("source.fetch", `cannot fetch ${url}: ${(error as Error).message}`, { cause: error });
	}
}

async function readBody(response: Response, name: string, maxBytes: number): Promise<Uint8Array> {
	const chunks: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of response.body ?? []) {
		size += chunk.length;
		if (size > maxBytes) throw tooLarge(name, maxBytes);
		chunks.push(chunk);
	}
	return Buffer.concat(chunks);
}

/** Reads a local file, refusing anything but a regular file before reading a byte (no FIFO can block it). */
export async function readLocal(path: string, maxBytes: number): Promise<Uint8Array> {
	let handle: Awaited<ReturnType<typeof open>>;
	try {
		handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code === "ENOENT" ? "source.not-found" : "source.fetch";
		throw new SourceError(code, `cannot open ${path}: ${(error as NodeJS.ErrnoException).code}`, { cause: error });
	}
	try {
		const stats = await handle.stat();
		if (!stats.isFile()) throw new SourceError("source.invalid", `${path} is not a regular file`);
		if (stats.size > maxBytes) throw tooLarge(path, maxBytes);
		const bytes = Buffer.alloc(stats.size);
		const { bytesRead } = await handle.read(bytes, 0, stats.size, 0);
		return bytes.subarray(0, bytesRead);
	} finally {
		await handle.close();
	}
}

function tooLarge(name: string, maxBytes: number): SourceError {
	return new SourceError("source.too-large", `${name} is larger than ${maxBytes} bytes`);
}
