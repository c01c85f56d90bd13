import type { IncomingMessage, ServerResponse } from "node:http";
import type { DirectAnswers } from "./direct.ts";
import { answerRead, isCanonicalSkillUri, isRecord, onlyKeys } from "./http-fast.ts";

/** The protocol revision whose stateless `resources/read` this path answers. */
const MODERN = "2026-07-28";
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_KEY = "io.modelcontextprotocol/clientInfo";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
/** A value a header carries as it is (the SDK decodes other spellings): printable ASCII, no space. */
const PLAIN = /^[\x21-\x7e]+$/;

/** A stateless 2026-07-28 `resources/read` the fast path answers: its JSON-RPC id and URI. */
export interface ModernRead {
	id: string | number;
	uri: string;
}

/**
 * The read when `req` is a 2026-07-28 `resources/read` with nothing the SDK would read differently: POST with no
 * session; `Accept` naming JSON and event streams; `Content-Type` exactly `application/json`; `MCP-Protocol-Version`
 * 2026-07-28; `Mcp-Method` the body's method and `Mcp-Name` its URI, both as sent; one JSON-RPC 2.0 request with a
 * string or integer id; params holding exactly `uri` (canonical, printable ASCII) and `_meta` with exactly the
 * envelope: that protocol version, a client info of a name and a version (strings, nothing else) and empty client
 * capabilities. Undefined otherwise (the SDK answers, errors included).
 */
export function modernRead(req: IncomingMessage, parsed: unknown): ModernRead | undefined {
	const { headers } = req;
	if (req.method !== "POST" || headers["mcp-session-id"] !== undefined) return undefined;
	const { accept, "content-type": type } = headers;
	if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
	if (type !== "application/json" || headers["mcp-protocol-version"] !== MODERN) return undefined;
	if (!isRecord(parsed) || !onlyKeys(parsed, ["jsonrpc", "id", "method", "params"])) return undefined;
	const { jsonrpc, id, method, params } = parsed;
	if (jsonrpc !== "2.0" || !(typeof id === "string" || Number.isSafeInteger(id)) || method !== "resources/read")
		return undefined;
	if (!isRecord(params) || !onlyKeys(params, ["uri", "_meta"]) || !isEnvelope(params._meta)) return undefined;
	const { uri } = params;
	if (typeof uri !== "string" || !PLAIN.test(uri) || !isCanonicalSkillUri(uri)) return undefined;
	if (headers["mcp-method"] !== method || headers["mcp-name"] !== uri) return undefined;
	return { id: id as string | number, uri };
}

/** Exactly the per-request envelope a plain client sends, and nothing the SDK would weigh further. */
function isEnvelope(meta: unknown): boolean {
	if (!isRecord(meta) || !onlyKeys(meta, [VERSION_KEY, CLIENT_KEY, CAPABILITIES_KEY])) return false;
	const client = meta[CLIENT_KEY];
	const capabilities = meta[CAPABILITIES_KEY];
	if (meta[VERSION_KEY] !== MODERN || !isRecord(client) || !onlyKeys(client, ["name", "version"])) return false;
	if (typeof client.name !== "string" || typeof client.version !== "string") return false;
	return isRecord(capabilities) && Object.keys(capabilities).length === 0;
}

/**
 * Answers `read` without the SDK (which makes a server, a Fetch request and response per 2026-07-28 request: most
 * of a small read's cost): the result members the SDK adds for this revision (`resultType`, the caching hints and
 * the server's name and version in `_meta`), in its order; a read that fails with the error the SDK's handler throws
 * for it. False with nothing written when the server has more to say of itself (the SDK answers).
 */
export async function answerModernRead(
	res: ServerResponse,
	read: ModernRead,
	direct: DirectAnswers,
	stallMs?: number,
	owner?: object,
): Promise<boolean> {
	const after = tailOf(direct);
	if (after === undefined) return false;
	return answerRead(res, read.uri, read.id, after, undefined, direct, stallMs, owner);
}

// The members after `contents` depend only on the server's name and version: made once per server.
const tails = new WeakMap<DirectAnswers, string>();

function tailOf(direct: DirectAnswers): string | undefined {
	const info = direct.serverInfo;
	if (info === undefined) return undefined;
	let tail = tails.get(direct);
	if (tail === undefined) {
		tail = `"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":${JSON.stringify(info)}}`;
		tails.set(direct, tail);
	}
	return tail;
}
