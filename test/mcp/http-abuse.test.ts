// Clients that misuse the Streamable HTTP endpoint: refused initializes must not leave servers behind.
import { request } from "node:http";
import { connect } from "node:net";
import type { McpServer, Transport } from "@modelcontextprotocol/server";
import { createSkillServer, type SkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { httpClient } from "./mcp-helpers.ts";

/** A raw `initialize` POST with the given Accept header; resolves to the status. */
async function initialize(url: string, accept = "application/json, text/event-stream"): Promise<number> {
	return (await post(url, initializeBody("raw"), { accept })).status;
}

function initializeBody(client: string): unknown {
	const clientInfo = { name: client, version: "1" };
	return {
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo },
	};
}

interface Answer {
	status: number;
	session?: string;
	text: string;
	headers: Record<string, string | string[] | undefined>;
}

/** A raw POST of `body` (JSON) with extra headers. */
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
	const all = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
	return new Promise((resolve, reject) => {
		const req = request(url, { method: "POST", headers: all }, (res) => {
			let text = "";
			res.on("data", (chunk: Buffer) => {
				text += chunk.toString();
			});
			res.on("end", () => {
				const id = res.headers["mcp-session-id"];
				resolve({
					status: res.statusCode ?? 0,
					text,
					headers: res.headers,
					...(typeof id === "string" ? { session: id } : {}),
				});
			});
		});
		req.on("error", reject);
		req.end(JSON.stringify(body));
	});
}

/** Opens a 2025 session as `client` (initialize, then initialized); returns its id. */
async function openSession(url: string, client: string): Promise<string> {
	const opened = await post(url, initializeBody(client));
	expect(opened.status, opened.text).toBe(200);
	const session = opened.session ?? "";
	await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders(session));
	return session;
}

function sessionHeaders(session: string): Record<string, string> {
	return { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
}

/** The status of a `tools/list` in `session`. */
async function use(url: string, session: string): Promise<number> {
	return (await post(url, { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }, sessionHeaders(session))).status;
}

/** The skills server, with every per-connection `McpServer` that `serveHttp` connected kept for inspection. */
async function watchedServer(root: string) {
	const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
	const connected: McpServer[] = [];
	const watched: SkillServer = {
		createServer: () => server.createServer(),
		direct: server.direct,
		async connect(transport: Transport) {
			const mcp = await server.connect(transport);
			connected.push(mcp);
			return mcp;
		},
		get served() {
			return server.served;
		},
		get leftOut() {
			return server.leftOut;
		},
		get report() {
			return server.report;
		},
		get snapshotAt() {
			return server.snapshotAt;
		},
		get scanMs() {
			return server.scanMs;
		},
		get cachedDigests() {
			return server.cachedDigests;
		},
		onChange: (listener) => server.onChange(listener),
		close: () => server.close(),
	};
	const serving = await serveHttp(watched, { port: 0 });
	afterAll(async () => {
		await serving.close();
		await server.close();
	});
	return { url: serving.url, connected };
}

describe("serveHttp against abusive clients", () => {
	let root: string;
	beforeAll(async () => {
		root = await writeTree(await tempDir(), { "demo/SKILL.md": skillMd("demo") });
	});

	it("closes the connection of an initialize the transport refused, so such requests cannot pile up", async () => {
		const { url, connected } = await watchedServer(root);
		for (let i = 0; i < 5; i++) expect(await initialize(url, "application/json")).toBe(406);
		expect(connected).toHaveLength(5);
		expect(connected.filter((mcp) => mcp.isConnected())).toHaveLength(0);
		expect(await initialize(url)).toBe(200);
		expect(connected.filter((mcp) => mcp.isConnected())).toHaveLength(1);
	});
});

describe("sessions are shared fairly", () => {
	let root: string;
	beforeAll(async () => {
		root = await writeTree(await tempDir(), { "demo/SKILL.md": skillMd("demo") });
	});
	const serve = async (options: { maxSessions?: number; maxSessionsPerClient?: number }) => {
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0, ...options });
		afterAll(async () => {
			await serving.close();
			await server.close();
		});
		return serving.url;
	};

	it("never holds more than the cap: a new session closes the least recently used idle one", async () => {
		const url = await serve({ maxSessions: 2 });
		const first = await openSession(url, "a");
		const second = await openSession(url, "b");
		expect(await use(url, first)).toBe(200);
		const third = await openSession(url, "c");
		expect(await use(url, second)).toBe(404);
		for (const session of [first, third]) expect(await use(url, session)).toBe(200);
	});

	it("closes sessions that stay idle, so clients that vanish hold nothing", async () => {
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0, idleSessionMs: 200 });
		try {
			const idle = await openSession(serving.url, "gone");
			expect(await use(serving.url, idle)).toBe(200);
			await new Promise((resolve) => setTimeout(resolve, 600));
			expect(await use(serving.url, idle)).toBe(404);
		} finally {
			await serving.close();
			await server.close();
		}
	});

	it("lets another client in while one client holds every session: the hog's idle ones are closed first", async () => {
		const url = await serve({ maxSessions: 4 });
		const held: string[] = [];
		for (let i = 0; i < 4; i++) held.push(await openSession(url, "hog"));
		// Another client (the official SDK client, on the 2025 revision that has sessions) still gets in.
		const { client, skills } = await httpClient(url);
		expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
		expect((await skills.list()).skills.map((skill) => skill.uri)).toEqual(["skill://demo/SKILL.md"]);
		// The hog's least recently used session made room; the rest still work.
		expect(await use(url, held[0] ?? "")).toBe(404);
		for (const session of held.slice(1)) expect(await use(url, session)).toBe(200);
	});

	it("caps the sessions of one client: opening more closes its own oldest, never another client's", async () => {
		const url = await serve({ maxSessions: 16, maxSessionsPerClient: 2 });
		const other = await openSession(url, "other");
		const hog: string[] = [];
		for (let i = 0; i < 10; i++) hog.push(await openSession(url, "hog"));
		expect(await use(url, other)).toBe(200);
		for (const session of hog.slice(0, 8)) expect(await use(url, session)).toBe(404);
		for (const session of hog.slice(8)) expect(await use(url, session)).toBe(200);
	});
});

describe("Origin on loopback", () => {
	let root: string;
	beforeAll(async () => {
		root = await writeTree(await tempDir(), { "demo/SKILL.md": skillMd("demo") });
	});
	const serve = async (allowedOrigins?: string[]) => {
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0, ...(allowedOrigins ? { allowedOrigins } : {}) });
		afterAll(async () => {
			await serving.close();
			await server.close();
		});
		return serving;
	};

	it("refuses a page on another localhost port (403), and accepts the server's own origin", async () => {
		const { url, port } = await serve();
		for (const origin of [
			"http://localhost:3000",
			`http://127.0.0.1:${port + 1}`,
			`http://localhost:${port}.evil.example`,
			`https://localhost:${port}`,
			"null",
		]) {
			expect((await post(url, initializeBody("page"), { origin })).status, origin).toBe(403);
		}
		for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`])
			expect((await post(url, initializeBody("page"), { origin })).status, origin).toBe(200);
	});

	it("accepts an origin the host configured", async () => {
		const { url } = await serve(["http://localhost:3000"]);
		expect((await post(url, initializeBody("page"), { origin: "http://localhost:3000" })).status).toBe(200);
		expect((await post(url, initializeBody("page"), { origin: "http://localhost:3001" })).status).toBe(403);
	});
});

describe("slow clients", () => {
	it("answers 413 to a body past 4 MiB and cuts off a client that keeps sending, long before the request timeout", async () => {
		const root = await writeTree(await tempDir(), { "demo/SKILL.md": skillMd("demo") });
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0, requestTimeoutMs: 120_000 });
		try {
			const { answer, sent } = await new Promise<{ answer: string; sent: number }>((resolve) => {
				let answer = "";
				let sent = 0;
				let done = false;
				const chunk = Buffer.alloc(64 * 1024, 0x20);
				const finish = () => {
					if (done) return;
					done = true;
					clearTimeout(timer);
					resolve({ answer, sent });
				};
				const socket = connect(serving.port, "127.0.0.1", () => {
					socket.write(
						`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${serving.port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 1099511627776\r\n\r\n`,
					);
					// An endless body, as fast as the server takes it (bounded: 256 MiB at most).
					const pump = () => {
						while (!done && sent < 256 * 1024 * 1024) {
							sent += chunk.length;
							if (!socket.write(chunk)) return void socket.once("drain", pump);
						}
					};
					pump();
				});
				socket.on("data", (data: Buffer) => {
					answer += data.toString();
				});
				socket.on("close", finish);
				socket.on("error", finish);
				const timer = setTimeout(() => {
					answer = `still open after ${sent} bytes`;
					socket.destroy();
					finish();
				}, 20_000);
			});
			expect(answer).toMatch(/^HTTP\/1\.1 413/);
			expect(sent).toBeLessThan(64 * 1024 * 1024);
		} finally {
			await serving.close();
			await server.close();
		}
	}, 40_000);

	it("ends a request whose body never finishes arriving, instead of holding the connection", async () => {
		const root = await writeTree(await tempDir(), { "demo/SKILL.md": skillMd("demo") });
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0, requestTimeoutMs: 500 });
		try {
			const ended = await new Promise<string>((resolve) => {
				const socket = connect(serving.port, "127.0.0.1", () => {
					socket.write(
						`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${serving.port}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"jsonrpc":`,
					);
				});
				let answer = "";
				socket.on("data", (chunk: Buffer) => {
					answer += chunk.toString();
				});
				socket.on("close", () => resolve(answer));
				socket.on("error", () => resolve(answer));
				// Bounded: a server that never ends it fails the test here.
				setTimeout(() => {
					resolve("still open");
					socket.destroy();
				}, 15_000);
			});
			expect(ended).toMatch(/^HTTP\/1\.1 408/);
		} finally {
			await serving.close();
			await server.close();
		}
	}, 30_000);
});
