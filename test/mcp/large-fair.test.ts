// Issue 23: the bound on waiting large reads is shared by every client of a server. As an attacker: one connection
// floods large reads (pipelined on one socket, or many at once through the library); it may fill only its own
// share of the waiting places, so another connection's large read is still served, not refused with mcp.busy.
import { connect } from "node:net";
import { createSkillServer, type HttpServing, type SkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WAITING_LARGE_READS, MAX_WAITING_PER_CONNECTION } from "../../src/mcp/large-reads.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { headersOf, initialize, post } from "./fast-path-helpers.ts";

const BIG = "0123456789abcdef".repeat(128 * 1024); // 2 MiB: a large read
const URI = "skill://big/assets/big.txt";
const LEGACY = "2025-11-25";

let server: SkillServer;
let serving: HttpServing;
/** The same server with every request answered by the SDK (its read handler takes the connection from the request). */
let viaSdk: HttpServing;

beforeAll(async () => {
	const root = await writeTree(await tempDir(), { "big/SKILL.md": skillMd("big"), "big/assets/big.txt": BIG });
	server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], tools: false });
	serving = await serveHttp(server, { port: 0 });
	viaSdk = await serveHttp(server, { port: 0, fastPath: false });
}, 60_000);

afterAll(async () => {
	await serving?.close();
	await viaSdk?.close();
	await server?.close();
});

const readBody = (id: number) => ({ jsonrpc: "2.0", id, method: "resources/read", params: { uri: URI } });

/**
 * Pipelines `count` reads of the large file on one socket in one write; resolves with every answer's body. `onFirst`
 * runs when the first answer is whole: the flood's other reads are still waiting then.
 */
function pipelinedFlood(url: string, session: string, count: number, onFirst: () => void): Promise<string[]> {
	const { hostname, port } = new URL(url);
	const wire = Array.from({ length: count }, (_, i) => {
		const text = JSON.stringify(readBody(i + 1));
		const headers = {
			host: `${hostname}:${port}`,
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			...headersOf(session),
			"content-length": String(Buffer.byteLength(text)),
		};
		const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
		return `POST /mcp HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${text}`;
	}).join("");
	return new Promise((resolve, reject) => {
		const socket = connect(Number(port), hostname);
		let received = Buffer.alloc(0);
		const answers: string[] = [];
		const timer = setTimeout(() => socket.destroy(new Error("flood answers incomplete in 60 s")), 60_000);
		socket.on("data", (chunk: Buffer) => {
			received = Buffer.concat([received, chunk]);
			for (let answer = nextAnswer(received); answer; answer = nextAnswer(received)) {
				answers.push(answer.body);
				received = received.subarray(answer.used);
				if (answers.length === 1) onFirst();
			}
			if (answers.length === count) socket.end();
		});
		socket.on("error", reject);
		socket.on("close", () => {
			clearTimeout(timer);
			resolve(answers);
		});
		socket.write(wire);
	});
}

/** The first whole answer in `data` (its length said, or chunked) and the bytes it took; undefined until whole. */
function nextAnswer(data: Buffer): { body: string; used: number } | undefined {
	const end = data.indexOf("\r\n\r\n");
	if (end < 0) return undefined;
	const head = data.subarray(0, end).toString("latin1");
	const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
	if (length !== undefined) {
		const stop = end + 4 + Number(length);
		return data.length < stop ? undefined : { body: data.subarray(end + 4, stop).toString("utf8"), used: stop };
	}
	const parts: Buffer[] = [];
	for (let at = end + 4; ; ) {
		const line = data.indexOf("\r\n", at);
		if (line < 0) return undefined;
		const size = Number.parseInt(data.subarray(at, line).toString("latin1"), 16);
		if (data.length < line + 2 + size + 2) return undefined;
		if (size === 0) return { body: Buffer.concat(parts).toString("utf8"), used: line + 4 };
		parts.push(data.subarray(line + 2, line + 2 + size));
		at = line + 2 + size + 2;
	}
}

describe.skipIf(process.platform !== "linux")("a fair share of the large-read queue", () => {
	it("serves another connection's large read while one connection floods the queue", async () => {
		const flooder = {};
		const flood = Array.from({ length: MAX_WAITING_LARGE_READS * 2 }, () => server.direct.read(URI, flooder));
		// Every flood read has taken its place (or been refused) by now: that part runs before the first wait.
		const other = await server.direct.read(URI, {});
		expect(other).toHaveProperty("bytes");
		if ("bytes" in other) expect(Buffer.from(other.bytes).toString("latin1")).toBe(BIG);
		const answers = await Promise.all(flood);
		const served = answers.filter((answer) => "bytes" in answer).length;
		expect(served).toBeGreaterThanOrEqual(1);
		expect(served).toBeLessThanOrEqual(MAX_WAITING_PER_CONNECTION);
		for (const answer of answers) if (!("bytes" in answer)) expect(answer.data).toEqual({ code: "mcp.busy" });
		// Reads of no connection (a library caller's) share only the whole bound, as before.
		const unowned = await Promise.all(Array.from({ length: MAX_WAITING_LARGE_READS }, () => server.direct.read(URI)));
		expect(unowned.every((answer) => "bytes" in answer)).toBe(true);
	}, 120_000);

	it.each([
		["fast path", () => serving.url],
		["SDK", () => viaSdk.url],
	])(
		"gives one socket pipelining large reads its share only, and the next connection its large read (%s)",
		async (_, urlOf) => {
			const url = urlOf();
			const session = await initialize(url, LEGACY);
			const count = MAX_WAITING_LARGE_READS + 16;
			// Other connections' reads (ids of their own within the session) go out as soon as the flood's first answer is in, so they meet its reads still
			// waiting: as many as one connection's share (the flood keeps at most that many, leaving them room), while
			// without the share the flood holds every place but the one or two answered so far and they are refused.
			let others: Promise<Awaited<ReturnType<typeof post>>>[] = [];
			let waitingWhenSent = 0;
			const answers = await pipelinedFlood(url, session, count, () => {
				waitingWhenSent = count - 1;
				others = Array.from({ length: MAX_WAITING_PER_CONNECTION }, (_, i) =>
					post(url, readBody(count + 1 + i), headersOf(session)),
				);
			});
			const served = answers.filter((body) => body.includes(BIG.slice(0, 64))).length;
			const busy = answers.filter((body) => body.includes('"mcp.busy"')).length;
			expect(answers.length).toBe(count);
			expect(served + busy).toBe(count);
			expect(served).toBeGreaterThanOrEqual(1);
			expect(served).toBeLessThan(MAX_WAITING_LARGE_READS);
			expect(waitingWhenSent).toBeGreaterThan(0);
			for (const next of await Promise.all(others)) {
				expect(next.status).toBe(200);
				expect(next.body).not.toContain("mcp.busy");
				expect(JSON.parse(next.body).result.contents[0].text).toBe(BIG);
			}
		},
		120_000,
	);
});
