// The server over Streamable HTTP on an ephemeral loopback port, driven by the official SDK client (issue 12).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import type { Skill } from "@modelcontextprotocol/client/ext/skills";
import { createLock, discover, loadDefaultTokenizer } from "skillset";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SHARED_DIR, skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import {
	BIN,
	digestOf,
	errorCode,
	filesUnder,
	frontmatterText,
	httpClient,
	httpServer,
	RAW,
	waitFor,
} from "./mcp-helpers.ts";

const CORPUS = join(SHARED_DIR, "corpus");
const CORPUS_ROOTS = [
	join(CORPUS, "anthropic-skills"),
	...[".curated", ".system", ".experimental"].map((folder) => join(CORPUS, "openai-skills", "skills", folder)),
];

/** Corpus skill folders whose frontmatter an SEP-2640 client accepts (description of 1-1,024 characters). */
function servableCorpusSkills(): Map<string, string> {
	const skills = new Map<string, string>();
	for (const root of CORPUS_ROOTS) {
		for (const name of readdirSync(root)) {
			const frontmatter = parse(frontmatterText(join(root, name, "SKILL.md"))) as { description: string };
			if ([...frontmatter.description].length <= 1024) skills.set(name, join(root, name));
		}
	}
	return skills;
}

/** A raw HTTP POST of `initialize` with the given headers: the status and the headers of the answer. */
function rawInitialize(url: string, headers: Record<string, string>): Promise<{ status: number; auth?: string }> {
	const body = JSON.stringify({
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
	});
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: "POST",
				headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
			},
			(res) => {
				res.resume();
				resolve({ status: res.statusCode ?? 0, auth: res.headers["www-authenticate"] });
			},
		);
		req.on("error", reject);
		req.end(body);
	});
}

describe("skills/list over the shared corpus with a small page size", () => {
	let url: string;
	beforeAll(async () => {
		const cwd = await tempDir();
		({ url } = await httpServer({ cwd, home: cwd, defaultRoots: false, roots: CORPUS_ROOTS, pageSize: 4 }));
	});

	it("pages atomically through every servable skill, each entry complete, with digests of the files", async () => {
		const { client } = await httpClient(url);
		const expected = servableCorpusSkills();
		const seen: string[] = [];
		let cursor: string | undefined;
		let pages = 0;
		do {
			const params = cursor === undefined ? {} : { cursor };
			const page = (await client.request({ method: "skills/list", params }, RAW)) as {
				skills: Skill[];
				nextCursor?: string;
			};
			expect(page.skills.length).toBeLessThanOrEqual(4);
			for (const entry of page.skills) {
				const name = String(entry.frontmatter.name);
				const dir = expected.get(name) ?? "";
				seen.push(name);
				expect(entry.frontmatter).toEqual(parse(frontmatterText(join(dir, "SKILL.md"))));
				const resources = entry.resources === "dynamic" ? [] : entry.resources;
				expect(resources.map((r) => r.uri).sort()).toEqual(
					filesUnder(dir)
						.map((file) => `skill://${name}/${file.split("/").map(encodeURIComponent).join("/")}`)
						.sort(),
				);
				for (const resource of resources)
					expect(resource.digest).toBe(
						digestOf(join(dir, decodeURIComponent(resource.uri.slice(`skill://${name}/`.length)))),
					);
			}
			cursor = page.nextCursor;
			pages++;
		} while (cursor !== undefined && pages < 50);
		expect(seen.sort()).toEqual([...expected.keys()].sort());
		expect(pages).toBe(Math.ceil(expected.size / 4));
	});

	it("rejects a cursor it did not issue with -32602", async () => {
		const { skills } = await httpClient(url);
		expect(await errorCode(skills.list({ cursor: "not-a-cursor" }))).toBe(-32602);
		expect(await errorCode(skills.list({ cursor: "99999" }))).toBe(-32602);
	});

	it("serves every corpus file so that the SDK client verifies it", async () => {
		const { skills } = await httpClient(url);
		const entry = (await skills.get("skill://mcp-builder/SKILL.md")).skill;
		const resources = entry.resources === "dynamic" ? [] : entry.resources;
		expect(resources.length).toBeGreaterThan(3);
		for (const resource of resources) expect((await skills.read(entry, resource.uri)).verified).toBe(true);
	});

	it("gives the catalog as instructions, fitted to the token budget with its usage instruction", async () => {
		const tokenizer = await loadDefaultTokenizer();
		const full = (await httpClient(url)).client.getInstructions() ?? "";
		for (const name of servableCorpusSkills().keys()) expect(full).toContain(`- ${name}`);
		const cwd = await tempDir();
		const small = await httpServer({ cwd, home: cwd, defaultRoots: false, roots: CORPUS_ROOTS, budgetTokens: 150 });
		const instructions = (await httpClient(small.url)).client.getInstructions() ?? "";
		expect(instructions).toContain("call the load_skill tool");
		expect(instructions).toMatch(
			/^- (algorithmic-art:|(Also )?[Aa]vailable — load by name or search_skills: algorithmic-art\b)/m,
		);
		expect(tokenizer.count(instructions)).toBeLessThanOrEqual(150);
		expect(tokenizer.count(full)).toBeGreaterThan(150);
	});
});

describe("sessions, tokens and origins over HTTP", () => {
	let root: string;
	beforeAll(async () => {
		root = await writeTree(await tempDir(), {
			"demo/SKILL.md": skillMd("demo"),
			"demo/references/guide.md": "# Guide\n",
		});
	});
	const options = () => ({ cwd: root, home: root, defaultRoots: false, roots: [root] });

	it("gives each client its own session: one client's activations never dedupe another's", async () => {
		const { url } = await httpServer(options());
		const first = await httpClient(url);
		const second = await httpClient(url);
		const load = async (client: typeof first.client) => {
			const result = await client.callTool({ name: "load_skill", arguments: { name: "demo" } });
			return (result.content as { text: string }[])[0]?.text ?? "";
		};
		expect(await load(first.client)).toContain("# demo");
		expect(await load(first.client)).toContain('cached="true"');
		expect(await load(second.client)).toContain("# demo");
	});

	it("serves 2026-07-28 clients without a session, with the caching hints", async () => {
		const { url } = await httpServer(options());
		const { client, skills } = await httpClient(url, undefined, "2026-07-28");
		expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
		const page = (await client.request({ method: "skills/list", params: {} }, RAW)) as Record<string, unknown>;
		expect(page).toMatchObject({ ttlMs: 0, cacheScope: "private" });
		expect((await skills.read((await skills.get("skill://demo/SKILL.md")).skill)).verified).toBe(true);
		const loaded = await client.callTool({ name: "load_skill", arguments: { name: "demo" } });
		expect((loaded.content as { text: string }[])[0]?.text).toContain("# demo");
		expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["demo"]);
		const prompt = await client.getPrompt({ name: "demo" });
		expect((prompt.messages[0]?.content as { text: string } | undefined)?.text).toContain(
			'<skill_content name="demo">',
		);
	});

	it("refuses requests without the bearer token (401), and serves with it", async () => {
		const { url } = await httpServer(options(), "s3cret-token");
		expect(await rawInitialize(url, {})).toEqual({ status: 401, auth: "Bearer" });
		expect((await rawInitialize(url, { authorization: "Bearer wrong" })).status).toBe(401);
		expect(await errorCode(httpClient(url))).toBeDefined();
		const { skills } = await httpClient(url, "s3cret-token");
		expect((await skills.list()).skills.map((s) => s.uri)).toEqual(["skill://demo/SKILL.md"]);
	});

	it("refuses a foreign Host or Origin on loopback (DNS rebinding), and accepts its own origin", async () => {
		const { url } = await httpServer(options());
		expect((await rawInitialize(url, { host: "evil.example" })).status).toBe(403);
		expect((await rawInitialize(url, { origin: "http://evil.example" })).status).toBe(403);
		expect((await rawInitialize(url, { origin: new URL(url).origin })).status).toBe(200);
	});
});

describe("skillset mcp --http", () => {
	it("listens on an ephemeral loopback port, requires the token from SKILLSET_MCP_TOKEN, and stops on SIGTERM", async () => {
		const root = await writeTree(await tempDir(), { ".agents/skills/demo/SKILL.md": skillMd("demo") });
		const child = spawn(process.execPath, [BIN, "mcp", "--http", "127.0.0.1:0"], {
			cwd: root,
			env: { PATH: process.env.PATH ?? "", HOME: root, SKILLSET_MCP_TOKEN: "from-env" },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stderr = "";
		let stdout = "";
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
		try {
			expect(await waitFor(() => stderr.includes("listening on"), 15_000)).toBe(true);
			const url = /listening on (\S+)/.exec(stderr)?.[1] ?? "";
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
			expect((await rawInitialize(url, {})).status).toBe(401);
			const { skills } = await httpClient(url, "from-env");
			expect((await skills.list()).skills.map((s) => s.uri)).toEqual(["skill://demo/SKILL.md"]);
		} finally {
			child.kill("SIGTERM");
		}
		expect(await exited).toBe(0);
		expect(stdout).toBe("");
	}, 30_000);
});

describe("digests", () => {
	it("leave out a skill with a file over the read cap", async () => {
		const root = await writeTree(await tempDir(), {
			"small/SKILL.md": skillMd("small"),
			"big/SKILL.md": skillMd("big"),
			"big/assets/data.bin": new Uint8Array(4096),
		});
		const server = await createSkillServer({
			cwd: root,
			home: root,
			defaultRoots: false,
			roots: [root],
			maxResourceBytes: 2048,
		});
		expect(server.served.map((s) => s.name)).toEqual(["small"]);
		expect(server.leftOut).toEqual([expect.objectContaining({ name: "big", code: "mcp.too-large" })]);
		await server.close();
	});

	it("are forgotten for a skill that goes away while the server watches", async () => {
		const root = await writeTree(await tempDir(), {
			"stay/SKILL.md": skillMd("stay"),
			"stay/notes.md": "# Notes\n",
			"go/SKILL.md": skillMd("go"),
			"go/notes.md": "# Notes\n",
		});
		await settledFiles();
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root] };
		const server = await createSkillServer({ ...settings, watch: true, debounceMs: 50 });
		const serving = await serveHttp(server, { port: 0 });
		const { skills } = await httpClient(serving.url);
		expect((await skills.list()).skills).toHaveLength(2);
		expect(server.cachedDigests).toBe(4);
		const changed = new Promise((resolve) => server.onChange(resolve));
		rmSync(join(root, "go"), { recursive: true });
		await changed;
		expect(server.served.map((s) => s.name)).toEqual(["stay"]);
		expect(server.cachedDigests).toBe(2);
		await serving.close();
		await server.close();
	}, 20_000);

	it("keep a connection's session across a rescan: a skill loaded before a change stays loaded", async () => {
		const root = await writeTree(await tempDir(), { "kept/SKILL.md": skillMd("kept") });
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root] };
		const server = await createSkillServer({ ...settings, watch: true, debounceMs: 50 });
		const serving = await serveHttp(server, { port: 0 });
		const { client } = await httpClient(serving.url);
		const load = async () => {
			const result = await client.callTool({ name: "load_skill", arguments: { name: "kept" } });
			return (result.content as { text: string }[])[0]?.text ?? "";
		};
		expect(await load()).toContain("# kept");
		const changed = new Promise((resolve) => server.onChange(resolve));
		await writeTree(root, { "added/SKILL.md": skillMd("added") });
		await changed;
		expect(server.served.map((s) => s.name).sort()).toEqual(["added", "kept"]);
		expect(await load()).toContain('cached="true"');
		await serving.close();
		await server.close();
	}, 20_000);

	it("are computed once per file and again when the file changes", async () => {
		const root = await writeTree(await tempDir(), {
			"demo/SKILL.md": skillMd("demo"),
			"demo/references/guide.md": "# Guide\n",
		});
		await settledFiles();
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
		const serving = await serveHttp(server, { port: 0 });
		const { skills } = await httpClient(serving.url);
		const guideDigest = async () => {
			const entry = (await skills.get("skill://demo/SKILL.md")).skill;
			return entry.resources === "dynamic" ? [] : entry.resources.map((r) => r.digest);
		};
		const first = await guideDigest();
		expect(server.cachedDigests).toBe(2);
		expect(await guideDigest()).toEqual(first);
		expect(server.cachedDigests).toBe(2);
		writeFileSync(join(root, "demo/references/guide.md"), "# Guide, rewritten at once\n");
		const second = await guideDigest();
		expect(second[0]).toBe(first[0]);
		expect(second[1]).toBe(digestOf(join(root, "demo/references/guide.md")));
		expect(second[1]).not.toBe(first[1]);
		await serving.close();
		await server.close();
	});
});

describe("verify mode", () => {
	it("leaves out files that do not match skills.lock.json, and skills whose SKILL.md does not", async () => {
		const root = await writeTree(await tempDir(), {
			"demo/SKILL.md": skillMd("demo"),
			"demo/references/guide.md": "# Guide\n",
			"other/SKILL.md": skillMd("other"),
		});
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root] };
		const { lock } = createLock((await discover(settings)).index.selected, root);
		writeFileSync(join(root, "demo/references/guide.md"), "# Guide, tampered\n");
		writeFileSync(join(root, "demo/references/extra.md"), "# Not locked\n");
		writeFileSync(join(root, "other/SKILL.md"), skillMd("other", "Changed after locking."));
		const { url } = await httpServer({ ...settings, integrity: { lock, root } });
		const { client, skills } = await httpClient(url);
		const listing = await skills.list();
		expect(listing.skills.map((s) => s.uri)).toEqual(["skill://demo/SKILL.md"]);
		const demo = listing.skills[0];
		expect(demo?.resources).toEqual([
			{ uri: "skill://demo/SKILL.md", digest: digestOf(join(root, "demo/SKILL.md")), size: expect.any(Number) },
		]);
		for (const uri of ["skill://demo/references/guide.md", "skill://demo/references/extra.md"])
			expect(await errorCode(client.readResource({ uri })), uri).toBe(-32602);
		expect(await errorCode(skills.get("skill://other/SKILL.md"))).toBe(-32602);
		expect(readFileSync(join(root, "demo/SKILL.md"), "utf8")).toContain("name: demo");
	});
});

/** Waits out the racy margin: a digest is kept only for a file not changed in the last two seconds. */
function settledFiles(): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, 2100));
}
