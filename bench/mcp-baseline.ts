// The naive baseline for resources/read in bench/mcp.ts: a bare node:http server that answers the same JSON-RPC
// requests by reading the file whole and wrapping it, with no SDK, no containment and no checks at all.
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { basename, dirname, join } from "node:path";

/** Starts the baseline on an ephemeral loopback port; resolves with its URL and a way to stop it. */
export async function startBaseline(root: string): Promise<{ url: string; close: () => Promise<void> }> {
	const dirs = new Map<string, string>();
	for (const path of await readdir(root, { recursive: true })) {
		if (basename(path) === "SKILL.md") dirs.set(basename(dirname(join(root, path))), dirname(join(root, path)));
	}
	const server: Server = createServer((req, res) => {
		let body = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => {
			body += chunk;
		});
		req.on("end", () => {
			const message = JSON.parse(body) as { id?: number; method: string; params?: { uri?: string } };
			if (message.id === undefined) {
				res.writeHead(202).end();
				return;
			}
			const uri = message.params?.uri ?? "";
			const [name = "", ...rest] = uri.slice("skill://".length).split("/");
			const result =
				message.method === "resources/read"
					? {
							contents: [
								{ uri, text: readFileSync(join(dirs.get(name) ?? "", ...rest.map(decodeURIComponent)), "utf8") },
							],
						}
					: {};
			res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "baseline" });
			res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
