import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { readContained } from "../runtime/index.ts";
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

/**
 * Fetches `url` like {@link fetchBytes}, but a `file:` URL is read only inside the real folder `root` (a local
 * index's site), through the contained reader: no link below `root` is followed, anywhere on the way.
 */
export async function fetchBelow(root: string | undefined, url: URL, limits: FetchLimits): Promise<Uint8Array> {
	if (url.protocol !== "file:" || root === undefined) return fetchBytes(url, limits);
	return readLocal(fileURLToPath(url), limits.maxBytes, root);
}

/**
 * Reads a local file through the contained reader: a regular file only (no FIFO or device can block it), opened
 * without following a link. With `root` (a real path), the file must lie below it and no folder between them may be
 * a link; without, the file is the one named (links in its folder path are the namer's choice, not the file itself).
 */
export async function readLocal(path: string, maxBytes: number, root?: string): Promise<Uint8Array> {
	const base = root ?? (await realpath(dirname(path)).catch(() => dirname(path)));
	const rel = root === undefined ? basename(path) : relative(root, resolve(path));
	if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
		throw new SourceError("source.invalid", `${path} is outside ${root}`);
	}
	const read = readContained(base, rel.split(sep).join("/"), { maxBytes, allowHardLinks: root === undefined });
	if (read.ok) return read.bytes;
	if (read.code === "resource.not-found")
		throw new SourceError("source.not-found", `cannot open ${path}: ${read.message}`);
	if (read.code === "resource.too-large") throw tooLarge(path, maxBytes);
	throw new SourceError("source.invalid", `${path}: ${read.message} (${read.code})`);
}

function tooLarge(name: string, maxBytes: number): SourceError {
	return new SourceError("source.too-large", `${name} is larger than ${maxBytes} bytes`);
}
