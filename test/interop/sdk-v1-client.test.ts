import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
	PromptListChangedNotificationSchema,
	ResourceListChangedNotificationSchema,
	ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, describe, expect, it } from "vitest";
import { BUILT_BIN } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// The official MCP TypeScript SDK v1 (1.32.x) client, as most hosts ship it today, against `skillset mcp`: over
// stdio (the built CLI) and over Streamable HTTP with a token. Every call a v1 host makes, with its own schemas.

const SKILLS = 7;
const PAGE = 3;

async function project(): Promise<string> {
	const files: Record<string, string> = {};
	for (let i = 0; i < SKILLS; i++) {
		const name = `skill-${i}`;
		files[`.agents/skills/${name}/SKILL.md`] = skillMd(name, `Does ${name} things when asked.`);
		files[`.agents/skills/${name}/references/notes.md`] = `notes ${i}\n`;
	}
	return writeTree(await tempDir(), files);
}

const clients: Client[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
	for (const client of clients) await client.close().catch(() => undefined);
	for (const close of closers) await close();
});

function v1Client(): Client {
	const client = new Client({ name: "v1-host", version: "1.0.0" });
	clients.push(client);
	return client;
}

/** Walks resources/list page by page, as a v1 host does: the v1 client returns one page per call. */
async function allResources(client: Client): Promise<{ uris: string[]; pages: number }> {
	const uris: string[] = [];
	let cursor: string | undefined;
	let pages = 0;
	do {
		const page = await client.listResources(cursor === undefined ? {} : { cursor });
		uris.push(...page.resources.map((r) => r.uri));
		cursor = page.nextCursor;
		pages++;
	} while (cursor !== undefined && pages < 100);
	return { uris, pages };
}

/** What every v1 host asks after initialize; the answers must parse with the v1 client's own schemas. */
async function checkSurface(client: Client): Promise<void> {
	expect(client.getServerVersion()?.name).toBe("skillset");
	expect(client.getInstructions()).toMatch(/skill-0/);
	const { uris, pages } = await allResources(client);
	expect(pages).toBe(Math.ceil(SKILLS / PAGE));
	expect(uris.sort()).toEqual(Array.from({ length: SKILLS }, (_, i) => `skill://skill-${i}/SKILL.md`));
	const templates = await client.listResourceTemplates();
	expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain("skill://{+path}");
	const read = await client.readResource({ uri: "skill://skill-2/references/notes.md" });
	expect(read.contents[0]).toMatchObject({ uri: "skill://skill-2/references/notes.md", text: "notes 2\n" });
	// Prompts page like resources: a v1 host follows the cursor itself.
	const names: string[] = [];
	let promptCursor: string | undefined;
	let promptPages = 0;
	do {
		const page = await client.listPrompts(promptCursor === undefined ? {} : { cursor: promptCursor });
		names.push(...page.prompts.map((p) => p.name));
		promptCursor = page.nextCursor;
		promptPages++;
	} while (promptCursor !== undefined && promptPages < 100);
	expect(promptPages).toBe(Math.ceil(SKILLS / PAGE));
	expect(names.sort()).toEqual(Array.from({ length: SKILLS }, (_, i) => `skill-${i}`).sort());
	const prompt = await client.getPrompt({ name: "skill-3" });
	expect(JSON.stringify(prompt.messages)).toContain("skill-3");
	const tools = await client.listTools();
	expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["load_skill", "read_skill_resource"]));
	const loaded = await client.callTool({ name: "load_skill", arguments: { name: "skill-1" } });
	expect(loaded.isError).not.toBe(true);
	expect(JSON.stringify(loaded.content)).toContain("skill-1");
}

/** Waits for each list-changed notification after a skill is added and one removed. */
async function checkNotifications(client: Client, dir: string): Promise<void> {
	const heard = { resources: 0, tools: 0, prompts: 0 };
	client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
		heard.resources++;
	});
	client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
		heard.tools++;
	});
	client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
		heard.prompts++;
	});
	await writeTree(dir, { ".agents/skills/added/SKILL.md": skillMd("added", "Arrives while connected.") });
	await until(() => heard.resources > 0 && heard.tools > 0 && heard.prompts > 0);
	expect((await allResources(client)).uris).toContain("skill://added/SKILL.md");
	const before = heard.resources;
	await rm(join(dir, ".agents/skills/skill-0"), { recursive: true });
	await until(() => heard.resources > before);
	expect((await allResources(client)).uris).not.toContain("skill://skill-0/SKILL.md");
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error("no notification in time");
		await new Promise((done) => setTimeout(done, 50));
	}
}

describe("the SDK v1 client against skillset mcp", () => {
	it("over stdio (the built CLI, watching): every call, paged resources, and list-changed notifications", async () => {
		const dir = await project();
		const client = v1Client();
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [BUILT_BIN, "mcp", dir, "--watch"],
			cwd: dir,
			env: { PATH: process.env.PATH ?? "", HOME: dir, SKILLSET_NO_CACHE: "1" },
			stderr: "ignore",
		});
		await client.connect(transport);
		// The CLI's page size is the default (100): the pagination itself is checked over HTTP below.
		expect((await client.listResources()).nextCursor).toBeUndefined();
		await checkNotifications(client, dir);
	}, 60_000);

	it("over Streamable HTTP with a token: refused without it, every call and paged resources with it", async () => {
		const dir = await project();
		const server = await createSkillServer({ cwd: dir, home: dir, watch: true, pageSize: PAGE, debounceMs: 50 });
		const http = await serveHttp(server, { port: 0, token: "interop-token" });
		closers.push(
			() => http.close(),
			() => server.close(),
		);
		const refused = v1Client();
		await expect(refused.connect(new StreamableHTTPClientTransport(new URL(http.url)))).rejects.toThrow(/bearer token/);
		const client = v1Client();
		const headers = { Authorization: "Bearer interop-token" };
		await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } }));
		await checkSurface(client);
		await checkNotifications(client, dir);
	}, 60_000);

	it("over stdio, the whole surface with the CLI's own pages", async () => {
		const dir = await project();
		const client = v1Client();
		await client.connect(
			new StdioClientTransport({
				command: process.execPath,
				args: [BUILT_BIN, "mcp", dir, "--no-watch"],
				cwd: dir,
				env: { PATH: process.env.PATH ?? "", HOME: dir, SKILLSET_NO_CACHE: "1" },
				stderr: "ignore",
			}),
		);
		const listed = await client.listResources();
		expect(listed.resources).toHaveLength(SKILLS);
		expect(client.getInstructions()).toMatch(/skill-6/);
		expect((await client.listPrompts()).prompts).toHaveLength(SKILLS);
	}, 60_000);
});
