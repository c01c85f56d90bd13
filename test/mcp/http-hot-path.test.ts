// Issue 23: the per-request checks of the HTTP fast path take shortcuts for what clients send every time (the same
// `Host`, plain skill URIs). Written as an attacker: a shortcut must never accept what the full check refuses, nor
// refuse what it accepts, however many spellings were seen before.
import { type IncomingMessage, request } from "node:http";
import { join } from "node:path";
import { createSkillServer, type HttpServing, type SkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCanonicalSkillUri } from "../../src/mcp/http-fast.ts";
import { checkRequest, digestOf, MAX_ACCEPTED_HOSTS, type RequestRules } from "../../src/mcp/http-guard.ts";
import { uriSegments } from "../../src/mcp/uri.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { initializeBody } from "./fast-path-helpers.ts";

let server: SkillServer;
let serving: HttpServing;

beforeAll(async () => {
	const root = await writeTree(join(await tempDir(), "skills"), { "alpha/SKILL.md": skillMd("alpha") });
	server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
	serving = await serveHttp(server, { port: 0 });
}, 60_000);

afterAll(async () => {
	await serving?.close();
	await server?.close();
});

/** The status of an initialize sent with exactly `host` as its `Host` header. */
function statusWithHost(host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const headers = { host, "content-type": "application/json", accept: "application/json, text/event-stream" };
		const req = request(
			{ host: "127.0.0.1", port: serving.port, path: "/mcp", method: "POST", agent: false, headers },
			(res) => {
				res.resume();
				res.on("end", () => resolve(res.statusCode ?? 0));
			},
		);
		const timer = setTimeout(() => req.destroy(new Error("no answer in 20 s")), 20_000);
		req.on("close", () => clearTimeout(timer));
		req.on("error", reject);
		req.end(JSON.stringify(initializeBody()));
	});
}

describe("the Host check on every request", () => {
	it("still refuses rebinding hosts after many accepted spellings of localhost", async () => {
		// Each port spelling is a Host the full check accepts: more than any shortcut may remember.
		for (let i = 0; i < 40; i++) expect(await statusWithHost(`localhost:${1000 + i}`)).toBe(200);
		expect(await statusWithHost(`127.0.0.1:${serving.port}`)).toBe(200);
		for (const evil of [
			"evil.example",
			`evil.example:${serving.port}`,
			`localhost.evil.example:${serving.port}`,
			`127.0.0.1.evil.example:${serving.port}`,
			`LOCALHOST.evil.example`,
			"localhost@evil.example",
		])
			expect(await statusWithHost(evil), evil).toBe(403);
		// Remembered spellings are still accepted, and a refused one stays refused when sent again.
		expect(await statusWithHost("localhost:1000")).toBe(200);
		expect(await statusWithHost("evil.example")).toBe(403);
	}, 120_000);
});

describe("the Host values a server remembers", () => {
	it("remembers none from a request the token check refused: tokenless local callers cannot fill the slots", () => {
		const rules: RequestRules = {
			loopback: true,
			hosts: [],
			origins: new Set(),
			token: digestOf("the-token"),
			acceptedHosts: new Set(),
		};
		const ask = (host: string, authorization?: string) =>
			checkRequest({ headers: { host, ...(authorization ? { authorization } : {}) } } as IncomingMessage, rules);
		// A local process without the token sends one spelling of localhost per slot, each refused.
		for (let port = 1; port <= MAX_ACCEPTED_HOSTS; port++) expect(ask(`localhost:${port}`)?.status).toBe(401);
		// An Origin refusal is no acceptance either.
		expect(
			checkRequest({ headers: { host: "localhost:99", origin: "http://evil.example" } } as IncomingMessage, rules)
				?.status,
		).toBe(403);
		// The real client's Host, sent with the token, is still the one remembered.
		expect(ask("127.0.0.1:4000", "Bearer the-token")).toBeUndefined();
		expect([...(rules.acceptedHosts ?? [])]).toEqual(["127.0.0.1:4000"]);
	});
});

describe("the canonical skill URI test", () => {
	it("agrees with the URL parser on plain, dotted, escaped, cased and malformed URIs", () => {
		const parts = [
			"a",
			"A",
			".",
			"..",
			"-",
			"_",
			"~",
			"%2e",
			"%41",
			"%",
			"/",
			"//",
			":",
			"@",
			"?",
			"#",
			"\\",
			" ",
			"é",
		];
		const uris = new Set<string>([
			"skill://alpha",
			"skill://alpha/",
			"skill://alpha/SKILL.md",
			"skill://alpha/refs/deep.md",
			"skill://alpha/./notes.md",
			"skill://alpha/../s1/SKILL.md",
			"skill://alpha/refs/..",
			"skill://alpha/refs/.",
			"skill://alpha/.hidden/x.md",
			"skill://alpha/...",
			"skill://Alpha/x.md",
			"skill://alpha:80/x.md",
			"skill://user@alpha/x.md",
			"skill:///x.md",
			"skill://alpha//x.md",
			"skill://alpha/x.md?q",
			"skill://alpha/x.md#f",
			"skill://alpha/%6Eotes.md",
			"skill://alpha/a\tb",
			"skill://xn--nxasmq6b/x",
			"skill://alpha/x\u0000",
		]);
		// Every two-part path after a skill name, from the parts above.
		for (const first of parts) for (const second of parts) uris.add(`skill://alpha/${first}${second}`);
		for (const first of parts) for (const second of parts) uris.add(`skill://alpha/${first}/${second}`);
		for (const part of parts) uris.add(`skill://${part}/x.md`);
		let canonical = 0;
		for (const uri of uris) {
			const expected = URL.canParse(uri) && new URL(uri).href === uri;
			if (expected) canonical++;
			expect(isCanonicalSkillUri(uri), JSON.stringify(uri)).toBe(expected);
		}
		expect(canonical).toBeGreaterThan(50);
	});
});

describe("skill URI segments", () => {
	it("decodes and refuses exactly as segment-by-segment decoding does, with or without escapes", () => {
		/** Every segment decoded, refused when one is empty, a dot name, a separator or NUL, or badly escaped. */
		const reference = (uri: string): string[] | undefined => {
			if (!uri.startsWith("skill://") || /[?#\\]/.test(uri)) return undefined;
			const out: string[] = [];
			for (const part of uri.slice(8).split("/")) {
				let decoded: string;
				try {
					decoded = decodeURIComponent(part);
				} catch {
					return undefined;
				}
				if (["", ".", ".."].includes(decoded) || /[/\\]/.test(decoded) || decoded.includes("\u0000")) return undefined;
				out.push(decoded);
			}
			return out;
		};
		const parts = [
			"a",
			".",
			"..",
			"",
			"%2e",
			"%2E%2e",
			"%2F",
			"%5C",
			"%00",
			"\u0000",
			"%",
			"%zz",
			"é",
			"%C3%A9",
			"b.md",
		];
		let plain = 0;
		for (const first of parts)
			for (const second of parts)
				for (const uri of [`skill://${first}/${second}`, `skill://alpha/${first}/${second}`, `skill://${first}`]) {
					if (!uri.includes("%")) plain++;
					expect(uriSegments(uri), JSON.stringify(uri)).toEqual(reference(uri));
				}
		expect(plain).toBeGreaterThan(50);
	});
});
