import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { readContained } from "../runtime/index.ts";
import { SourceError } from "./errors.ts";

/** Limits on one download, or on one operation of several (an index with its fallback and all its artifacts). */
export interface FetchLimits {
	/** The largest body, in bytes. */
	maxBytes: number;
	/** How long the whole operation may take, from its first request to the last byte of its last answer. */
	timeoutMs: number;
	/** The operation's deadline once started (`withDeadline`): every request of the operation shares it. */
	deadline?: AbortSignal;
}

/** 64 MiB and 30 s. */
export const DEFAULT_FETCH_LIMITS: FetchLimits = { maxBytes: 64 << 20, timeoutMs: 30_000 };

/** `limits` with its deadline running from now, unless an enclosing operation started it already. */
export function withDeadline(limits: FetchLimits): FetchLimits {
	return limits.deadline ? limits : { ...limits, deadline: AbortSignal.timeout(limits.timeoutMs) };
}

/** One answer: its bytes, its declared media type (HTTP only) and the URL that gave it (after redirects). */
export interface FetchedResource {
	bytes: Uint8Array;
	contentType?: string;
	url: URL;
}

/** Redirects followed for one request, all on the host it named. */
const MAX_REDIRECTS = 5;

/**
 * Fetches `url` (`http:`, `https:` or `file:`) into memory with a byte cap and a deadline: a server that never ends
 * its body, drips it, or a FIFO behind a `file:` URL, fails with a code instead of hanging.
 */
export async function fetchBytes(url: URL, limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<Uint8Array> {
	return (await fetchResource(url, limits)).bytes;
}

/**
 * {@link fetchBytes}, with the answer's media type and final URL. HTTP 404 and 410 are `source.not-found`; a
 * redirect is followed only on the host the request named and never from `https:` to `http:` (`source.redirect`);
 * the deadline of `limits` (started here when none is running) covers the redirects and the whole body.
 */
export async function fetchResource(url: URL, limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<FetchedResource> {
	if (url.protocol === "file:") return { bytes: await readLocal(fileURLToPath(url), limits.maxBytes), url };
	if (url.protocol !== "http:" && url.protocol !== "https:") {
		throw new SourceError("source.invalid", `${url.protocol} URLs are not fetched (use https:, http: or file:)`);
	}
	if (url.username || url.password) {
		// fetch refuses such a URL anyway, and its error would print the secret: say so without it.
		throw new SourceError(
			"source.invalid",
			`${withoutCredentials(url)} carries credentials in the URL; they are never sent or printed`,
		);
	}
	const signal = withDeadline(limits).deadline as AbortSignal;
	try {
		const response = await followRedirects(url, signal);
		if (!response.ok) {
			await response.body?.cancel();
			const missing = response.status === 404 || response.status === 410;
			throw new SourceError(missing ? "source.not-found" : "source.fetch", `${url} answered HTTP ${response.status}`);
		}
		const declared = Number(response.headers.get("content-length") ?? "0");
		if (declared > limits.maxBytes) {
			await response.body?.cancel();
			throw tooLarge(url.href, limits.maxBytes);
		}
		const bytes = await readBody(response, url.href, limits.maxBytes);
		const contentType = response.headers.get("content-type") ?? undefined;
		return { bytes, url: new URL(response.url || url.href), ...(contentType ? { contentType } : {}) };
	} catch (error) {
		if (error instanceof SourceError) throw error;
		if (signal.aborted) {
			throw new SourceError("source.timeout", `${url} did not finish within the deadline of ${limits.timeoutMs} ms`);
		}
		throw new SourceError("source.fetch", `cannot fetch ${url}: ${(error as Error).message}`, { cause: error });
	}
}

/** The URL as text without its user name and password. */
function withoutCredentials(url: URL): string {
	const copy = new URL(url.href);
	copy.username = "";
	copy.password = "";
	return copy.href;
}

async function followRedirects(named: URL, signal: AbortSignal): Promise<Response> {
	let current = named;
	for (let hop = 0; ; hop++) {
		const response = await fetch(current, { signal, redirect: "manual" });
		const location = response.headers.get("location");
		if (response.status < 300 || response.status > 399 || location === null) return response;
		await response.body?.cancel();
		if (hop >= MAX_REDIRECTS)
			throw new SourceError("source.redirect", `${named} redirected more than ${MAX_REDIRECTS} times`);
		let next: URL;
		try {
			next = new URL(location, current);
		} catch {
			throw new SourceError("source.redirect", `${current} redirected to an invalid URL`);
		}
		const refusal = redirectRefusal(named, current, next);
		if (refusal) throw new SourceError("source.redirect", refusal);
		current = next;
	}
}

/**
 * Why a redirect from `from` to `to` is refused, or undefined when it may be followed: it must stay on the host
 * the user named (`named`, scheme upgrades to `https:` allowed) and never step down from `https:` to `http:`, so a
 * server (or anyone on the path of a plain-http answer) cannot send the client to a host the user did not choose.
 */
export function redirectRefusal(named: URL, from: URL, to: URL): string | undefined {
	if (to.protocol !== "http:" && to.protocol !== "https:") {
		return `${from} redirected to a ${to.protocol} URL; only http(s) redirects are followed`;
	}
	if (from.protocol === "https:" && to.protocol === "http:") {
		return `${from} redirected from https to plain http (${to}); refused`;
	}
	if (to.host !== named.host) {
		return `${from} redirected to another host, ${to.host} (${to.origin}); only ${named.host} was named: name ${to.origin} yourself to use it`;
	}
	return undefined;
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
