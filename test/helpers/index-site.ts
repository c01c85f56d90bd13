import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { discover, type OriginProvider } from "skillset";
import { createIndexOrigin, publishSkills } from "skillset/sources";
import { afterAll } from "vitest";
import { tempDir, writeTree } from "./temp.ts";

/** A node:http peer on loopback serving a well-known index that `publish` rewrites; closed after the file's tests. */
export async function startIndexSite() {
	const site = await tempDir();
	const base = await serveFolder(site);
	/** Publishes exactly these skills (`<name>/<path>` → text): the index then lists only them. */
	const publish = async (files: Record<string, string>): Promise<void> => {
		const root = await writeTree(await tempDir(), files);
		const names = [...new Set(Object.keys(files).map((path) => path.split("/")[0] as string))];
		await publishSkills(
			names.map((name) => ({ name, description: `Does ${name} things.`, dir: join(root, name) })),
			site,
		);
	};
	/** A workspace with `local` skills and its own cache; `run` discovers them with the site as `index:acme`. */
	const workspace = async (local: Record<string, string> = {}) => {
		const cwd = await writeTree(await tempDir(), local);
		const cacheDir = await tempDir();
		const origin: OriginProvider = createIndexOrigin("acme", base, {
			cacheDir,
			limits: { maxBytes: 1 << 20, timeoutMs: 5000 },
		});
		const run = () => discover({ cwd, home: cwd, origins: [origin] });
		return { cwd, cacheDir, run };
	};
	return { base, publish, workspace };
}

/** Serves the files under `folder` on loopback until the file's tests end (404 for anything else); its base URL. */
export async function serveFolder(folder: string): Promise<string> {
	const server = createServer(async (req, res) => {
		const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
		const body = await readFile(join(folder, path)).catch(() => undefined);
		if (body === undefined) return void res.writeHead(404).end();
		res.writeHead(200).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	afterAll(() => {
		server.closeAllConnections();
		return new Promise<void>((resolve) => server.close(() => resolve()));
	});
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
