import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, describe, expect, it } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { SHARED_DIR, skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// SEP-2640 with peers that are not skillset: the SDK v2 skills client (with its own digest and frontmatter checks)
// reading skillset's server over the whole shared corpus, and a server built from the SDK's own skills extension
// (not skillset's code) consumed by `skillset list --mcp`.

const CORPUS = join(SHARED_DIR, "corpus");
const CORPUS_ROOTS = [
	join(CORPUS, "anthropic-skills"),
	join(CORPUS, "openai-skills", "skills", ".system"),
	join(CORPUS, "openai-skills", "skills", ".curated"),
	join(CORPUS, "openai-skills", "skills", ".experimental"),
];

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
	for (const close of closers.reverse()) await close();
});

describe("the SDK v2 skills client against skillset mcp, over the shared corpus", () => {
	it("lists every served skill and reads every file with the client's digest checks, byte for byte", async () => {
		const home = await tempDir();
		const server = await createSkillServer({ cwd: home, home, defaultRoots: false, roots: CORPUS_ROOTS, watch: false });
		const http = await serveHttp(server, { port: 0, token: "corpus-token" });
		closers.push(
			() => server.close(),
			() => http.close(),
		);
		// claude-api's description is over 1,024 characters: left out, and said why.
		expect(server.leftOut.map((s) => [s.name, s.code])).toEqual([["claude-api", "mcp.field-invalid"]]);
		const client = new Client({ name: "v2-host", version: "1" });
		const headers = { Authorization: "Bearer corpus-token" };
		await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } }));
		closers.push(() => client.close());
		// The client's own frontmatter parser, not skillset's: the corpus must pass a peer's reading as it is.
		const skills = new SkillsClient(client);
		expect(skills.supported).toBe(true);
		const listing = await skills.list();
		expect(listing.invalid).toEqual([]);
		expect(listing.skills.map((s) => String(s.frontmatter.name)).sort()).toEqual(
			server.served.map((s) => s.name).sort(),
		);
		let files = 0;
		for (const entry of listing.skills) {
			if (entry.resources === "dynamic") throw new Error(`${entry.uri} has dynamic resources`);
			const dir = corpusDir(String(entry.frontmatter.name));
			for (const resource of entry.resources) {
				const read = await skills.read(entry, resource.uri);
				expect(read.verified).toBe(true);
				const path = decodeURIComponent(resource.uri.slice(entry.uri.length - "SKILL.md".length));
				const onDisk = readFileSync(join(dir, path));
				expect(Buffer.from(read.bytes).equals(onDisk), resource.uri).toBe(true);
				expect(resource.digest).toBe(`sha256:${createHash("sha256").update(onDisk).digest("hex")}`);
				files++;
			}
		}
		expect(files).toBeGreaterThan(100);
	}, 180_000);
});

/** The corpus folder of the skill `name` (every corpus skill's folder is named as the skill). */
function corpusDir(name: string): string {
	const found = CORPUS_ROOTS.map((root) => join(root, name)).find((dir) => existsSync(join(dir, "SKILL.md")));
	if (!found) throw new Error(`${name} is not in the corpus`);
	return found;
}

describe("a third-party SEP-2640 server built on the SDK's server extension", () => {
	it("is consumed by skillset list --mcp: every skill verified and listed under the host's label", async () => {
		const skillsRoot = await writeTree(await tempDir(), {
			"daily-news-report/SKILL.md": skillMd(
				"daily-news-report",
				"Writes a news report for a day.",
				// Quoted: the SDK's own server reads frontmatter with its built-in parser, which refuses `[optional: date]`.
				'argument-hint: "[optional: date]"\nmetadata:\n  version: "1.0"',
			),
			"daily-news-report/references/sources.md": "- wires\n",
			"csv-tidy/SKILL.md": skillMd("csv-tidy", "Tidies CSV files."),
			"csv-tidy/scripts/tidy.sh": "#!/bin/sh\necho tidy\n",
		});
		// The peer: nothing of skillset, only the SDK v2 server package and its Node loader of a skills folder.
		const serverPackage = import.meta.resolve("@modelcontextprotocol/server");
		const stdioPackage = import.meta.resolve("@modelcontextprotocol/server/stdio");
		const nodeSkills = import.meta.resolve("@modelcontextprotocol/server/ext/skills/node");
		const script = join(await tempDir(), "peer-server.mjs");
		await writeFile(
			script,
			[
				`import { McpServer } from ${JSON.stringify(serverPackage)};`,
				`import { StdioServerTransport } from ${JSON.stringify(stdioPackage)};`,
				`import { loadSkills } from ${JSON.stringify(nodeSkills)};`,
				`const mcp = new McpServer({ name: "peer-skills", version: "1.0.0" });`,
				// One skill per skills/list page: the origin must follow the cursor.
				`const skills = await loadSkills(${JSON.stringify(skillsRoot)}, { pageSize: 1, strict: true });`,
				"skills.attach(mcp);",
				"await mcp.connect(new StdioServerTransport());",
				"",
			].join("\n"),
		);
		const cwd = await tempDir();
		const env = { HOME: cwd, XDG_CACHE_HOME: join(cwd, ".cache") };
		const run = await runBuilt(["list", "--json", `--mcp=peer=${process.execPath} ${script}`], { cwd, env });
		expect(run.stderr).toBe("");
		expect(run.exitCode).toBe(0);
		const listed = JSON.parse(run.stdout) as
			| { name: string; origin?: string }[]
			| { skills: { name: string; origin?: string }[] };
		const rows = Array.isArray(listed) ? listed : listed.skills;
		expect(rows.map((s) => s.name).sort()).toEqual(["csv-tidy", "daily-news-report"]);
		expect(rows.every((s) => s.origin === "mcp:peer")).toBe(true);
		const show = await runBuilt(
			["read", "daily-news-report", "references/sources.md", `--mcp=peer=${process.execPath} ${script}`],
			{
				cwd,
				env,
			},
		);
		expect(show.exitCode).toBe(0);
		expect(show.stdout).toContain("- wires");
	}, 60_000);
});
