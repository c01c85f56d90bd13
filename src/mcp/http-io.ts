import type { IncomingMessage, ServerResponse } from "node:http";
import type { Lifecycle } from "./http-drain.ts";

// Node's request and response, to and from the Fetch API objects the SDK's transports speak.

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How much of a body past the cap is read and dropped before the connection is cut. */
const DRAIN_BYTES = 4 * 1024 * 1024;

/**
 * The body, or null when it is over 4 MiB. Read with listeners, not an async
 * iterator: the iterator's promises cost more than the rest of reading a small body.
 */
export function readBody(req: IncomingMessage): Promise<string | null> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const stop = () => {
			req.off("data", onData);
			req.off("end", onEnd);
			req.off("error", onError);
			req.off("close", onClose);
		};
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size <= MAX_BODY_BYTES) {
				chunks.push(chunk);
				return;
			}
			// Past the cap nothing is kept, and the 413 is answered; what is still sent is read and dropped, so that a
			// client sending a little too much hears the answer, and one that goes on is cut off.
			chunks.length = 0;
			resolve(null);
			if (size > MAX_BODY_BYTES + DRAIN_BYTES) {
				stop();
				req.destroy();
			}
		};
		const onEnd = () => {
			stop();
			resolve((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8"));
		};
		const onError = (error: Error) => {
			stop();
			reject(error);
		};
		// The client went away before the body ended.
		const onClose = () => onError(new Error("The request ended before its body"));
		req.on("data", onData);
		req.on("end", onEnd);
		req.on("error", onError);
		req.on("close", onClose);
	});
}

/** The parsed JSON body, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

// Each Fetch request's connection (its socket), for a read's share of the large-read queue; gone with the request.
const connections = new WeakMap<Request, object>();

/** The connection a Fetch request made by {@link toRequest} came on, or undefined for any other request. */
export function connectionOf(request: Request | undefined): object | undefined {
	return request === undefined ? undefined : connections.get(request);
}

/** A Fetch `Request` for `req`, aborted when the client goes away before its answer. */
export function toRequest(req: IncomingMessage, res: ServerResponse, host: string, body: string | undefined): Request {
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
	const request = new Request(url, {
		method: req.method ?? "GET",
		headers,
		signal: controller.signal,
		...(body === undefined ? {} : { body }),
	});
	connections.set(request, req.socket);
	return request;
}

/**
 * Relays `response` to `res`. An event stream is handed to `lifecycle`: when a drain ends it, the stream stops
 * between events and `finalEvent` is written last, so the client learns why it ended.
 */
export async function writeResponse(
	res: ServerResponse,
	response: Response,
	lifecycle?: Lifecycle,
	finalEvent = "",
): Promise<void> {
	res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
	if (!response.body) {
		res.end();
		return;
	}
	const reader = response.body.getReader();
	let ended = false;
	// Bodies are relayed chunk by chunk as they come (a JSON answer is usually one chunk): no copy into one buffer,
	// and an event stream starts at once.
	if (response.headers.get("content-type")?.includes("text/event-stream")) {
		res.flushHeaders();
		lifecycle?.streaming(res, () => {
			ended = true;
			reader.cancel().catch(() => undefined);
		});
	}
	res.once("close", () => {
		// The client went away mid-stream: stop reading; the cancel's own failure changes nothing.
		reader.cancel().catch(() => undefined);
	});
	for (;;) {
		const { done, value } = await reader.read();
		if (done || ended) break;
		res.write(value);
	}
	if (ended && finalEvent !== "") res.write(finalEvent);
	res.end();
}

/** A JSON-RPC error answer with no id, with `status`. */
export function sendError(
	res: ServerResponse,
	status: number,
	message: string,
	headers: Record<string, string> = {},
): void {
	const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
	res.writeHead(status, { "content-type": "application/json", ...headers });
	res.end(body);
}

/** Who opens a session, for the per-client share: the peer's address and the name the client declares. */
export function clientOf(req: IncomingMessage, initialize: unknown): string {
	const info = (initialize as { params?: { clientInfo?: { name?: unknown } } }).params?.clientInfo;
	const name = typeof info?.name === "string" ? info.name.slice(0, 200) : "";
	return `${req.socket.remoteAddress ?? ""} ${name}`;
}
