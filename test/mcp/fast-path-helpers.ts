// Raw HTTP for the fast-path tests: POSTs with exactly the headers a test gives, and pipelined requests on one socket.
import { request } from "node:http";
import { connect } from "node:net";

/** What one POST got: status, content type, the session header, whether the length was said, the body. */
export interface Exchange {
	status: number;
	sized: boolean;
	type: string | undefined;
	session: string | undefined;
	body: string;
}

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** POSTs `body` (JSON unless a string) to `url` with the base headers and `headers` over them. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Exchange> {
	return new Promise((resolve, reject) => {
		// A fresh connection each: a kept-alive one the server is closing meanwhile would fail the request.
		const req = request(url, { method: "POST", agent: false, headers: { ...BASE, ...headers } }, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				text += chunk;
			});
			res.on("end", () => {
				const session = res.headers["mcp-session-id"];
				resolve({
					status: res.statusCode ?? 0,
					sized: res.headers["content-length"] !== undefined,
					type: res.headers["content-type"],
					session: typeof session === "string" ? session : undefined,
					body: text,
				});
			});
		});
		const timer = setTimeout(() => req.destroy(new Error("no answer in 20 s")), 20_000);
		req.on("close", () => clearTimeout(timer));
		// A server that answers before taking the whole body (413) may close while it is still being sent.
		req.on("error", reject);
		req.end(typeof body === "string" ? body : JSON.stringify(body));
	});
}

/** What must be equal with and without the fast path: the session id only as being there (each server issues its own). */
export function comparable(exchange: Exchange): { status: number; type?: string; session: boolean; body: string } {
	return { status: exchange.status, type: exchange.type, session: exchange.session !== undefined, body: exchange.body };
}

/** Opens a session of `protocol` (initialize, then initialized); returns its id. */
export async function initialize(url: string, protocol: string): Promise<string> {
	const params = { protocolVersion: protocol, capabilities: {}, clientInfo: { name: "raw", version: "1" } };
	const opened = await post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params });
	if (!opened.session) throw new Error(`initialize: ${opened.status} ${opened.body}`);
	const headers = { "mcp-session-id": opened.session, "mcp-protocol-version": protocol };
	await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
	return opened.session;
}

/**
 * Writes every request to one socket in a single write (pipelined) and reads the answers in order. Each answer must
 * say its length (the fast path's do).
 */
export function rawExchange(
	url: string,
	asks: { session: string; body: unknown }[],
	protocol: string,
): Promise<{ session: string | undefined; body: string }[]> {
	const { hostname, port, pathname } = new URL(url);
	const wire = asks
		.map(({ session, body }) => {
			const text = JSON.stringify(body);
			const headers = {
				host: `${hostname}:${port}`,
				...BASE,
				"mcp-session-id": session,
				"mcp-protocol-version": protocol,
				"content-length": String(Buffer.byteLength(text)),
			};
			const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
			return `POST ${pathname} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${text}`;
		})
		.join("");
	return new Promise((resolve, reject) => {
		const socket = connect(Number(port), hostname);
		let received = Buffer.alloc(0);
		const answers: { session: string | undefined; body: string }[] = [];
		const timer = setTimeout(() => socket.destroy(new Error("pipelined answers incomplete in 20 s")), 20_000);
		socket.on("data", (chunk: Buffer) => {
			received = Buffer.concat([received, chunk]);
			for (;;) {
				const end = received.indexOf("\r\n\r\n");
				if (end < 0) break;
				const head = received.subarray(0, end).toString("latin1");
				const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN);
				if (Number.isNaN(length)) return socket.destroy(new Error(`an answer without a length: ${head}`));
				if (received.length < end + 4 + length) break;
				const session = /\r\nmcp-session-id: ([^\r]+)/i.exec(head)?.[1];
				answers.push({ session, body: received.subarray(end + 4, end + 4 + length).toString("utf8") });
				received = received.subarray(end + 4 + length);
			}
			if (answers.length === asks.length) socket.end();
		});
		socket.on("error", reject);
		socket.on("close", () => {
			clearTimeout(timer);
			resolve(answers);
		});
		socket.write(wire);
	});
}

/** Who asks: a 2025 session's id, or the headers of a stateless request. */
export type Asker = string | Record<string, string>;

/** The headers of a request in `session` (2025-11-25). */
export function headersOf(session: string): Record<string, string> {
	return { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
}

/** An initialize request body (2025-11-25). */
export function initializeBody(): unknown {
	const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } };
	return { jsonrpc: "2.0", id: 0, method: "initialize", params };
}

/**
 * The request `body` as raw HTTP/1.1 text: in a 2025 session (its id), or with the headers given (a stateless
 * 2026-07-28 request).
 */
function wireOf(url: string, session: Asker, body: unknown): string {
	const { host, pathname } = new URL(url);
	const text = JSON.stringify(body);
	const asked = typeof session === "string" ? headersOf(session) : session;
	const headers = { host, ...BASE, ...asked, "content-length": String(Buffer.byteLength(text)) };
	const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
	return `POST ${pathname} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${text}`;
}

/**
 * Sends a request and reads nothing for `stallMs`, then reads again: whether the server closed the connection
 * meanwhile (it is seen once the data before it is read), and how many bytes of the answer came before that.
 */
export async function stalledReader(
	url: string,
	session: Asker,
	body: unknown,
	stallMs: number,
): Promise<{ closed: boolean; received: number }> {
	const { hostname, port } = new URL(url);
	const socket = connect(Number(port), hostname);
	await new Promise((resolve) => socket.once("connect", resolve));
	socket.pause();
	let closed = false;
	let received = 0;
	socket.once("close", () => {
		closed = true;
	});
	socket.on("error", () => undefined);
	socket.write(wireOf(url, session, body));
	await new Promise((resolve) => setTimeout(resolve, stallMs));
	socket.on("data", (chunk: Buffer) => {
		received += chunk.length;
	});
	socket.resume();
	for (let waited = 0; !closed && waited < 20_000; waited += 100)
		await new Promise((resolve) => setTimeout(resolve, 100));
	socket.destroy();
	return { closed, received };
}

/** Sends a request, takes the first 64 KiB of the answer, then leaves (destroys the connection). */
export function leavingReader(url: string, session: Asker, body: unknown): Promise<void> {
	const { hostname, port } = new URL(url);
	const socket = connect(Number(port), hostname);
	socket.write(wireOf(url, session, body));
	let taken = 0;
	return new Promise((resolve) => {
		socket.on("data", (chunk: Buffer) => {
			taken += chunk.length;
			if (taken >= 64 * 1024) socket.destroy();
		});
		socket.on("error", () => undefined);
		socket.on("close", () => resolve());
	});
}

/** Waits until `check` holds, polling every 20 ms for at most 5 s. */
export async function waitUntil(check: () => boolean): Promise<void> {
	for (let waited = 0; waited < 5000 && !check(); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}
