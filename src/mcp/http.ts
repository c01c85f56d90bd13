import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import {
	createMcpHandler,
	isInitializeRequest,
	isLegacyRequest,
	localhostAllowedHostnames,
	localhostAllowedOrigins,
	validateHostHeader,
	validateOriginHeader,
	WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { SkillServer } from "./server.ts";

/** Options for {@link serveHttp}. */
export interface HttpServeOptions {
	/** Address to bind. Default 127.0.0.1. */
	host?: string;
	/** Port; 0 picks a free one. */
	port: number;
	/** Require `Authorization: Bearer <token>` on every request. Mandatory off loopback. */
	token?: string;
	/** Allow binding a non-loopback address (needs `token`). */
	allowRemote?: boolean;
	/** Most MCP sessions open at once (then 503). Default 256. */
	maxSessions?: number;
	/** A session with no request for this long is closed (the client re-initializes). Default 30 minutes. */
	idleSessionMs?: number;
}

/** A running Streamable HTTP endpoint. */
export interface HttpServing {
	/** The endpoint, `http://host:port/mcp`. */
	url: string;
	port: number;
	close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const IDLE_SESSION_MS = 30 * 60 * 1000;
/** Open MCP sessions at once by default; a client that never ends its session cannot grow the server unbounded. */
const MAX_SESSIONS = 256;

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopback(host: string): boolean {
	const bare = host.replace(/^\[|\]$/g, "");
	if (bare === "localhost" || bare === "::1") return true;
	return isIP(bare) === 4 && bare.startsWith("127.");
}

/**
 * Serves `server` over Streamable HTTP at `/mcp` with one MCP session (and so one skills session) per client.
 * On loopback, `Host` and `Origin` are checked against DNS rebinding; a non-loopback address needs `allowRemote`
 * and a bearer token, and then refuses browser origins. Every request must carry the token when one is set.
 */
export async function serveHttp(server: SkillServer, options: HttpServeOptions): Promise<HttpServing> {
	const host = options.host ?? "127.0.0.1";
	const loopback = isLoopback(host);
	if (!loopback && !options.allowRemote)
		throw new Error(`refusing to bind ${host}: a non-loopback address needs --allow-remote and a bearer token`);
	if (!loopback && !options.token) throw new Error(`refusing to bind ${host} without a bearer token`);
	const expected = options.token === undefined ? undefined : digestOf(options.token);
	const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
	// When each session last made a request: idle ones are closed, so clients that vanish cannot hold the cap.
	const lastUsed = new Map<string, number>();
	const idleMs = options.idleSessionMs ?? IDLE_SESSION_MS;
	const sweep = setInterval(
		() => {
			const now = Date.now();
			for (const [id, at] of lastUsed) {
				if (now - at < idleMs) continue;
				lastUsed.delete(id);
				void sessions.get(id)?.close();
				sessions.delete(id);
			}
		},
		Math.max(10, Math.min(idleMs / 2, 60_000)),
	);
	sweep.unref();
	// 2026-07-28 requests carry their own envelope and need no session: a server per request, as the SDK serves them.
	const modern = createMcpHandler(() => server.createServer(), { legacy: "reject" });
	const unsubscribe = server.onChange((change) => {
		if (change.resources) modern.notify.resourcesChanged();
		if (change.tools) modern.notify.toolsChanged();
		if (change.prompts) modern.notify.promptsChanged();
		for (const uri of change.updated) modern.notify.resourceUpdated(uri);
	});

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const refusal = checkRequest(req, loopback, expected);
		if (refusal) return sendError(res, refusal.status, refusal.message, refusal.headers);
		if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp") return sendError(res, 404, "Not found");
		const body = req.method === "POST" ? await readBody(req) : undefined;
		if (body === null) return sendError(res, 413, "Request body too large");
		const parsed = body === undefined ? undefined : parseJson(body);
		const sessionId = req.headers["mcp-session-id"];
		let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
		if (typeof sessionId === "string" && !transport) return sendError(res, 404, "Session not found");
		if (typeof sessionId === "string") lastUsed.set(sessionId, Date.now());
		if (!transport && req.method === "POST") {
			const request = toRequest(req, res, host, body);
			if (!(await isLegacyRequest(request, parsed)))
				return writeResponse(res, await modern.fetch(request, { parsedBody: parsed }));
		}
		let fresh: WebStandardStreamableHTTPServerTransport | undefined;
		if (!transport) {
			if (!isInitializeRequest(parsed)) return sendError(res, 400, "No session: send initialize first");
			if (sessions.size >= (options.maxSessions ?? MAX_SESSIONS)) return sendError(res, 503, "Too many open sessions");
			const created = new WebStandardStreamableHTTPServerTransport({
				sessionIdGenerator: () => randomUUID(),
				// Answers are plain JSON (no stream per request); notifications still flow on the client's GET stream.
				enableJsonResponse: true,
				onsessioninitialized: (id) => {
					sessions.set(id, created);
					lastUsed.set(id, Date.now());
				},
				onsessionclosed: (id) => {
					sessions.delete(id);
					lastUsed.delete(id);
				},
			});
			await server.connect(created);
			transport = created;
			fresh = created;
		}
		let response: Response;
		try {
			response = await transport.handleRequest(toRequest(req, res, host, body), { parsedBody: parsed });
		} finally {
			// An initialize the transport refused (wrong Accept, bad body) opened no session: close its server, or
			// every such request would leave a connected server and session behind, outside the session cap.
			if (fresh && (fresh.sessionId === undefined || sessions.get(fresh.sessionId) !== fresh)) await fresh.close();
		}
		await writeResponse(res, response);
	};

	const http = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			if (!res.headersSent) sendError(res, 500, String(error));
			else res.destroy();
		});
	});
	await new Promise<void>((resolve, reject) => {
		http.once("error", reject);
		http.listen(options.port, host, () => resolve());
	});
	const address = http.address();
	const port = typeof address === "object" && address ? address.port : options.port;
	const shown = host.includes(":") ? `[${host}]` : host;
	return {
		url: `http://${shown}:${port}/mcp`,
		port,
		async close() {
			clearInterval(sweep);
			unsubscribe();
			await modern.close();
			await Promise.all([...sessions.values()].map((transport) => transport.close()));
			http.closeAllConnections();
			await new Promise<void>((resolve) => http.close(() => resolve()));
		},
	};
}

interface Refusal {
	status: number;
	message: string;
	headers?: Record<string, string>;
}

function checkRequest(req: IncomingMessage, loopback: boolean, expected: Buffer | undefined): Refusal | undefined {
	if (loopback) {
		const hostCheck = validateHostHeader(req.headers.host, localhostAllowedHostnames());
		if (!hostCheck.ok) return { status: 403, message: hostCheck.message };
	}
	const origin = validateOriginHeader(req.headers.origin, loopback ? localhostAllowedOrigins() : []);
	if (!origin.ok) return { status: 403, message: "Origin not allowed" };
	if (expected) {
		const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
		if (!match?.[1] || !timingSafeEqual(digestOf(match[1]), expected))
			return { status: 401, message: "Missing or wrong bearer token", headers: { "www-authenticate": "Bearer" } };
	}
	return undefined;
}

function digestOf(token: string): Buffer {
	return createHash("sha256").update(token).digest();
}

async function readBody(req: IncomingMessage): Promise<string | null> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) return null;
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function toRequest(req: IncomingMessage, res: ServerResponse, host: string, body: string | undefined): Request {
	const headers = new Headers();
	for (const [name, value] of Object.entries(req.headers)) {
		if (typeof value === "string") headers.set(name, value);
		else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
	}
	const url = new URL(req.url ?? "/", `http://${req.headers.host ?? host}`);
	const controller = new AbortController();
	// The exchange ends when the response closes (sent, or the client went away); a keep-alive socket outlives it.
	res.once("close", () => {
		if (!res.writableFinished) controller.abort();
	});
	return new Request(url, {
		method: req.method ?? "GET",
		headers,
		signal: controller.signal,
		...(body === undefined ? {} : { body }),
	});
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
	res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
	if (!response.body) {
		res.end();
		return;
	}
	// A JSON answer is one small body: send it whole; only event streams are relayed chunk by chunk.
	if (!response.headers.get("content-type")?.includes("text/event-stream")) {
		res.end(Buffer.from(await response.arrayBuffer()));
		return;
	}
	res.flushHeaders();
	const reader = response.body.getReader();
	res.once("close", () => {
		// The client went away mid-stream: stop reading; the cancel's own failure changes nothing.
		reader.cancel().catch(() => undefined);
	});
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		res.write(value);
	}
	res.end();
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
	res.writeHead(status, { "content-type": "application/json", ...headers });
	res.end(body);
}
