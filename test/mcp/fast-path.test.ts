// Issue 23: `resources/read` and `skills/list` on an established session are answered around the SDK's transport.
// The same server is served twice, with the fast path and without it, and every answer must be the same bytes:
// the official SDK client in every protocol era, then raw requests as an attacker writes them (bad headers, wrong
// versions, unknown sessions, forged structure and cursors, batches, huge bodies), two sessions on one connection,
// slow and vanishing readers of a large answer, and the log, metrics, token and origin checks on the fast path.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, type FetchLike, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createSkillServer, type HttpRequestLog, type SkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import {
	comparable,
	type Exchange,
	headersOf,
	initialize,
	initializeBody,
	leavingReader,
	post,
	rawExchange,
	stalledReader,
	waitUntil,
} from "./fast-path-helpers.ts";
import { RAW } from "./mcp-helpers.ts";

const LEGACY = "2025-11-25";
/** A canonical URI of no file whose decoded text would close strings and objects, and break a line. */
const FORGING = "skill://alpha/%22%7D%5D%0A%E2%80%A8.md";
const TRICKY = `quote " backslash \\ \u0001\u001f del \u007f é 中 😀 \u2028 </script>\n`;
const files: Record<string, string | Uint8Array> = {
	"alpha/SKILL.md": skillMd("alpha"),
	"alpha/notes.md": TRICKY.repeat(20),
	"alpha/data.bin": randomBytes(1001),
	"alpha/big.md": TRICKY.repeat(Math.ceil((600 * 1024) / TRICKY.length)),
	"alpha/big.bin": randomBytes(300 * 1024 + 1),
	"alpha/huge.md": TRICKY.repeat(Math.ceil((6 * 1024 * 1024) / TRICKY.length)),
	"alpha/refs/deep.md": "# deep\n",
	// Grown past the read cap once the server runs (a held file grown): its reads are refused with mcp.too-large.
	"grow/SKILL.md": skillMd("grow"),
	"grow/over.md": "# small for now\n",
	...Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`s${i}/SKILL.md`, skillMd(`s${i}`)])),
};

let server: SkillServer;
let root: string;
let fast: string;
let sdk: string;
const logged: HttpRequestLog[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
	root = await writeTree(join(await tempDir(), "skills"), files);
	server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], pageSize: 2 });
	const on = await serveHttp(server, {
		port: 0,
		metrics: true,
		stallTimeoutMs: 1000,
		onRequest: (l) => logged.push(l),
	});
	const off = await serveHttp(server, { port: 0, fastPath: false });
	fast = on.url;
	sdk = off.url;
	closers.push(
		() => on.close(),
		() => off.close(),
		() => server.close(),
	);
}, 60_000);

afterAll(async () => {
	for (const close of closers) await close();
});

/** Grows the served `grow/over.md` one byte past the default 8 MiB read cap (the plan still serves it). */
function growPastCap(): void {
	writeFileSync(join(root, "grow/over.md"), Buffer.alloc(8 * 1024 * 1024 + 1, "a"));
}

/** What a client saw of one POST: status, content type, whether its length was said, and the JSON body. */
interface Seen {
	status: number;
	type: string | null;
	sized: boolean;
	body: string;
}

/** The SDK client over `url` in `protocol`, recording every POST answer it gets. */
async function recordingClient(url: string, protocol: string | undefined): Promise<{ client: Client; seen: Seen[] }> {
	const seen: Seen[] = [];
	const recording: FetchLike = async (input, init) => {
		const response = await fetch(input, init);
		const type = response.headers.get("content-type");
		if (init?.method === "POST" && type?.startsWith("application/json"))
			seen.push({
				status: response.status,
				type,
				sized: response.headers.has("content-length"),
				body: await response.clone().text(),
			});
		return response;
	};
	const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording });
	const negotiation = protocol ? { versionNegotiation: { mode: { pin: protocol } } } : {};
	const client = new Client({ name: "fast-test", version: "1" }, negotiation);
	await client.connect(transport);
	return { client, seen };
}

/** The script every client runs: reads and pages that succeed, then each error a client can provoke. */
async function script(client: Client): Promise<void> {
	const quiet = (call: Promise<unknown>) => call.catch(() => undefined);
	for (const rel of ["SKILL.md", "notes.md", "data.bin", "big.md", "big.bin", "refs/deep.md"])
		await client.readResource({ uri: `skill://alpha/${rel}` });
	let cursor: string | undefined;
	do {
		const page = (await client.request({ method: "skills/list", params: cursor ? { cursor } : {} }, RAW)) as {
			nextCursor?: string;
		};
		cursor = page.nextCursor;
	} while (cursor);
	await quiet(client.readResource({ uri: "skill://alpha/missing.md" }));
	await quiet(client.readResource({ uri: "skill://alpha/refs" }));
	await quiet(client.readResource({ uri: "skill://alpha/../s1/SKILL.md" }));
	await quiet(client.readResource({ uri: "SKILL://alpha/notes.md" }));
	await quiet(client.readResource({ uri: "not a uri" }));
	await quiet(client.request({ method: "skills/list", params: { cursor: "forged" } }, RAW));
	await quiet(client.request({ method: "skills/list", params: { cursor: 7 } }, RAW));
	await quiet(client.request({ method: "resources/read", params: { uri: 7 } }, RAW));
	await quiet(client.request({ method: "resources/read", params: {} }, RAW));
}

describe("the HTTP fast path", () => {
	it("gives the SDK client the same answers, errors included, in every protocol era", async () => {
		for (const protocol of [undefined, "2026-07-28"]) {
			const runs: Seen[][] = [];
			for (const url of [fast, sdk]) {
				const { client, seen } = await recordingClient(url, protocol);
				await script(client);
				await client.close();
				runs.push(seen);
			}
			const [viaFast = [], viaSdk = []] = runs;
			const strip = (seen: Seen[]) => seen.map(({ sized: _, ...rest }) => rest);
			const era = protocol ?? "2025";
			expect(strip(viaFast), era).toEqual(strip(viaSdk));
			expect(viaFast.length, era).toBeGreaterThan(15);
			// The fast path says a small answer's length (the SDK's are chunked): it took the four small reads that
			// succeed and the two canonical ones that miss (answered at once, not read again by the SDK) in both eras,
			// and the four pages in a session only.
			const took = viaFast.filter((seen) => seen.sized).length;
			expect(took, era).toBe(protocol === undefined ? 10 : 6);
			expect(viaSdk.some((seen) => seen.sized)).toBe(false);
		}
	}, 120_000);

	it("answers every malformed or foreign request exactly as the SDK does", async () => {
		const read = { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "skill://alpha/notes.md" } };
		const list = { jsonrpc: "2.0", id: 4, method: "skills/list", params: {} };
		const cases: {
			name: string;
			body: unknown;
			headers?: Record<string, string>;
			session?: "none" | "other";
			/** Send the other 2025 version than the session negotiated (the SDK takes any version it supports). */
			other?: boolean;
		}[] = [
			{ name: "plain read", body: read },
			{ name: "plain list", body: list },
			{ name: "accept json only", body: read, headers: { accept: "application/json" } },
			{ name: "accept sse only", body: read, headers: { accept: "text/event-stream" } },
			{ name: "text/plain body", body: read, headers: { "content-type": "text/plain" } },
			{ name: "json with charset", body: read, headers: { "content-type": "application/json; charset=utf-8" } },
			{ name: "another supported version", body: read, other: true },
			{ name: "unsupported version", body: read, headers: { "mcp-protocol-version": "1999-01-01" } },
			{ name: "unknown session", body: read, session: "other" },
			{ name: "no session", body: read, session: "none" },
			{ name: "batch of two reads", body: [read, { ...read, id: 5 }] },
			{ name: "extra member", body: { ...read, extra: true } },
			{ name: "wrong jsonrpc", body: { ...read, jsonrpc: "1.0" } },
			{ name: "null id", body: { ...read, id: null } },
			{ name: "fractional id", body: { ...read, id: 1.5 } },
			{ name: "object id", body: { ...read, id: { a: 1 } } },
			{ name: "plain read with a string id", body: { ...read, id: "x\u2028y" } },
			{ name: "params with _meta", body: { ...read, params: { ...read.params, _meta: { progressToken: 1 } } } },
			{ name: "params array", body: { ...read, params: ["skill://alpha/notes.md"] } },
			{ name: "uri number", body: { ...read, params: { uri: 1 } } },
			{ name: "uri not canonical", body: { ...read, params: { uri: "skill://alpha/./notes.md" } } },
			{ name: "plain read of an escaped uri", body: { ...read, params: { uri: "skill://alpha/%6Eotes.md" } } },
			{ name: "uri escaping the skill", body: { ...read, params: { uri: "skill://alpha/../s1/SKILL.md" } } },
			// Misses and refusals are answered by the fast path itself, with the SDK's own error, read once.
			{ name: "plain read of a missing resource", body: { ...read, params: { uri: "skill://alpha/nope.md" } } },
			{ name: "plain read of a folder", body: { ...read, params: { uri: "skill://alpha/refs" } } },
			{ name: "plain read of a file grown past the cap", body: { ...read, params: { uri: "skill://grow/over.md" } } },
			// The URI and id go into the error's text: escapes and closers must stay inside their strings.
			{
				name: "plain read of a miss with a forging uri and id",
				body: { ...read, id: 'x"}\u2028', params: { uri: FORGING } },
			},
			{ name: "forged cursor", body: { ...list, params: { cursor: "c2tpbGw6Ly9ub3BlL1NLSUxMLm1k" } } },
			{ name: "cursor not a string", body: { ...list, params: { cursor: ["a"] } } },
			{ name: "list with extra param", body: { ...list, params: { cursor: undefined, limit: 1 } } },
			{ name: "notification", body: { jsonrpc: "2.0", method: "resources/read", params: read.params } },
			{ name: "not json", body: "{" },
			{ name: "huge body", body: { ...read, params: { uri: `skill://alpha/${"a".repeat(5 * 1024 * 1024)}` } } },
		];
		growPastCap();
		for (const protocol of ["2025-06-18", LEGACY]) {
			const sessions = { fast: await initialize(fast, protocol), sdk: await initialize(sdk, protocol) };
			for (const test of cases) {
				const answers: Exchange[] = [];
				for (const [url, session] of [
					[fast, sessions.fast],
					[sdk, sessions.sdk],
				] as const) {
					const id = test.session === "other" ? `${session}x` : test.session === "none" ? undefined : session;
					const headers = {
						...(id ? { "mcp-session-id": id } : {}),
						"mcp-protocol-version": test.other ? (protocol === LEGACY ? "2025-06-18" : LEGACY) : protocol,
						...test.headers,
					};
					answers.push(await post(url, test.body, headers));
				}
				const [viaFast, viaSdk] = answers as [Exchange, Exchange];
				expect(comparable(viaFast), `${protocol} ${test.name}`).toEqual(comparable(viaSdk));
				expect(viaFast.sized, `${protocol} ${test.name}: taken by the fast path`).toBe(test.name.startsWith("plain"));
				if (test.name.endsWith("past the cap"))
					expect(JSON.parse(viaFast.body).error.data).toEqual({ code: "mcp.too-large" });
			}
		}
	}, 120_000);

	it("answers stateless 2026-07-28 reads, malformed and foreign ones included, exactly as the SDK does", async () => {
		const MODERN = "2026-07-28";
		const envelope = {
			"io.modelcontextprotocol/protocolVersion": MODERN,
			"io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
			"io.modelcontextprotocol/clientCapabilities": {},
		};
		const readOf = (uri: string, meta: unknown = envelope) => ({
			jsonrpc: "2.0",
			id: 5,
			method: "resources/read",
			params: { uri, _meta: meta },
		});
		const read = readOf("skill://alpha/notes.md");
		const { "io.modelcontextprotocol/clientCapabilities": _, ...noCapabilities } = envelope;
		const client = envelope["io.modelcontextprotocol/clientInfo"];
		/** `fast`: answered by the fast path; `refused`: with an error (a miss or a refusal), the file read once. */
		type Case = { name: string; body: unknown; headers?: Record<string, string>; fast?: boolean; refused?: boolean };
		const cases: Case[] = [
			{ name: "small text", body: read, fast: true },
			{ name: "binary", body: readOf("skill://alpha/data.bin"), fast: true },
			{ name: "large text", body: readOf("skill://alpha/big.md"), fast: true },
			{ name: "large binary", body: readOf("skill://alpha/big.bin"), fast: true },
			{ name: "string id", body: { ...read, id: "x\u2028y" }, fast: true },
			{ name: "missing resource", body: readOf("skill://alpha/nope.md"), fast: true, refused: true },
			{ name: "a folder", body: readOf("skill://alpha/refs"), fast: true, refused: true },
			{ name: "a file grown past the cap", body: readOf("skill://grow/over.md"), fast: true, refused: true },
			{
				name: "a miss with a forging uri and id",
				body: { ...readOf(FORGING), id: 'x"}\u2028' },
				fast: true,
				refused: true,
			},
			{ name: "no envelope", body: { ...read, params: { uri: "skill://alpha/notes.md" } } },
			{ name: "envelope without capabilities", body: readOf("skill://alpha/notes.md", noCapabilities) },
			{ name: "envelope with more", body: readOf("skill://alpha/notes.md", { ...envelope, progressToken: 1 }) },
			{
				name: "envelope of another version",
				body: readOf("skill://alpha/notes.md", {
					...envelope,
					"io.modelcontextprotocol/protocolVersion": "2025-11-25",
				}),
			},
			{
				name: "client info with a title",
				body: readOf("skill://alpha/notes.md", {
					...envelope,
					"io.modelcontextprotocol/clientInfo": { ...client, title: "T" },
				}),
			},
			{
				name: "client info without a version",
				body: readOf("skill://alpha/notes.md", { ...envelope, "io.modelcontextprotocol/clientInfo": { name: "raw" } }),
			},
			{
				name: "capabilities declared",
				body: readOf("skill://alpha/notes.md", {
					...envelope,
					"io.modelcontextprotocol/clientCapabilities": { sampling: {} },
				}),
			},
			{ name: "no Mcp-Method", body: read, headers: { "mcp-method": "" } },
			{ name: "another Mcp-Method", body: read, headers: { "mcp-method": "tools/call" } },
			{ name: "no Mcp-Name", body: read, headers: { "mcp-name": "" } },
			{ name: "another Mcp-Name", body: read, headers: { "mcp-name": "skill://s1/SKILL.md" } },
			{ name: "older protocol header", body: read, headers: { "mcp-protocol-version": "2025-11-25" } },
			{ name: "content type with charset", body: read, headers: { "content-type": "application/json; charset=utf-8" } },
			{ name: "json only", body: read, headers: { accept: "application/json" } },
			{ name: "unknown session", body: read, headers: { "mcp-session-id": "nope" } },
			{ name: "uri not canonical", body: readOf("skill://alpha/./notes.md") },
			{ name: "uri escaping the skill", body: readOf("skill://alpha/../s1/SKILL.md") },
			{ name: "uri with escapes", body: readOf("skill://alpha/%6Eotes.md"), fast: true },
			{ name: "batch", body: [read] },
			{ name: "notification", body: { jsonrpc: "2.0", method: "resources/read", params: read.params } },
			{ name: "object id", body: { ...read, id: { a: 1 } } },
			{ name: "fractional id", body: { ...read, id: 1.5 } },
			{ name: "extra member", body: { ...read, extra: true } },
			{ name: "not json", body: "{" },
			{ name: "huge body", body: readOf(`skill://alpha/${"a".repeat(5 * 1024 * 1024)}`) },
		];
		growPastCap();
		for (const test of cases) {
			const uri = (test.body as { params?: { uri?: unknown } }).params?.uri;
			const headers: Record<string, string> = {
				"mcp-protocol-version": MODERN,
				"mcp-method": "resources/read",
				...(typeof uri === "string" ? { "mcp-name": uri } : {}),
				...test.headers,
			};
			for (const [name, value] of Object.entries(headers)) if (value === "") delete headers[name];
			const viaFast = await post(fast, test.body, headers);
			const viaSdk = await post(sdk, test.body, headers);
			expect(comparable(viaFast), test.name).toEqual(comparable(viaSdk));
			// The SDK's answers are chunked; the fast path says a small answer's length.
			const small = test.fast && !test.name.startsWith("large");
			expect(viaFast.sized, `${test.name}: taken by the fast path`).toBe(Boolean(small));
			if (test.fast && !test.refused) expect(JSON.parse(viaFast.body).result.contents, test.name).toHaveLength(1);
			if (test.refused) expect(JSON.parse(viaFast.body).error.code, test.name).toBe(-32602);
		}
	}, 120_000);

	it("keeps two sessions on one keep-alive connection apart, pipelined", async () => {
		const a = await initialize(fast, LEGACY);
		const b = await initialize(fast, LEGACY);
		const ask = (session: string, id: number, rel: string) => ({
			session,
			body: { jsonrpc: "2.0", id, method: "resources/read", params: { uri: `skill://alpha/${rel}` } },
		});
		const answers = await rawExchange(
			fast,
			[ask(a, 1, "notes.md"), ask(b, 2, "SKILL.md"), ask(a, 3, "refs/deep.md")],
			LEGACY,
		);
		expect(answers.map((answer) => answer.session)).toEqual([a, b, a]);
		const contents = answers.map(
			(answer) => JSON.parse(answer.body) as { id: number; result: { contents: { text: string }[] } },
		);
		expect(contents.map((answer) => answer.id)).toEqual([1, 2, 3]);
		expect(contents[0]?.result.contents[0]?.text).toBe(files["alpha/notes.md"]);
		expect(contents[1]?.result.contents[0]?.text).toBe(files["alpha/SKILL.md"]);
		expect(contents[2]?.result.contents[0]?.text).toBe("# deep\n");
	}, 60_000);

	/** A 2025 session's id, or the headers and envelope of a stateless 2026-07-28 read of `uri`. */
	const askers = async (uri: string) => {
		const envelope = {
			"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
			"io.modelcontextprotocol/clientCapabilities": {},
		};
		const modern = { "mcp-protocol-version": "2026-07-28", "mcp-method": "resources/read", "mcp-name": uri };
		return [
			{ asker: await initialize(fast, LEGACY), params: { uri } },
			{ asker: modern, params: { uri, _meta: envelope } },
		];
	};

	it("closes a reader that never drains a large fast answer, and serves the others meanwhile", async () => {
		for (const { asker, params } of await askers("skill://alpha/huge.md")) {
			const ask = { jsonrpc: "2.0", id: 1, method: "resources/read", params };
			// The server's stall timeout is 1 s: the reader takes nothing for 3.
			const stalled = stalledReader(fast, asker, ask, 3000);
			const session = typeof asker === "string" ? asker : await initialize(fast, LEGACY);
			const small = { ...ask, params: { uri: "skill://alpha/notes.md" } };
			expect(JSON.parse((await post(fast, small, headersOf(session))).body).result.contents[0].text).toBe(
				files["alpha/notes.md"],
			);
			const { closed, received } = await stalled;
			expect(closed).toBe(true);
			expect(received).toBeGreaterThan(0);
			expect(received).toBeLessThan(Buffer.byteLength(JSON.stringify(files["alpha/huge.md"])));
		}
	}, 60_000);

	it("gives the exact bytes of a large answer after clients left in the middle of theirs", async () => {
		for (const { asker, params } of await askers("skill://alpha/huge.md")) {
			const ask = { jsonrpc: "2.0", id: 2, method: "resources/read", params };
			await Promise.all([1, 2, 3].map(() => leavingReader(fast, asker, ask)));
			const headers = typeof asker === "string" ? headersOf(asker) : asker;
			const [first, second] = await Promise.all([post(fast, ask, headers), post(fast, { ...ask, id: 3 }, headers)]);
			expect(JSON.parse(first?.body ?? "").result.contents[0].text).toBe(files["alpha/huge.md"]);
			expect(JSON.parse(second?.body ?? "").result.contents[0].text).toBe(files["alpha/huge.md"]);
		}
	}, 60_000);

	it("gives held (warm) skills/list pages the same bytes on and off, and a changed entry anew", async () => {
		const tricky: Record<string, string> = {};
		for (let i = 0; i < 12; i++) {
			tricky[`w${i}/SKILL.md`] = skillMd(`w${i}`, `Does ${TRICKY.trim()} things, number ${i}.`);
			tricky[`w${i}/notes.md`] = TRICKY;
		}
		const root = await writeTree(join(await tempDir(), "skills"), tricky);
		// Held entries stand only for files changed well before (the racy margin): let the tree settle.
		await new Promise((resolve) => setTimeout(resolve, 2200));
		const warm = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], watch: false });
		const on = await serveHttp(warm, { port: 0 });
		const off = await serveHttp(warm, { port: 0, fastPath: false });
		closers.unshift(
			() => on.close(),
			() => off.close(),
			() => warm.close(),
		);
		const list = { jsonrpc: "2.0", id: "page", method: "skills/list", params: {} };
		const sessions = { on: await initialize(on.url, LEGACY), off: await initialize(off.url, LEGACY) };
		const answer = async (url: string, session: string) => {
			const got = await post(url, list, headersOf(session));
			return { sized: got.sized, body: got.body };
		};
		// Built by the fast path, then held: the SDK's bytes, then the fast path's from the held entries' texts.
		const first = await answer(on.url, sessions.on);
		const viaSdk = await answer(off.url, sessions.off);
		const held = await answer(on.url, sessions.on);
		expect(first.sized && held.sized && !viaSdk.sized).toBe(true);
		expect(first.body).toBe(viaSdk.body);
		expect(held.body).toBe(viaSdk.body);
		expect(JSON.parse(held.body).result.skills).toHaveLength(12);
		writeFileSync(join(root, "w3/notes.md"), `${TRICKY}grown\n`);
		const changed = await answer(on.url, sessions.on);
		expect(changed.body).not.toBe(held.body);
		expect(changed.body).toBe((await answer(off.url, sessions.off)).body);
	}, 60_000);

	it("logs and counts fast answers as before, and keeps the token and origin checks in front", async () => {
		const session = await initialize(fast, LEGACY);
		const ask = { jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri: "skill://alpha/notes.md" } };
		logged.length = 0;
		const read = await post(fast, ask, headersOf(session));
		expect(read.sized).toBe(true);
		await waitUntil(() => logged.length > 0);
		expect(logged[0]).toMatchObject({ method: "resources/read", skill: "alpha", status: 200, session });
		const metrics = await fetch(fast.replace(/\/mcp$/, "/metrics")).then((response) => response.text());
		expect(metrics).toMatch(/skillset_mcp_requests_total\{method="resources\/read",status="200"\} [1-9]/);
		expect((await post(fast, ask, { ...headersOf(session), origin: "http://evil.example" })).status).toBe(403);

		const guarded = await serveHttp(server, { port: 0, token: "s3cret" });
		closers.unshift(() => guarded.close());
		const auth = { authorization: "Bearer s3cret" };
		const opened = await post(guarded.url, initializeBody(), auth);
		const headers = { ...auth, ...headersOf(opened.session ?? "") };
		expect((await post(guarded.url, ask, headers)).sized).toBe(true);
		const { authorization: _, ...tokenless } = headers;
		const refused = await post(guarded.url, ask, tokenless);
		expect(refused.status).toBe(401);
		expect(refused.body).not.toContain("deep");
		expect((await post(guarded.url, ask, { ...headers, authorization: "Bearer wrong" })).status).toBe(401);
	}, 60_000);
});
