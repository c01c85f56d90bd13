import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
	createMcpHandler,
	isInitializeRequest,
	isLegacyRequest,
	WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { allowedOrigins, checkRequest, digestOf, isLoopback, originOf, type RequestRules } from "./http-guard.ts";
import type { SkillServer } from "./server.ts";
import { SessionTable } from "./sessions.ts";

export { isLoopback } from "./http-guard.ts";

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
	/**
	 * Most MCP sessions open at once. Default 256. When full, the idle session used least recently (of the client
	 * holding the most) is closed to make room; only when every session is busy is a new one refused (503).
	 */
	maxSessions?: number;
	/** Most sessions one client (its address and declared name) holds; more close its own oldest. Default 32. */
	maxSessionsPerClient?: number;
	/** A session with no request for this long is closed (the client re-initializes). Default 30 minutes. */
	idleSessionMs?: number;
	/** Browser origins allowed besides the server's own (`http://localhost:3000`). Default none. */
	allowedOrigins?: readonly string[];
	/** A request (headers and body) must arrive within this, else 408. Default 30 s. */
	requestTimeoutMs?: number;
}

/** A running Streamable HTTP endpoint. */
export interface HttpServing {
	/** The endpoint, `http://host:port/mcp`. */
	url: string;
	port: number;
	/** Stops listening and closes every open session and stream. */
	close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;
const IDLE_SESSION_MS = 30 * 60 * 1000;
/** Open MCP sessions at once by default; a client that never ends its session cannot grow the server unbounded. */
const MAX_SESSIONS = 256;
/** Sessions one client may hold by default: a client that leaks sessions crowds out only itself. */
const MAX_SESSIONS_PER_CLIENT = 32;

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
	const configuredOrigins = (options.allowedOrigins ?? []).map(originOf);
	const rules: RequestRules = {
		loopback,
		origins: new Set(configuredOrigins),
		token: options.token === undefined ? undefined : digestOf(options.token),
	};
	const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
	const idleMs = options.idleSessionMs ?? IDLE_SESSION_MS;
	const table = new SessionTable({
		maxSessions: options.maxSessions ?? MAX_SESSIONS,
		maxPerClient: options.maxSessionsPerClient ?? MAX_SESSIONS_PER_CLIENT,
		idleMs,
	});
	// Idle sessions are closed, so clients that vanish cannot hold the cap.
	const sweep = setInterval(() => table.sweep(), Math.max(10, Math.min(idleMs / 2, 60_000)));
	sweep.unref();
	// 2026-07-28 requests carry their own envelope and need no session: a server per request, as the SDK serves them.
	const modern = createMcpHandler(() => server.createServer(), { legacy: "reject" });
	const unsubscribe = server.onChange((change) => {
		if (change.resources) modern.notify.resourcesChanged();
		if (change.tools) modern.notify.toolsChanged();
		if (change.prompts) modern.notify.promptsChanged();
		for (const uri of change.updated) modern.notify.resourceUpdated(uri);
	});

	/** A new 2025 session for an initialize request, or the reason there is no room for one. */
	const openSession = async (req: IncomingMessage, parsed: unknown) => {
		const place = table.reserve(clientOf(req, parsed));
		if ("refused" in place) return place;
		const created = new WebStandardStreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			// Answers are plain JSON (no stream per request); notifications still flow on the client's GET stream.
			enableJsonResponse: true,
			onsessioninitialized: (id) => {
				sessions.set(id, created);
				place.commit(id, () => {
					sessions.delete(id);
					void created.close();
				});
			},
			onsessionclosed: (id) => {
				sessions.delete(id);
				table.remove(id);
			},
		});
		try {
			await server.connect(created);
		} catch (error) {
			place.release();
			throw error;
		}
		return { created, release: place.release };
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const refusal = checkRequest(req, rules);
		if (refusal) return sendError(res, refusal.status, refusal.message, refusal.headers);
		if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp") return sendError(res, 404, "Not found");
		const body = req.method === "POST" ? await readBody(req) : undefined;
		if (body === null) return sendError(res, 413, "Request body too large");
		const parsed = body === undefined ? undefined : parseJson(body);
		const sessionId = req.headers["mcp-session-id"];
		let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
		if (typeof sessionId === "string" && !transport) return sendError(res, 404, "Session not found");
		if (!transport && req.method === "POST") {
			const request = toRequest(req, res, host, body);
			if (!(await isLegacyRequest(request, parsed)))
				return writeResponse(res, await modern.fetch(request, { parsedBody: parsed }));
		}
		let fresh: { created: WebStandardStreamableHTTPServerTransport; release: () => void } | undefined;
		if (!transport) {
			if (!isInitializeRequest(parsed)) return sendError(res, 400, "No session: send initialize first");
			const opened = await openSession(req, parsed);
			if ("refused" in opened) return sendError(res, 503, opened.refused, { "retry-after": "5" });
			fresh = opened;
			transport = opened.created;
		}
		// A GET holds the notification stream open: it marks the session used, never busy (busy ones are never closed).
		const done = typeof sessionId === "string" ? table.begin(sessionId, req.method !== "GET") : undefined;
		let response: Response;
		try {
			response = await transport.handleRequest(toRequest(req, res, host, body), { parsedBody: parsed });
		} finally {
			done?.();
			fresh?.release();
			// An initialize the transport refused (wrong Accept, bad body) opened no session: close its server, or
			// every such request would leave a connected server and session behind, outside the session cap.
			const created = fresh?.created;
			if (created && (created.sessionId === undefined || sessions.get(created.sessionId) !== created))
				await created.close();
		}
		await writeResponse(res, response);
	};

	// A request must arrive whole within the timeout (a body dripped byte by byte cannot hold a connection open);
	// answers and notification streams are not limited by it.
	const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
	const timeouts = {
		requestTimeout,
		headersTimeout: Math.min(requestTimeout, HEADERS_TIMEOUT_MS),
		connectionsCheckingInterval: Math.max(50, Math.min(requestTimeout / 4, 30_000)),
	};
	const http = createServer(timeouts, (req, res) => {
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
	rules.origins = allowedOrigins(host, port, configuredOrigins);
	const shown = host.includes(":") ? `[${host}]` : host;
	return {
		url: `http://${shown}:${port}/mcp`,
		port,
		async close() {
			clearInterval(sweep);
			unsubscribe();
			await modern.close();
			table.closeAll();
			await Promise.all([...sessions.values()].map((transport) => transport.close()));
			http.closeAllConnections();
			await new Promise<void>((resolve) => http.close(() => resolve()));
		},
	};
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
	// Bodies are relayed chunk by chunk as they come (a JSON answer is usually one chunk): no copy into one buffer,
	// and an event stream starts at once.
	if (response.headers.get("content-type")?.includes("text/event-stream")) res.flushHeaders();
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

/** Who opens a session, for the per-client share: the peer's address and the name the client declares. */
function clientOf(req: IncomingMessage, initialize: unknown): string {
	const info = (initialize as { params?: { clientInfo?: { name?: unknown } } }).params?.clientInfo;
	const name = typeof info?.name === "string" ? info.name.slice(0, 200) : "";
	return `${req.socket.remoteAddress ?? ""} ${name}`;
}
