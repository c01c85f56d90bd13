import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";

/** Longest part of a server's error text kept in a message. */
const MAX_DETAIL = 200;

/**
 * An SDK error in words that say what to fix: a connection error names the URL it tried and why it failed, an
 * error status keeps the server's message, and an HTML error page (a proxy's 502) is summarised by its status,
 * title and first line of text instead of dumped.
 */
export function describeModelError(error: unknown, endpoint: string): Error {
	const url = withoutSecrets(endpoint);
	if (error instanceof APIConnectionTimeoutError)
		return new Error(`the model server at ${url} did not answer in time (${error.message})`, { cause: error });
	if (error instanceof APIConnectionError) {
		const reason = rootCause(error);
		return new Error(`cannot reach the model server at ${url}${reason ? ` (${reason})` : ""}`, { cause: error });
	}
	if (error instanceof APIError && typeof error.status === "number") {
		const body = error.message.startsWith(`${error.status} `)
			? error.message.slice(String(error.status).length + 1)
			: error.message;
		const detail = looksLikeHtml(body) ? summariseHtml(body) : clip(body.trim());
		return new Error(`the model server at ${url} answered ${error.status}${detail ? `: ${detail}` : ""}`, {
			cause: error,
		});
	}
	return error instanceof Error ? error : new Error(String(error));
}

/** The URL to show: a password or token in it (`user:key@host`, `?api-key=…`) never reaches a message or a log. */
function withoutSecrets(endpoint: string): string {
	try {
		const url = new URL(endpoint);
		const user = url.username || url.password ? "…@" : "";
		const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
		return `${url.protocol}//${user}${url.host}${path}${url.search ? "?…" : ""}`;
	} catch {
		return "the configured URL";
	}
}

/** The innermost cause's code or message (`ECONNREFUSED`, `getaddrinfo ENOTFOUND host`). */
function rootCause(error: Error): string {
	let cause: unknown = error.cause;
	let found = "";
	for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
		const code = (cause as NodeJS.ErrnoException).code;
		found = typeof code === "string" ? code : cause.message;
		cause = cause.cause;
	}
	// A cause may quote the URL it was given, credentials and all ("Request cannot be constructed from a URL...").
	return found === "fetch failed" ? "" : redactUrls(found);
}

/** Every URL in `text` with its user info and query hidden. */
function redactUrls(text: string): string {
	return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>)]+/gi, (url) => withoutSecrets(url));
}

function looksLikeHtml(text: string): boolean {
	return /^\s*(<!doctype html|<html|<head|<body)/i.test(text);
}

/** `an HTML page titled "502 Bad Gateway": first line`. */
function summariseHtml(html: string): string {
	const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
	const body = /<body[^>]*>([\s\S]*)/i.exec(html)?.[1] ?? html;
	const text = body
		.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
		.replace(/<[^>]*>/g, "\n")
		.split("\n")
		.map((line) => decodeEntities(line).replace(/\s+/g, " ").trim())
		.find((line) => line !== "" && line !== decodeEntities(title ?? "").trim());
	const titled = title
		? `an HTML page titled "${clip(decodeEntities(title).replace(/\s+/g, " ").trim())}"`
		: "an HTML page";
	return text ? `${titled}: ${clip(text)}` : titled;
}

function decodeEntities(text: string): string {
	const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
	return text.replace(/&(#\d+|[a-z]+);/gi, (entity, name: string) =>
		name.startsWith("#")
			? String.fromCodePoint(Number(name.slice(1)) % 0x110000)
			: (named[name.toLowerCase()] ?? entity),
	);
}

function clip(text: string): string {
	return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}
