import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
	createMcpHandler,
	isInitializeRequest,
	isLegacyRequest,
	type McpServer,
	WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type Deferrals, deferralsFor } from "./deferred.ts";
import { type DrainResult, Lifecycle } from "./http-drain.ts";
import { answerFast, fastCall } from "./http-fast.ts";
import { answerModernRead, modernRead } from "./http-fast-modern.ts";
import {
	allowedOrigins,
	checkRequest,
	digestOf,
	hostnameOf,
	isLoopback,
	originOf,
	type RequestRules,
} from "./http-guard.ts";
import { defaultInstanceId, instanceIdProblem, prefixedSessionId } from "./http-instance.ts";
import { clientOf, parseJson, readBody, sendError, toRequest, writeResponse } from "./http-io.ts";
import { type HttpRequestLog, requestFacts, ServedSkills } from "./http-log.ts";
import { HttpMetrics, methodLabel } from "./http-metrics.ts";
import { writeDeferred } from "./http-stream.ts";
import type { SkillServer } from "./server.ts";
import { SessionTable } from "./sessions.ts";

export type { DrainResult } from "./http-drain.ts";
export { isLoopback } from "./http-guard.ts";
export type { HttpRequestLog } from "./http-log.ts";

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
	/**
	 * On loopback, host names accepted in `Host` besides the localhost ones: the public name of a reverse proxy on
	 * the same machine that forwards the client's `Host` (`skills.example.com`). Default none.
	 */
	allowedHosts?: readonly string[];
	/** A request (headers and body) must arrive within this, else 408. Default 30 s. */
	requestTimeoutMs?: number;
	/**
	 * This instance's id (1-63 letters, digits, `_`, `-`): every session id it issues is `ID.` and a random UUID, so
	 * a load balancer routes a session's requests by that prefix. Default from the bind address (or, on a wildcard
	 * address, the machine's name) and the port: `127-0-0-1-8101`.
	 */
	instanceId?: string;
	/**
	 * A large answer the client takes none of for this long has its connection closed (a reader that never drains
	 * cannot hold a file's bytes forever). Default 30 s.
	 */
	stallTimeoutMs?: number;
	/** Serve `GET /metrics` in the Prometheus text format (behind the token when one is set). Default false. */
	metrics?: boolean;
	/**
	 * Answer `resources/read` and `skills/list` on an established session, and a stateless 2026-07-28
	 * `resources/read`, directly, around the SDK's transport, when the request passes every check the SDK makes and
	 * the answer is a success (else the SDK answers). The answers are the same bytes either way. Default true; false sends every request through the SDK.
	 */
	fastPath?: boolean;
	/** Called once per request to `/mcp` when its answer ends, with facts safe to log (no header, no content). */
	onRequest?: (line: HttpRequestLog) => void;
}

/** A running Streamable HTTP endpoint. */
export interface HttpServing {
	/** The endpoint, `http://host:port/mcp`. */
	url: string;
	port: number;
	/** The prefix of every session id this endpoint issues. */
	instanceId: string;
	/**
	 * Graceful shutdown: `/readyz` answers 503 and new requests are refused (503, `Retry-After`) at once; requests
	 * already accepted are answered within `timeoutMs` (then cut); event streams end with a final event. Call
	 * `close` after.
	 */
	drain(timeoutMs: number): Promise<DrainResult>;
	/** Stops listening and closes every open session and stream. */
	close(): Promise<void>;
}

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
	const idProblem = options.instanceId === undefined ? undefined : instanceIdProblem(options.instanceId);
	if (idProblem) throw new Error(idProblem);
	// Set once the port is known (a default id is made from it); no session opens before that.
	let instanceId = options.instanceId ?? "";
	const configuredOrigins = (options.allowedOrigins ?? []).map(originOf);
	const rules: RequestRules = {
		loopback,
		hosts: (options.allowedHosts ?? []).map(hostnameOf),
		origins: new Set(configuredOrigins),
		token: options.token === undefined ? undefined : digestOf(options.token),
		acceptedHosts: new Set(),
	};
	const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
	// Each session's server, for the version it negotiated (the fast path answers in that version only).
	const serverOf = new WeakMap<WebStandardStreamableHTTPServerTransport, McpServer>();
	const fastPath = options.fastPath !== false;
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
	const lifecycle = new Lifecycle();
	const metrics = options.metrics ? new HttpMetrics() : undefined;
	const served = new ServedSkills();
	served.reset(server.served);
	const unsubscribe = server.onChange((change) => {
		served.reset(server.served);
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
			sessionIdGenerator: () => prefixedSessionId(instanceId, randomUUID()),
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
			serverOf.set(created, await server.connect(created));
		} catch (error) {
			place.release();
			throw error;
		}
		return { created, release: place.release };
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		// The endpoint's own path as clients send it needs no parsing (the URL parser costs more than the checks below).
		const path = req.url === "/mcp" ? "/mcp" : new URL(req.url ?? "/", "http://x").pathname;
		// Probes carry no token and reveal nothing but the state: a load balancer or orchestrator asks them.
		if (path === "/healthz" || path === "/readyz") return probe(res, path === "/healthz" || lifecycle.ready);
		const refusal = checkRequest(req, rules);
		if (refusal) return sendError(res, refusal.status, refusal.message, refusal.headers);
		if (path === "/metrics" && metrics && req.method === "GET") return sendText(res, metrics.render(gauges()));
		if (path !== "/mcp") return sendError(res, 404, "Not found");
		if (!lifecycle.admit(res))
			return sendError(res, 503, `Instance ${instanceId} is shutting down: send this request again`, {
				"retry-after": "1",
				connection: "close",
			});
		const started = performance.now();
		const body = req.method === "POST" ? await readBody(req) : undefined;
		if (body === null) return sendError(res, 413, "Request body too large");
		const parsed = body === undefined ? undefined : parseJson(body);
		// The SDK takes a parsed body as it is: the Fetch request then carries none (making its stream costs more than
		// the rest of the request). A body that is not JSON goes along, for the SDK's own parse error.
		const unparsed = parsed === undefined ? body : undefined;
		const sessionId = req.headers["mcp-session-id"];
		// Nobody counts or logs: no facts to gather.
		if (metrics || options.onRequest) {
			const facts = requestFacts(req.method ?? "GET", parsed);
			res.once("close", () => record(req, res, facts, started));
		}
		let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
		if (typeof sessionId === "string" && !transport)
			return sendError(res, 404, "Session not found: it ended, or the instance that held it stopped; initialize again");
		if (transport && fastPath && typeof sessionId === "string" && (await fast(req, res, parsed, sessionId, transport)))
			return;
		if (!transport && req.method === "POST") {
			const read = fastPath && sessionId === undefined ? modernRead(req, parsed) : undefined;
			if (read && (await answerModernRead(res, read, server.direct, options.stallTimeoutMs, req.socket))) return;
			const request = toRequest(req, res, host, unparsed);
			const deferrals = deferralsFor(request);
			if (!(await isLegacyRequest(request, parsed)))
				return respond(res, await modern.fetch(request, { parsedBody: parsed }), deferrals);
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
		const request = toRequest(req, res, host, unparsed);
		const deferrals = deferralsFor(request);
		try {
			response = await transport.handleRequest(request, { parsedBody: parsed });
		} finally {
			done?.();
			fresh?.release();
			// An initialize the transport refused (wrong Accept, bad body) opened no session: close its server, or
			// every such request would leave a connected server and session behind, outside the session cap.
			const created = fresh?.created;
			if (created && (created.sessionId === undefined || sessions.get(created.sessionId) !== created))
				await created.close();
		}
		await respond(res, response, deferrals);
	};

	/** Answers a hot request of an established session directly; false when the SDK must answer it. */
	const fast = async (
		req: IncomingMessage,
		res: ServerResponse,
		parsed: unknown,
		id: string,
		transport: WebStandardStreamableHTTPServerTransport,
	): Promise<boolean> => {
		const protocol = serverOf.get(transport)?.server.getNegotiatedProtocolVersion();
		const call = fastCall(req, parsed, protocol);
		if (call === undefined) return false;
		const done = table.begin(id);
		try {
			// The connection's own share of the large-read queue: one socket pipelining large reads cannot fill it all.
			return await answerFast(res, call, { id, protocol }, server.direct, options.stallTimeoutMs, req.socket);
		} finally {
			done();
		}
	};

	/** Writes an answer: large contents in slices in place of their placeholders, anything else as the SDK made it. */
	const respond = (res: ServerResponse, response: Response, deferrals: Deferrals): Promise<void> =>
		deferrals.items.length > 0
			? writeDeferred(res, response, deferrals, options.stallTimeoutMs)
			: writeResponse(res, response, lifecycle, finalEvent());

	/** The last event of a stream a drain ends: a log notification that says why, so the client reconnects. */
	const finalEvent = (): string => {
		const data = `Instance ${instanceId} is shutting down: this stream ends here; reconnect to continue.`;
		const message = { jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data } };
		return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
	};
	const gauges = () => ({
		sessions: sessions.size,
		skills: server.served.length,
		snapshotAgeSeconds: (Date.now() - server.snapshotAt) / 1000,
		scanSeconds: server.scanMs === undefined ? undefined : server.scanMs / 1000,
		ready: lifecycle.ready,
	});
	/** Counts and logs one request to /mcp when its answer ends. */
	const record = (
		req: IncomingMessage,
		res: ServerResponse,
		facts: ReturnType<typeof requestFacts>,
		started: number,
	) => {
		const durationMs = performance.now() - started;
		metrics?.observe(methodLabel(facts.method), res.statusCode, durationMs / 1000);
		if (!options.onRequest) return;
		const given = req.headers["mcp-session-id"];
		const issued = res.getHeader("mcp-session-id");
		const session = typeof given === "string" ? given : typeof issued === "string" ? issued : undefined;
		const skill = served.skillOf(facts);
		options.onRequest({
			method: facts.method,
			...(skill === undefined ? {} : { skill }),
			status: res.statusCode,
			durationMs,
			...(session === undefined ? { client: req.socket.remoteAddress ?? "" } : { session }),
			instance: instanceId,
		});
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
	instanceId ||= defaultInstanceId(host, port);
	rules.origins = allowedOrigins(host, port, configuredOrigins);
	const shown = host.includes(":") ? `[${host}]` : host;
	return {
		url: `http://${shown}:${port}/mcp`,
		port,
		instanceId,
		drain: (timeoutMs) => lifecycle.drain(timeoutMs),
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

/** A probe's answer: 200 `ok` or 503 `unavailable`, never cached, nothing else. */
function probe(res: ServerResponse, up: boolean): void {
	res.writeHead(up ? 200 : 503, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
	res.end(up ? "ok\n" : "unavailable\n");
}

function sendText(res: ServerResponse, text: string): void {
	res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" });
	res.end(text);
}
