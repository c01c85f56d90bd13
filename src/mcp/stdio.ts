import { PassThrough, type Readable, type Writable } from "node:stream";
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { SkillServer } from "./server.ts";
import { splitLarge, stringSlices } from "./stdio-large.ts";

/** The largest stdio message, in bytes (the SDK's limit, named here so the message can say it). */
export const STDIO_MAX_MESSAGE_BYTES: number = 10 * 1024 * 1024;
/** How long requests still being answered when stdin ends may take before the connection closes anyway. */
const DRAIN_MS = 10_000;

/** Options for {@link serveSkillsStdio}. */
export interface StdioServeOptions {
	/** Default `process.stdin`. */
	stdin?: Readable;
	/** Default `process.stdout`. */
	stdout?: Writable;
	/** Receives errors that do not end the connection (a line that is not a JSON-RPC message, ...). */
	onError?: (error: Error) => void;
	/** Ends the connection when it aborts (SIGINT, SIGTERM). */
	signal?: AbortSignal;
}

/** How a stdio connection ended: the client left (or the signal fired), or the transport failed and why. */
export type StdioEnd = { failed: false } | { failed: true; message: string };

/**
 * Serves `server` over stdio (both protocol eras, as the SDK's `serveStdio`) until the client closes stdin, the
 * signal aborts, or the transport fails. A failure (a message over 10 MiB, a write error on stdout) ends the
 * connection and resolves with a sentence saying why: it never leaves an await unsettled or the process hanging.
 */
export async function serveSkillsStdio(server: SkillServer, options: StdioServeOptions = {}): Promise<StdioEnd> {
	const stdin = options.stdin ?? process.stdin;
	// The transport reads a copy of stdin that ends only once the requests already received are answered: a client
	// that writes its requests and closes stdin (`cat requests | skillset mcp`) still gets every answer.
	const input = new PassThrough();
	stdin.pipe(input, { end: false });
	const wire = new WatchedStdio(input, options.stdout ?? process.stdout);
	const ended = () => void wire.drained(DRAIN_MS).then(() => input.end());
	stdin.once("end", ended);
	const handle = serveStdio(() => server.createServer(), {
		transport: wire,
		onerror: (error) => options.onError?.(error),
	});
	const stop = () => void handle.close();
	options.signal?.addEventListener("abort", stop, { once: true });
	if (options.signal?.aborted) stop();
	const failure = await wire.closed;
	options.signal?.removeEventListener("abort", stop);
	stdin.off("end", ended);
	stdin.unpipe(input);
	await handle.close();
	// The transport stops reading on failure; a client that keeps writing then gets EPIPE instead of waiting forever.
	if (failure) stdin.destroy();
	return failure ? { failed: true, message: describeFailure(failure) } : { failed: false };
}

/**
 * The SDK's stdio transport, watched: `closed` resolves when it closes, with the error that closed it. The transport
 * reports a fatal error and then closes in the same turn (a message over the limit, an error writing stdout); any
 * other error it reports (a line that is not a message) leaves it open.
 */
class WatchedStdio implements Transport {
	readonly #inner: StdioServerTransport;
	readonly closed: Promise<Error | undefined>;
	#justFailed: Error | undefined;
	#resolve: (failure: Error | undefined) => void = () => undefined;
	/** Ids of requests received and not yet answered. */
	readonly #unanswered = new Set<string | number>();
	readonly #stdout: Writable;
	#tail: Promise<void> = Promise.resolve();
	#closed = false;
	#onAnswered: (() => void) | undefined;
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

	constructor(stdin: Readable, stdout: Writable) {
		this.#inner = new StdioServerTransport(stdin, stdout, { maxBufferSize: STDIO_MAX_MESSAGE_BYTES });
		this.#stdout = stdout;
		this.closed = new Promise((resolve) => {
			this.#resolve = resolve;
		});
		this.#inner.onmessage = (message) => {
			if ("method" in message && "id" in message) this.#unanswered.add(message.id);
			this.onmessage?.(message);
		};
		this.#inner.onerror = (error) => {
			this.#justFailed = error;
			queueMicrotask(() => {
				this.#justFailed = undefined;
			});
			this.onerror?.(error);
		};
		this.#inner.onclose = () => {
			this.#closed = true;
			this.#resolve(this.#justFailed);
			this.onclose?.();
		};
	}

	start(): Promise<void> {
		return this.#inner.start();
	}

	send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
		const id = "method" in message || !("id" in message) ? undefined : message.id;
		if (id !== undefined && id !== null && this.#unanswered.delete(id)) this.#onAnswered?.();
		// Messages go out one after another: a large answer written in slices is never interleaved with another line.
		const write = () => this.#write(message);
		const sent = this.#tail.then(write, write);
		this.#tail = sent.catch(() => undefined);
		return sent;
	}

	/** Writes one message: a large `resources/read` answer in slices, between which other work is served. */
	async #write(message: JSONRPCMessage): Promise<void> {
		const split = splitLarge(message);
		if (!split) return this.#inner.send(message);
		if (this.#closed) throw new Error("the stdio connection is closed");
		await writeLine(this.#stdout, split.before);
		for (const slice of stringSlices(split.value)) {
			await writeLine(this.#stdout, slice);
			await new Promise((resolve) => setImmediate(resolve));
		}
		await writeLine(this.#stdout, split.after);
	}

	/** Resolves when every request received so far is answered, or after `ms`. */
	drained(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(done, ms);
			function done(): void {
				clearTimeout(timer);
				resolve();
			}
			this.#onAnswered = () => {
				if (this.#unanswered.size === 0) done();
			};
			this.#onAnswered();
		});
	}

	close(): Promise<void> {
		return this.#inner.close();
	}
}

/** Writes `text` to `out`, waiting for it to drain when its buffer is full; rejects when `out` fails meanwhile. */
function writeLine(out: Writable, text: string): Promise<void> {
	return new Promise((resolve, reject) => {
		const failed = (error: Error) => {
			out.off("drain", drained);
			reject(error);
		};
		const drained = () => {
			out.off("error", failed);
			resolve();
		};
		out.once("error", failed);
		if (out.write(text)) drained();
		else out.once("drain", drained);
	});
}

function describeFailure(error: Error): string {
	if (/exceeded maximum size/.test(error.message))
		return `the client sent a message over the 10 MiB limit (${STDIO_MAX_MESSAGE_BYTES} bytes); the connection is closed`;
	const code = (error as NodeJS.ErrnoException).code;
	return `the connection failed: ${code ? `${code} ` : ""}${error.message}`;
}
