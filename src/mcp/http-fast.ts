import type { IncomingMessage, ServerResponse } from "node:http";
import type { ProtocolError } from "@modelcontextprotocol/server";
import { DEFERRED_BYTES, Deferrals, type FileBytes } from "./deferred.ts";
import type { DirectAnswers } from "./direct.ts";
import { writeSpliced } from "./http-stream.ts";

const RESULT_HEAD = Buffer.from('{"result":');
/**
 * A skill URI the URL parser gives back unchanged: a lowercase name, then segments of letters, digits, `.`, `_`,
 * `~` and `-` (nothing it escapes), none of them `.` or `..` (which it resolves away), no empty one.
 */
const PLAIN_SKILL_URI = /^skill:\/\/[a-z0-9-]+(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)*$/;

/** What the fast path needs of one established 2025 session. */
export interface FastSession {
	/** The session's id, as the client sent it and the SDK echoes it. */
	id: string;
	/** The protocol version the session negotiated at initialize. */
	protocol: string | undefined;
}

/** A request the fast path answers: its JSON-RPC id and what it asks. */
export type FastCall =
	| { id: string | number; method: "resources/read"; uri: string }
	| { id: string | number; method: "skills/list"; cursor: string | undefined };

/**
 * Answers `call` (a `resources/read` or `skills/list` that {@link fastCall} took) on an established session without
 * the SDK's transport (which makes a Fetch request, a promise per message and a Fetch response for each: three
 * quarters of a small read's cost). A read is answered whatever its outcome (a miss or a refusal with the error the
 * SDK's handler throws for it, so the file is not read a second time); a bad cursor returns false with nothing
 * written, and the SDK answers it exactly as without this path. True when the answer was written.
 */
export async function answerFast(
	res: ServerResponse,
	call: FastCall,
	session: FastSession,
	direct: DirectAnswers,
	stallMs?: number,
	owner?: object,
): Promise<boolean> {
	if (call.method === "skills/list") {
		const page = await direct.listJson(call.cursor, session.protocol);
		if (page === undefined) return false;
		const tail = `,"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
		// The page's bytes as they are, between the answer's head and tail: one length, no copy of the page.
		const length = RESULT_HEAD.length + page.length + Buffer.byteLength(tail);
		res.writeHead(200, jsonHeaders(session.id, length));
		res.cork();
		res.write(RESULT_HEAD);
		res.write(page);
		res.end(tail);
		res.uncork();
		return true;
	}
	return answerRead(res, call.uri, call.id, "", session.id, direct, stallMs, owner);
}

/**
 * Writes the answer of a `resources/read` of `uri` with `id`, `after` (JSON members) following `contents` in the
 * result, with the `session` header when there is one; a read that fails is answered with its error as the SDK writes
 * one. Always true. `owner` (the asking connection) waits for a large read within its share of the queue.
 */
export async function answerRead(
	res: ServerResponse,
	uri: string,
	id: string | number,
	after: string,
	session: string | undefined,
	direct: DirectAnswers,
	stallMs?: number,
	owner?: object,
): Promise<boolean> {
	const file = await direct.read(uri, owner);
	if (file instanceof Error) {
		writeJson(res, session, errorText(id, file));
		return true;
	}
	if (file.bytes.length <= DEFERRED_BYTES) {
		writeJson(res, session, answerText(id, contentText(uri, file), after));
		return true;
	}
	// A large content is written in slices in place of a placeholder, as the SDK path's large answers are.
	const deferrals = new Deferrals();
	const placeholder = deferrals.defer(file);
	const content =
		"text" in placeholder
			? textContent(uri, file.mimeType, placeholder.text)
			: contentText(uri, { ...file, bytes: placeholder.bytes });
	await writeSpliced(res, 200, jsonHeaders(session), answerText(id, content, after), deferrals, stallMs);
	return true;
}

/**
 * The call when `req` passes every check the SDK's transport and server make, with nothing they would read
 * differently: POST; `Accept` naming both JSON and event streams; `Content-Type` exactly `application/json`; the
 * session's own negotiated `MCP-Protocol-Version`; one JSON-RPC 2.0 request (no batch) with a string or integer id
 * and no other member; params holding exactly `uri` (a URL already in the form the SDK would make of it) or at most
 * a string `cursor`. Undefined otherwise.
 */
export function fastCall(req: IncomingMessage, parsed: unknown, protocol: string | undefined): FastCall | undefined {
	if (req.method !== "POST" || protocol === undefined) return undefined;
	const { accept, "content-type": type, "mcp-protocol-version": version } = req.headers;
	if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
	if (type !== "application/json" || version !== protocol) return undefined;
	if (!isRecord(parsed) || !onlyKeys(parsed, ["jsonrpc", "id", "method", "params"])) return undefined;
	const { jsonrpc, id, method, params } = parsed;
	if (jsonrpc !== "2.0" || !(typeof id === "string" || Number.isSafeInteger(id)) || !isRecord(params)) return undefined;
	const callId = id as string | number;
	if (method === "resources/read") {
		const { uri } = params;
		if (!onlyKeys(params, ["uri"]) || typeof uri !== "string" || !isCanonicalSkillUri(uri)) return undefined;
		return { id: callId, method, uri };
	}
	if (method === "skills/list") {
		const { cursor } = params;
		if (!onlyKeys(params, ["cursor"]) || !(cursor === undefined || typeof cursor === "string")) return undefined;
		return { id: callId, method, cursor };
	}
	return undefined;
}

/** A `skill://` URI the SDK's resource handler would read as it is (it reads `new URL(uri).href`). */
export function isCanonicalSkillUri(uri: string): boolean {
	// What clients send every time (a lowercase name, plain segments, none of them dots only) is its own href: parsing
	// it (a URL per request) is left to the others.
	if (PLAIN_SKILL_URI.test(uri)) return true;
	if (!uri.startsWith("skill://")) return false;
	try {
		return new URL(uri).href === uri;
	} catch {
		return false;
	}
}

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` has no member but `allowed` ones. */
export function onlyKeys(value: Record<string, unknown>, allowed: readonly string[]): boolean {
	for (const key in value) if (!allowed.includes(key)) return false;
	return true;
}

/**
 * The content object of a read as the SDK's skills extension answers it and `JSON.stringify` writes
 * `{ uri, mimeType, text | blob }`: text decoded as said, or base64; member by member (no object made and spread per
 * read). Base64 needs no escaping.
 */
function contentText(uri: string, file: FileBytes): string {
	const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
	return file.encoding === "base64"
		? `{"uri":${JSON.stringify(uri)},"mimeType":${JSON.stringify(file.mimeType)},"blob":"${bytes.toString("base64")}"}`
		: textContent(uri, file.mimeType, bytes.toString(file.encoding));
}

/** A text content object (see {@link contentText}). */
function textContent(uri: string, mimeType: string, text: string): string {
	return `{"uri":${JSON.stringify(uri)},"mimeType":${JSON.stringify(mimeType)},"text":${JSON.stringify(text)}}`;
}

/** The JSON-RPC answer of a read (`content` its JSON), members in the SDK's order, `after` following the contents. */
function answerText(id: string | number, content: string, after: string): string {
	const contents = `"contents":[${content}]`;
	return `{"result":{${after === "" ? contents : `${contents},${after}`}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** A JSON-RPC error answer, members in the SDK's order (it leaves `data` out when there is none). */
function errorText(id: string | number, error: ProtocolError): string {
	const data = error.data === undefined ? "" : `,"data":${JSON.stringify(error.data)}`;
	return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":${error.code},"message":${JSON.stringify(error.message)}${data}}}`;
}

/**
 * The headers of a JSON answer, its length said when given (a spliced one is sent chunked), as a flat list of names
 * and values: Node writes them as they are (no object made, spread and walked per answer).
 */
function jsonHeaders(session: string | undefined, length?: number): string[] {
	if (length === undefined)
		return session === undefined
			? ["content-type", "application/json"]
			: ["content-type", "application/json", "mcp-session-id", session];
	const size = String(length);
	return session === undefined
		? ["content-type", "application/json", "content-length", size]
		: ["content-type", "application/json", "mcp-session-id", session, "content-length", size];
}

/** A whole JSON answer in one write, its length said (no chunked framing to parse). */
function writeJson(res: ServerResponse, session: string | undefined, body: string): void {
	res.writeHead(200, jsonHeaders(session, Buffer.byteLength(body)));
	res.end(body);
}
