// Issue 23: large `resources/read` answers over HTTP are written in slices by the server itself (the SDK would
// serialize 8 MiB in one `JSON.stringify` and hold every other request meanwhile). The official SDK client reads the
// same files from the built CLI over HTTP (both protocol eras) and over stdio (where the SDK writes the answer) and
// gets the same contents: text that needs JSON escaping, multi-byte characters across slice boundaries, base64.
// Then the attacker's side: a reader that never drains, a client that leaves mid-answer, a file swapped for a link
// while it is read, a file grown past the read cap.
import { randomBytes } from "node:crypto";
import { readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { connectClient, type Instance, startInstance } from "./deploy-helpers.ts";
import { stdioClient } from "./mcp-helpers.ts";

const MODERN = "2026-07-28";
/** Text with every character JSON escapes (all controls but NUL), multi-byte ones, in a run of odd length. */
const CONTROLS = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join("");
const TRICKY = `quote " backslash \\ ${CONTROLS} del \u007f é 中 😀 \u2028 \u2029 </script> `;

let ws: string;
let root: string;
let instance: Instance;
let url: string;
const files: Record<string, string | Uint8Array> = {};

beforeAll(async () => {
	ws = await tempDir();
	files["big/SKILL.md"] = skillMd("big");
	files["big/assets/tricky.md"] = TRICKY.repeat(Math.ceil((3 * 1024 * 1024) / TRICKY.length));
	files["big/assets/ascii.txt"] = `${"lorem ipsum dolor sit amet ".repeat(37)}\n`.repeat(7000);
	// 2 MiB + 1: base64 of a length that is no multiple of 3 ends in padding.
	files["big/assets/data.bin"] = randomBytes(2 * 1024 * 1024 + 1);
	files["big/assets/small.md"] = TRICKY;
	// Its answer (7 MB and more) is larger than what the kernel's socket buffers can hold for a client that reads nothing.
	files["huge/SKILL.md"] = skillMd("huge");
	files["huge/assets/huge.md"] = TRICKY.repeat(Math.ceil((6 * 1024 * 1024) / TRICKY.length));
	files["other/SKILL.md"] = skillMd("other");
	files["other/notes.md"] = "# Notes\n";
	root = await writeTree(join(ws, "skills"), files);
	instance = await startInstance(ws, ["--no-default-roots", "--root", "skills"]);
	url = `${instance.base}/mcp`;
}, 60_000);

afterAll(() => instance?.child.kill("SIGTERM"));

type Content = { uri: string; mimeType?: string; text?: string; blob?: string };

async function readAll(client: Client): Promise<Content[]> {
	const read: Content[] = [];
	for (const rel of ["tricky.md", "ascii.txt", "data.bin", "small.md"]) {
		const answer = await client.readResource({ uri: `skill://big/assets/${rel}` });
		read.push(...(answer.contents as Content[]));
	}
	return read;
}

describe("large resources/read answers written in slices", () => {
	it("gives the SDK client over HTTP (both eras) exactly what the SDK gives over stdio", async () => {
		const stdio = await stdioClient(ws, ["--no-default-roots", "--root", "skills"]);
		const expected = await readAll(stdio.client);
		expect(expected[0]?.text).toBe(files["big/assets/tricky.md"]);
		expect(expected[1]?.text).toBe(files["big/assets/ascii.txt"]);
		expect(Buffer.from(expected[2]?.blob ?? "", "base64").equals(files["big/assets/data.bin"] as Uint8Array)).toBe(
			true,
		);
		for (const protocol of [undefined, MODERN]) {
			const { client } = await connectClient(url, protocol);
			const got = await readAll(client);
			await client.close();
			expect(got.length).toBe(expected.length);
			for (const [i, content] of got.entries()) expect(content, `${protocol ?? "2025"} #${i}`).toEqual(expected[i]);
		}
	}, 120_000);

	it("sends a body that is one valid JSON-RPC answer, with no length header that would cut it", async () => {
		const { status, headers, text } = await rawRead(url, "skill://big/assets/tricky.md");
		expect(status).toBe(200);
		expect(headers["content-length"]).toBeUndefined();
		const answer = JSON.parse(text) as { id: number; result: { contents: Content[] } };
		expect(answer.id).toBe(7);
		expect(answer.result.contents[0]?.text).toBe(files["big/assets/tricky.md"]);
		expect(text).not.toContain("skillset-deferred-");
	}, 60_000);
});

describe("large answers under attack", () => {
	it("closes the connection of a reader that never drains, holding only a slice of the answer", async () => {
		const server = await createSkillServer({ cwd: ws, home: ws, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0, stallTimeoutMs: 500 });
		try {
			await expectStalledReaderCut(serving.url);
		} finally {
			await serving.close();
			await server.close();
		}
	}, 60_000);

	it("takes the stall timeout from the CLI's --stall-timeout, and refuses it without --http", async () => {
		const stalling = await startInstance(ws, ["--no-default-roots", "--root", "skills", "--stall-timeout", "500"]);
		try {
			await expectStalledReaderCut(`${stalling.base}/mcp`);
		} finally {
			stalling.child.kill("SIGTERM");
		}
		for (const bad of ["0", "1.5", "soon"]) {
			const run = await runBuilt(["mcp", "--http", "127.0.0.1:0", "--stall-timeout", bad], { cwd: ws });
			expect(run.exitCode, bad).toBe(2);
			expect(run.stderr).toContain("--stall-timeout must be a whole number of at least 1");
		}
		const run = await runBuilt(["mcp", "--stall-timeout", "500"], { cwd: ws });
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain("--stall-timeout and --allow-host need --http");
	}, 90_000);

	it("gives a reader that takes the answer slowly exactly the bytes (a slice's buffer is reused only once sent)", async () => {
		// Text with few escapes (a newline per line): its slices are escaped into one reused buffer.
		const { status, text } = await rawRead(url, "skill://big/assets/ascii.txt", 2);
		expect(status).toBe(200);
		const answer = JSON.parse(text) as { result: { contents: Content[] } };
		expect(answer.result.contents[0]?.text).toBe(files["big/assets/ascii.txt"]);
	}, 60_000);

	it("closes nothing twice and leaks no descriptor when clients leave mid-answer", async () => {
		const fds = () => readdirSync(`/proc/${instance.child.pid}/fd`).length;
		const { port } = new URL(url);
		const readBig = async () => {
			const { client } = await connectClient(url);
			const answer = await client.readResource({ uri: "skill://big/assets/ascii.txt" });
			expect((answer.contents[0] as Content).text).toBe(files["big/assets/ascii.txt"]);
			await client.close();
		};
		// A round of each first, so descriptors opened once (the thread pool's, a kept-alive client socket) are counted.
		await leaveMidAnswer(Number(port));
		await readBig();
		const before = fds();
		for (let i = 0; i < 20; i++) await leaveMidAnswer(Number(port));
		await readBig();
		await new Promise((resolve) => setTimeout(resolve, 200));
		// A leak would be one descriptor (a file or a socket) per client that left: 20.
		expect(fds()).toBeLessThan(before + 5);
		expect(instance.child.exitCode).toBeNull();
	}, 60_000);

	it("never serves what a link swapped in for the file points to", async () => {
		const outside = join(ws, "outside.txt");
		writeFileSync(outside, "SECRET ".repeat(100_000));
		const file = join(root, "big", "assets", "ascii.txt");
		const link = join(ws, "link-to-outside");
		const kept = join(ws, "kept.txt");
		symlinkSync(outside, link);
		const { client } = await connectClient(url, MODERN);
		let swapping = true;
		let swapped = false;
		const swapper = (async () => {
			while (swapping) {
				// The file and the link change places, again and again, while the client reads.
				renameSync(file, kept);
				renameSync(link, file);
				swapped = true;
				await new Promise((resolve) => setImmediate(resolve));
				renameSync(file, link);
				renameSync(kept, file);
				await new Promise((resolve) => setImmediate(resolve));
			}
		})();
		let served = 0;
		try {
			for (let i = 0; i < 30; i++) {
				const answer = await client.readResource({ uri: "skill://big/assets/ascii.txt" }).catch(() => undefined);
				const text = (answer?.contents[0] as Content | undefined)?.text;
				if (text === undefined) continue;
				served++;
				expect(text).not.toContain("SECRET");
				expect(text).toBe(files["big/assets/ascii.txt"]);
			}
		} finally {
			swapping = false;
			await swapper;
			await client.close();
		}
		expect(swapped).toBe(true);
		expect(served).toBeGreaterThan(0);
	}, 120_000);

	it("answers a file grown past the read cap with an error that says so", async () => {
		const { client } = await connectClient(url);
		writeFileSync(join(root, "other", "notes.md"), "x".repeat(8 * 1024 * 1024 + 1));
		try {
			const error = await client.readResource({ uri: "skill://other/notes.md" }).then(
				() => undefined,
				(caught: Error & { data?: { code?: string } }) => caught,
			);
			expect(error?.message).toMatch(/over the 8388608-byte read cap/);
			expect(error?.data?.code).toBe("mcp.too-large");
		} finally {
			writeFileSync(join(root, "other", "notes.md"), "# Notes\n");
			await client.close();
		}
	}, 60_000);
});

/**
 * Reads the huge file from `endpoint` on a socket that takes nothing; another client is served meanwhile, and the
 * server, once it gives up on the stalled answer, has closed the connection with only a part of it sent.
 */
async function expectStalledReaderCut(endpoint: string): Promise<void> {
	const { port } = new URL(endpoint);
	const socket = connect(Number(port), "127.0.0.1");
	await new Promise((resolve) => socket.once("connect", resolve));
	socket.pause();
	let closed = false;
	socket.once("close", () => {
		closed = true;
	});
	socket.write(rawRequest(`127.0.0.1:${port}`, "skill://huge/assets/huge.md"));
	// Another client is served meanwhile.
	const { client } = await connectClient(endpoint);
	const small = await client.readResource({ uri: "skill://other/notes.md" });
	expect((small.contents[0] as Content).text).toBe("# Notes\n");
	await client.close();
	// The server gives up on the stalled answer; once the client reads again, it finds only a part of it.
	await new Promise((resolve) => setTimeout(resolve, 3000));
	let received = 0;
	socket.on("data", (chunk: Buffer) => {
		received += chunk.length;
	});
	socket.on("error", () => undefined);
	socket.resume();
	const deadline = Date.now() + 20_000;
	while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
	expect(closed).toBe(true);
	expect(received).toBeGreaterThan(0);
	expect(received).toBeLessThan(Buffer.byteLength(JSON.stringify(files["huge/assets/huge.md"])));
}

/** A 2026-07-28 `resources/read` as raw HTTP/1.1 bytes. */
function rawRequest(host: string, uri: string): string {
	const meta = {
		"io.modelcontextprotocol/protocolVersion": MODERN,
		"io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
		"io.modelcontextprotocol/clientCapabilities": {},
	};
	const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/read", params: { uri, _meta: meta } });
	return [
		"POST /mcp HTTP/1.1",
		`host: ${host}`,
		"content-type: application/json",
		"accept: application/json, text/event-stream",
		`mcp-protocol-version: ${MODERN}`,
		"mcp-method: resources/read",
		`mcp-name: ${uri}`,
		`content-length: ${Buffer.byteLength(body)}`,
		"connection: close",
		"",
		body,
	].join("\r\n");
}

/**
 * The raw answer to a 2026-07-28 `resources/read`: status, headers and the body as text. With `pauseMs`, the reader
 * stops for that long after every chunk it receives (a slow client: the server's writes back up).
 */
function rawRead(
	target: string,
	uri: string,
	pauseMs = 0,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
	const { host, port } = new URL(target);
	return new Promise((resolve, reject) => {
		const socket = connect(Number(port), "127.0.0.1");
		const chunks: Buffer[] = [];
		socket.on("data", (chunk: Buffer) => {
			chunks.push(chunk);
			if (pauseMs === 0) return;
			socket.pause();
			setTimeout(() => socket.resume(), pauseMs);
		});
		socket.once("error", reject);
		socket.once("end", () => {
			const all = Buffer.concat(chunks);
			const split = all.indexOf("\r\n\r\n");
			const [statusLine = "", ...lines] = all.subarray(0, split).toString("latin1").split("\r\n");
			const headers = Object.fromEntries(
				lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
			);
			const body = all.subarray(split + 4);
			resolve({ status: Number(statusLine.split(" ")[1]), headers, text: dechunk(body, headers) });
		});
		socket.write(rawRequest(host, uri));
	});
}

/** The body of a chunked transfer, joined (or the body as it is), as text. */
function dechunk(bytes: Buffer, headers: Record<string, string>): string {
	if (headers["transfer-encoding"] !== "chunked") return bytes.toString("utf8");
	const parts: Buffer[] = [];
	let at = 0;
	for (;;) {
		const lineEnd = bytes.indexOf("\r\n", at);
		const size = Number.parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
		if (!(size > 0)) break;
		parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
		at = lineEnd + 2 + size + 2;
	}
	return Buffer.concat(parts).toString("utf8");
}

/** Asks for a large file over a raw socket and closes the socket after the first bytes of the answer. */
function leaveMidAnswer(port: number): Promise<void> {
	return new Promise((resolve, reject) => {
		const socket = connect(port, "127.0.0.1");
		socket.once("error", reject);
		socket.once("data", () => socket.destroy());
		socket.once("close", () => resolve());
		socket.write(rawRequest(`127.0.0.1:${port}`, "skill://big/assets/tricky.md"));
	});
}
