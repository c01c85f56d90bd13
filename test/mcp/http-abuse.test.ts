// Clients that misuse the Streamable HTTP endpoint: refused initializes must not leave servers behind.
import { request } from "node:http";
import type { McpServer, Transport } from "@modelcontextprotocol/server";
import { createSkillServer, type SkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

/** A raw `initialize` POST with the given Accept header; resolves to the status. */
function initialize(url: string, accept = "application/json, text/event-stream"): Promise<number> {
	const body = JSON.stringify({
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
	});
	return new Promise((resolve, reject) => {
		const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept } }, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on("error", reject);
		req.end(body);
	});
}

/** The skills server, with every per-connection `McpServer` that `serveHttp` connected kept for inspection. */
async function watchedServer(root: string) {
	const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
	const connected: McpServer[] = [];
	const watched: SkillServer = {
		createServer: () => server.createServer(),
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
