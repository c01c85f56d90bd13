// The built CLI served over stdio to the official SDK client, exactly as a desktop client runs it (issue 12).
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import {
	BIN,
	type Connected,
	digestOf,
	errorCode,
	filesUnder,
	frontmatterText,
	parseFrontmatter,
	RAW,
	stdioClient,
	waitFor,
} from "./mcp-helpers.ts";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const DEMO_MD = `---
name: demo
description: "Demonstrates serving: with a colon, quoted."
license: MIT
allowed-tools: Read Grep
metadata:
  version: "1.0"
  owner: docs
x-custom:
  nested: [1, true, null, "two"]
---
# Demo

Read references/guide.md, then run scripts/run.py.
`;

let ws: string;
let skillsDir: string;
let served: Connected;

beforeAll(async () => {
	ws = await tempDir();
	skillsDir = join(ws, ".agents", "skills");
	await writeTree(ws, {
		"secret.txt": "TOP SECRET\n",
		".agents/skills/demo/SKILL.md": DEMO_MD,
		".agents/skills/demo/references/guide.md": "# Guide\n\nStep one.\n",
		".agents/skills/demo/scripts/run.py": "print('hi')\n",
		".agents/skills/demo/assets/logo.png": PNG,
		".agents/skills/demo/assets/space name.txt": "spaced\n",
		".agents/skills/demo/.git/config": "[core]\n",
		".agents/skills/helper/SKILL.md": skillMd("helper", "Only the user starts this.", "disable-model-invocation: true"),
		".agents/skills/quiet/SKILL.md": skillMd("quiet", "Only the model starts this.", "user-invocable: false"),
		".agents/skills/linky/SKILL.md": skillMd("linky", "Holds a link out of its folder."),
		".agents/skills/hardy/SKILL.md": skillMd("hardy", "Holds a hard link."),
		".agents/skills/bad-name/SKILL.md": skillMd("Bad Name", "Declares a name that is not spec-valid."),
	});
	symlinkSync(join(ws, "secret.txt"), join(skillsDir, "linky", "leak.txt"));
	linkSync(join(ws, "secret.txt"), join(skillsDir, "hardy", "alias.txt"));
	served = await stdioClient(ws, []);
}, 30_000);

describe("skillset mcp over stdio", () => {
	it("declares the skills extension with directory reads, and gives the catalog as instructions", () => {
		const capabilities = served.client.getServerCapabilities();
		expect(capabilities?.extensions?.["io.modelcontextprotocol/skills"]).toEqual({ directoryRead: true });
		expect(capabilities?.resources).toEqual({ subscribe: true, listChanged: true });
		const instructions = served.client.getInstructions() ?? "";
		expect(instructions).toContain("load_skill");
		expect(instructions).toContain("- demo: Demonstrates serving");
		expect(instructions).not.toContain("helper");
	});

	it("logs the skills it leaves out on stderr, and writes nothing but protocol to stdout", async () => {
		expect(await waitFor(() => served.stderr().includes("not served"))).toBe(true);
		expect(served.stderr()).toMatch(/linky: .*leak\.txt is a symbolic link \(mcp\.link\)/);
		expect(served.stderr()).toMatch(/hardy: .*alias\.txt has several hard links \(mcp\.link\)/);
		expect(served.stderr()).toContain("(mcp.name-invalid)");
	});

	it("lists every served skill with its frontmatter verbatim and its complete file set with SHA-256 digests", async () => {
		const listing = await served.skills.list();
		expect(listing.invalid).toEqual([]);
		expect(listing.skills.map((skill) => skill.uri).sort()).toEqual(
			["demo", "helper", "quiet"].map((name) => `skill://${name}/SKILL.md`),
		);
		for (const skill of listing.skills) {
			const name = String(skill.frontmatter.name);
			const dir = join(skillsDir, name);
			expect(skill.frontmatter).toEqual(parseFrontmatter(frontmatterText(join(dir, "SKILL.md"))));
			const files = filesUnder(dir).filter((file) => !file.startsWith(".git/"));
			const resources = skill.resources === "dynamic" ? [] : skill.resources;
			expect(resources.map((r) => r.uri).sort()).toEqual(
				files.map((file) => `skill://${name}/${file.split("/").map(encodeURIComponent).join("/")}`).sort(),
			);
			for (const resource of resources) {
				const file = decodeURIComponent(resource.uri.slice(`skill://${name}/`.length));
				expect(resource.digest).toBe(digestOf(join(dir, file)));
				expect(resource.size).toBe(readFileSync(join(dir, file)).length);
			}
		}
		const demo = listing.skills.find((skill) => skill.frontmatter.name === "demo");
		expect(demo?.frontmatter["x-custom"]).toEqual({ nested: [1, true, null, "two"] });
	});

	it("serves every file so that the SDK client verifies it against the entry (text as text, binary as blob)", async () => {
		const demo = (await served.skills.get("skill://demo/SKILL.md")).skill;
		const resources = demo.resources === "dynamic" ? [] : demo.resources;
		for (const resource of resources) {
			const file = await served.skills.read(demo, resource.uri);
			expect(file.verified).toBe(true);
		}
		const logo = await served.client.readResource({ uri: "skill://demo/assets/logo.png" });
		const content = logo.contents[0] as { blob?: string; text?: string; mimeType?: string };
		expect([content.mimeType, content.text]).toEqual(["image/png", undefined]);
		expect(Buffer.from(content.blob ?? "", "base64")).toEqual(Buffer.from(PNG));
		const spaced = await served.client.readResource({ uri: "skill://demo/assets/space%20name.txt" });
		expect(spaced.contents[0]).toMatchObject({ text: "spaced\n", mimeType: "text/plain" });
	});

	it("lists SKILL.md resources with name, description and text/markdown, and the rest through a template", async () => {
		const { resources } = await served.client.listResources();
		expect(resources.find((r) => r.uri === "skill://demo/SKILL.md")).toMatchObject({
			name: "demo",
			description: "Demonstrates serving: with a colon, quoted.",
			mimeType: "text/markdown",
		});
		expect(resources.every((r) => r.uri.endsWith("/SKILL.md"))).toBe(true);
		const { resourceTemplates } = await served.client.listResourceTemplates();
		expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["skill://{+path}"]);
	});

	it("answers skills/get for served skills only, and -32602 otherwise", async () => {
		const listed = (await served.skills.list()).skills.find((skill) => skill.uri === "skill://demo/SKILL.md");
		expect((await served.skills.get("skill://demo/SKILL.md")).skill).toEqual(listed);
		for (const uri of [
			"skill://nope/SKILL.md",
			"skill://demo/references/guide.md",
			"skill://linky/SKILL.md",
			"skill://demo",
			"file:///etc/passwd",
		]) {
			expect(await errorCode(served.skills.get(uri)), uri).toBe(-32602);
		}
	});

	it("reads directories: direct children, folders as inode/directory, -32602 for files and unknown folders", async () => {
		const root = await served.skills.readDirectory("skill://demo");
		expect(root.resources.map((r) => [r.uri, r.mimeType])).toEqual([
			["skill://demo/SKILL.md", "text/markdown"],
			["skill://demo/assets", "inode/directory"],
			["skill://demo/references", "inode/directory"],
			["skill://demo/scripts", "inode/directory"],
		]);
		const assets = await served.skills.readDirectory("skill://demo/assets");
		expect(assets.resources.map((r) => r.name)).toEqual(["logo.png", "space name.txt"]);
		// A folder written with a trailing slash, as a path to a folder often is, is the same folder.
		expect((await served.skills.readDirectory("skill://demo/assets/")).resources).toEqual(assets.resources);
		expect((await served.skills.readDirectory("skill://demo/")).resources).toEqual(root.resources);
		for (const uri of [
			"skill://demo/SKILL.md",
			"skill://demo/SKILL.md/",
			"skill://demo/assets//",
			"skill://demo/nothing",
			"skill://demo/.git",
			"skill://linky",
		]) {
			expect(await errorCode(served.skills.readDirectory(uri)), uri).toBe(-32602);
		}
	});

	it.each([
		["an encoded ..", "skill://demo/%2e%2e/%2e%2e/%2e%2e/secret.txt"],
		["an encoded slash", "skill://demo/..%2F..%2F..%2Fsecret.txt"],
		["an encoded backslash", "skill://demo/..%5C..%5Csecret.txt"],
		["a NUL", "skill://demo/SKILL.md%00.txt"],
		["an absolute path in the URI", "skill://demo//etc/passwd"],
		["a plain absolute path", "/etc/passwd"],
		["a file URI", "file:///etc/passwd"],
		["a link out of a left-out skill", "skill://linky/leak.txt"],
		["a hard link", "skill://hardy/alias.txt"],
		["a left-out skill's SKILL.md", "skill://linky/SKILL.md"],
		["a skipped .git folder", "skill://demo/.git/config"],
		["a query", "skill://demo/SKILL.md?x=1"],
	])("refuses a resources/read through %s with -32602", async (_what, uri) => {
		const refused = served.client.readResource({ uri });
		expect(await errorCode(refused)).toBe(-32602);
		const message = await refused.then(
			() => "read",
			(error: Error) => error.message,
		);
		expect(message).not.toContain("SECRET");
	});

	it("refuses links that appear in a served skill after start, and stops listing that skill whole", async () => {
		const demo = join(skillsDir, "demo");
		symlinkSync(join(ws, "secret.txt"), join(demo, "late-link.txt"));
		symlinkSync(ws, join(demo, "late-dir"));
		try {
			for (const uri of ["skill://demo/late-link.txt", "skill://demo/late-dir/secret.txt"])
				expect(await errorCode(served.client.readResource({ uri })), uri).toBe(-32602);
			expect(await errorCode(served.skills.get("skill://demo/SKILL.md"))).toBe(-32602);
		} finally {
			rmSync(join(demo, "late-link.txt"));
			rmSync(join(demo, "late-dir"));
		}
		expect((await served.skills.get("skill://demo/SKILL.md")).skill.uri).toBe("skill://demo/SKILL.md");
	});

	it("accepts subscriptions to served SKILL.md resources only", async () => {
		for (const uri of ["skill://demo/references/guide.md", "skill://linky/SKILL.md", "file:///etc/passwd"])
			expect(await errorCode(served.client.subscribeResource({ uri })), uri).toBe(-32602);
	});

	it("says nothing about what exists outside a skill", async () => {
		const messageOf = (uri: string) =>
			served.client.readResource({ uri }).then(
				() => "read",
				(error: Error) => error.message,
			);
		const exists = await messageOf("skill://demo/..%2F..%2F..%2Fsecret.txt");
		const missing = await messageOf("skill://demo/..%2F..%2F..%2Fmissing.txt");
		expect(exists.replace("secret", "X")).toBe(missing.replace("missing", "X"));
	});

	it("offers user-invocable skills as prompts whose content is the activation", async () => {
		const { prompts } = await served.client.listPrompts();
		expect(prompts.map((p) => p.name).sort()).toEqual(["demo", "helper"]);
		const prompt = await served.client.getPrompt({ name: "helper" });
		const message = prompt.messages[0]?.content as { text: string };
		expect(message.text).toContain('<skill_content name="helper">');
		expect(message.text).toContain("# helper");
		for (const name of ["quiet", "linky", "nope"])
			expect(await errorCode(served.client.getPrompt({ name })), name).toBe(-32602);
	});

	it("offers the skill tools; the load tool lists only model-invocable skills", async () => {
		const { tools } = await served.client.listTools();
		expect(tools.map((t) => t.name)).toEqual(["load_skill", "read_skill_resource", "list_skills", "search_skills"]);
		const load = tools.find((t) => t.name === "load_skill");
		// The name is the catalog's enum or any other spec name (search results stay loadable).
		const nameSchema = (load?.inputSchema.properties as { name: { anyOf: { enum?: string[] }[] } } | undefined)?.name;
		const enumOf = nameSchema?.anyOf.find((option) => option.enum)?.enum;
		expect(enumOf).toEqual(["demo", "quiet"]);
		const loaded = await served.client.callTool({ name: "load_skill", arguments: { name: "demo" } });
		expect((loaded.content as { text: string }[])[0]?.text).toContain("Read references/guide.md");
		const read = await served.client.callTool({
			name: "read_skill_resource",
			arguments: { name: "demo", path: "references/guide.md" },
		});
		expect((read.content as { text: string }[])[0]?.text).toContain("Step one.");
		const outside = await served.client.callTool({
			name: "read_skill_resource",
			arguments: { name: "demo", path: "../../../secret.txt" },
		});
		expect(outside.isError).toBe(true);
	});
});

describe("--no-tools", () => {
	it("offers no tools, and tells the model to read SKILL.md resources instead", async () => {
		const bare = await stdioClient(ws, ["--no-tools", "--no-watch"]);
		expect(bare.client.getServerCapabilities()?.tools).toBeUndefined();
		expect(bare.client.getInstructions()).toContain("read its SKILL.md resource (skill://<name>/SKILL.md");
		const listed = await bare.client.listTools().catch(() => ({ tools: [] }));
		expect(listed.tools).toEqual([]);
		expect((await bare.client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(["demo", "helper"]);
	}, 30_000);
});

describe("protocol revisions", () => {
	it("adds the caching hints to skills/list on 2026-07-28, and not on the 2025 revision", async () => {
		const modern = await stdioClient(ws, ["--no-watch"], {}, "2026-07-28");
		expect(modern.client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
		const page = (await modern.client.request({ method: "skills/list", params: {} }, RAW)) as Record<string, unknown>;
		expect(page).toMatchObject({ ttlMs: 0, cacheScope: "private" });
		const legacy = (await served.client.request({ method: "skills/list", params: {} }, RAW)) as Record<string, unknown>;
		expect(served.client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
		expect(legacy).not.toHaveProperty("ttlMs");
		expect((await modern.skills.get("skill://demo/SKILL.md")).skill.uri).toBe("skill://demo/SKILL.md");
	}, 30_000);
});

describe("skillset mcp --check", () => {
	it("lists the served skills and every one left out with its code, exit 1", async () => {
		const run = await cli(["mcp", "--check", "--json", "--no-default-roots", "--root", skillsDir], { cwd: ws });
		expect(run.exitCode).toBe(1);
		const data = JSON.parse(run.stdout);
		expect(data.served.map((s: { uri: string }) => s.uri)).toEqual([
			"skill://demo/SKILL.md",
			"skill://helper/SKILL.md",
			"skill://quiet/SKILL.md",
		]);
		expect(data.leftOut.map((s: { code: string }) => s.code).sort()).toEqual([
			"mcp.link",
			"mcp.link",
			"mcp.name-invalid",
		]);
	});

	it("with --verify, lists a skill whose SKILL.md no longer matches skills.lock.json as left out", async () => {
		const root = await writeTree(await tempDir(), {
			".agents/skills/kept/SKILL.md": skillMd("kept"),
			".agents/skills/edited/SKILL.md": skillMd("edited"),
		});
		const roots = ["--no-default-roots", "--root", join(root, ".agents/skills")];
		expect((await cli(["lock", root, ...roots], { cwd: root })).exitCode).toBe(0);
		writeFileSync(join(root, ".agents/skills/edited/SKILL.md"), skillMd("edited", "Changed after locking."));
		const run = await cli(["mcp", root, "--check", "--verify", "--json", ...roots], { cwd: root });
		const data = JSON.parse(run.stdout);
		expect(data.served.map((s: { name: string }) => s.name)).toEqual(["kept"]);
		expect(data.leftOut).toEqual([expect.objectContaining({ name: "edited", code: "mcp.lock-mismatch" })]);
	});

	it("serves qualified names with the scope as path prefix", async () => {
		const root = await tempDir();
		await writeTree(root, { "a/pdf/SKILL.md": skillMd("pdf"), "b/pdf/SKILL.md": skillMd("pdf", "Another.") });
		const roots = ["--no-default-roots", "--root", join(root, "a"), "--root", join(root, "b")];
		const run = await cli(["mcp", "--check", "--json", "--policy", "keep-all", ...roots], { cwd: root });
		expect(JSON.parse(run.stdout).served.map((s: { uri: string }) => s.uri)).toEqual([
			"skill://workspace/pdf/SKILL.md",
			"skill://workspace.2/pdf/SKILL.md",
		]);
	});

	it("writes nothing but JSON-RPC messages to stdout", () => {
		const lines = [
			{
				jsonrpc: "2.0",
				id: 1,
				method: "initialize",
				params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
			},
			{ jsonrpc: "2.0", method: "notifications/initialized" },
			{ jsonrpc: "2.0", id: 2, method: "skills/list", params: {} },
			{ jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "skill://demo/..%2F..%2F..%2Fsecret.txt" } },
		];
		const run = spawnSync(process.execPath, [BIN, "mcp", "--no-watch"], {
			cwd: ws,
			input: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
			encoding: "utf8",
			env: { PATH: process.env.PATH ?? "", HOME: ws },
			timeout: 20_000,
		});
		const out = run.stdout.split("\n").filter((line) => line !== "");
		const messages = out.map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; error?: { code: number } });
		expect(messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
		// Every request is answered (in any order: a refusal can come before a listing), even after stdin closed.
		expect(messages.map((message) => message.id).sort()).toEqual([1, 2, 3]);
		expect(messages.find((message) => message.id === 3)?.error?.code).toBe(-32602);
		expect(run.stderr).toContain("skillset mcp: serving 3 skills, 3 left out");
		// The client closed stdin: a clean end, exit 0.
		expect(run.status).toBe(0);
	}, 30_000);

	it("rejects a bad --http value and a bad --budget-tokens with a usage error", async () => {
		for (const args of [
			["--http", "localhost"],
			["--http", "70000"],
			["--budget-tokens", "0"],
			["--http", "0", "--allow-origin", "localhost:3000"],
			["--http", "0", "--allow-origin", "http://localhost:3000/app"],
		]) {
			const run = await cli(["mcp", ...args, "--no-default-roots"], { cwd: ws });
			expect(run.exitCode, args.join(" ")).toBe(2);
		}
	});

	it("refuses a non-loopback address without --allow-remote and a token (usage error)", async () => {
		const bare = await cli(["mcp", "--http", "0.0.0.0:0", "--no-default-roots"], { cwd: ws });
		expect([bare.exitCode, bare.stderr]).toEqual([2, expect.stringContaining("--allow-remote")]);
		const noToken = await cli(["mcp", "--http", "0.0.0.0:0", "--allow-remote", "--no-default-roots"], { cwd: ws });
		expect([noToken.exitCode, noToken.stderr]).toEqual([2, expect.stringContaining("SKILLSET_MCP_TOKEN")]);
	});
});

describe("live updates (watch is on for stdio)", () => {
	it("notifies list changes when a skill is added, and resources/updated when a subscribed SKILL.md changes", async () => {
		const seen: string[] = [];
		for (const method of [
			"notifications/resources/list_changed",
			"notifications/tools/list_changed",
			"notifications/prompts/list_changed",
			"notifications/resources/updated",
		] as const) {
			served.client.setNotificationHandler(method, () => {
				seen.push(method);
			});
		}
		const logged: string[] = [];
		served.client.setNotificationHandler("notifications/message", (notification) => {
			logged.push(String(notification.params.data));
		});
		await served.client.subscribeResource({ uri: "skill://demo/SKILL.md" });
		mkdirSync(join(skillsDir, "fresh"));
		writeFileSync(join(skillsDir, "fresh", "SKILL.md"), skillMd("fresh", "Arrived while serving."));
		expect(await waitFor(() => seen.includes("notifications/prompts/list_changed"), 10_000)).toBe(true);
		expect(seen).toContain("notifications/resources/list_changed");
		expect(seen).toContain("notifications/tools/list_changed");
		// The rescan's log line (skills left out) reaches the client as an MCP log notification too.
		expect(await waitFor(() => logged.some((line) => line.includes("linky")))).toBe(true);
		await new Promise((resolve) => setTimeout(resolve, 300));
		// One skill more: one prompt added, the two tools whose name enum lists it updated; not a notice per skill.
		expect(seen.filter((method) => method === "notifications/prompts/list_changed")).toHaveLength(1);
		expect(seen.filter((method) => method === "notifications/tools/list_changed")).toHaveLength(2);
		expect((await served.client.listResources()).resources.map((r) => r.uri)).toContain("skill://fresh/SKILL.md");
		expect((await served.skills.get("skill://fresh/SKILL.md")).skill.frontmatter.description).toBe(
			"Arrived while serving.",
		);
		const load = await served.client.callTool({ name: "load_skill", arguments: { name: "fresh" } });
		expect(load.isError).toBeFalsy();

		const before = (await served.skills.get("skill://demo/SKILL.md")).skill;
		writeFileSync(join(skillsDir, "demo", "SKILL.md"), DEMO_MD.replace("# Demo", "# Demo, edited"));
		expect(await waitFor(() => seen.includes("notifications/resources/updated"), 10_000)).toBe(true);
		const after = (await served.skills.get("skill://demo/SKILL.md")).skill;
		const digest = (entry: typeof after) =>
			entry.resources === "dynamic" ? undefined : entry.resources.find((r) => r.uri === entry.uri)?.digest;
		expect(digest(after)).not.toBe(digest(before));
		expect(digest(after)).toBe(digestOf(join(skillsDir, "demo", "SKILL.md")));
		rmSync(join(skillsDir, "fresh"), { recursive: true });
	}, 30_000);
});
