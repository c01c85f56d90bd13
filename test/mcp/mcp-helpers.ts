// Shared set-up for the MCP tests: real SDK clients over stdio (the built CLI) and Streamable HTTP (loopback).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createSkillServer, type SkillServerOptions, serveHttp } from "skillset/mcp";
import { afterAll } from "vitest";
import { parse } from "yaml";

export const BIN: string = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");

/** Parses frontmatter with the `yaml` package (the SDK's own parser reads only a subset of YAML). */
export function parseFrontmatter(text: string): Record<string, unknown> {
	return parse(text) as Record<string, unknown>;
}

/** A connected client, its skills helper, and what the server wrote to stderr. */
export interface Connected {
	client: Client;
	skills: SkillsClient;
	stderr: () => string;
}

/** Spawns `node dist/cli/bin.cjs mcp ARGS` in `cwd` and connects the SDK's client over stdio, as a desktop app does. */
export async function stdioClient(
	cwd: string,
	args: string[],
	env: Record<string, string> = {},
	protocol?: string,
): Promise<Connected> {
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [BIN, "mcp", ...args],
		cwd,
		env: { PATH: process.env.PATH ?? "", HOME: cwd, NO_COLOR: "1", ...env },
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const negotiation = protocol ? { versionNegotiation: { mode: { pin: protocol } } } : {};
	const client = new Client({ name: "skillset-test", version: "1" }, negotiation);
	await client.connect(transport);
	afterAll(() => client.close());
	return { client, skills: new SkillsClient(client, { parseFrontmatter }), stderr: () => stderr };
}

/** Starts a skills server on an ephemeral 127.0.0.1 port; closed after the file's tests. */
export async function httpServer(
	options: SkillServerOptions,
	token?: string,
	maxSessions?: number,
): Promise<{ url: string }> {
	const server = await createSkillServer(options);
	const serving = await serveHttp(server, {
		port: 0,
		...(token ? { token } : {}),
		...(maxSessions ? { maxSessions } : {}),
	});
	afterAll(async () => {
		await serving.close();
		await server.close();
	});
	return { url: serving.url };
}

/** Connects the SDK's client over Streamable HTTP. */
export async function httpClient(url: string, token?: string, protocol?: string): Promise<Connected> {
	const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
	const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
	const negotiation = protocol ? { versionNegotiation: { mode: { pin: protocol } } } : {};
	const client = new Client({ name: "skillset-test", version: "1" }, negotiation);
	await client.connect(transport);
	afterAll(() => client.close());
	return { client, skills: new SkillsClient(client, { parseFrontmatter }), stderr: () => "" };
}

/** `sha256:<hex>` of a file's bytes. */
export function digestOf(path: string): string {
	return `sha256:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
}

/** Every regular file under `dir`, as sorted relative POSIX paths. */
export function filesUnder(dir: string, rel = ""): string[] {
	const found: string[] = [];
	for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
		const path = rel ? `${rel}/${entry.name}` : entry.name;
		if (entry.isDirectory()) found.push(...filesUnder(dir, path));
		else if (entry.isFile()) found.push(path);
	}
	return found.sort();
}

/** The frontmatter text of a SKILL.md (between the fences). */
export function frontmatterText(path: string): string {
	const text = readFileSync(path, "utf8");
	const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
	return match?.[1] ?? "";
}

/** The JSON-RPC error code a rejected call carried. */
export async function errorCode(call: Promise<unknown>): Promise<number | undefined> {
	try {
		await call;
	} catch (error) {
		return (error as { code?: number }).code;
	}
	return undefined;
}

/** Waits until `check` returns true, polling every 50 ms for at most `ms`. */
export async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
	const until = Date.now() + ms;
	while (Date.now() < until) {
		if (check()) return true;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return check();
}

/** A standard schema that takes any result as it is (to see a raw page; `SkillsClient.list` follows cursors). */
export const RAW = {
	"~standard": { version: 1 as const, vendor: "skillset-test", validate: (value: unknown) => ({ value }) },
};
