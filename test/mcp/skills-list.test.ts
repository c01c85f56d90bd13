import { createHash } from "node:crypto";
import { linkSync, lstatSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { describe, expect, it } from "vitest";
import { DigestCache } from "../../src/mcp/entries.ts";
import { holdEntry } from "../../src/mcp/held-entry.ts";
import { walkSkill } from "../../src/mcp/walk.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { digestOf, errorCode, httpClient, RAW } from "./mcp-helpers.ts";

// Issue 23: skills/list is answered by skillset itself (entries cached per snapshot, no second validation pass),
// page for page as the SDK's own skills catalog answers for the same folder, with cursors that survive a rescan.

type Page = { skills: { uri: string; resources: unknown[] }[]; nextCursor?: string; [key: string]: unknown };
type Lister = (cursor?: string) => Promise<Page>;

const MODERN = "2026-07-28";

function listerOf(client: Client): Lister {
	return async (cursor) =>
		(await client.request({ method: "skills/list", params: cursor === undefined ? {} : { cursor } }, RAW)) as Page;
}

/**
 * Serves a tree made of `files` over HTTP and runs `use` with its root and a lister, then closes both. The tree is
 * let settle first: held entries stand only for files changed well before (the racy margin).
 */
async function withSettledServer(
	files: Record<string, string>,
	use: (root: string, list: Lister) => Promise<void>,
): Promise<void> {
	const root = await writeTree(await tempDir(), files);
	await new Promise((resolve) => setTimeout(resolve, 2200));
	const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], watch: false });
	const serving = await serveHttp(server, { port: 0 });
	try {
		await use(root, listerOf((await httpClient(serving.url)).client));
	} finally {
		await serving.close();
		await server.close();
	}
}

/** Every page of an enumeration, following the cursor (at most 100 pages). */
async function pages(list: Lister): Promise<Page[]> {
	const all: Page[] = [];
	let cursor: string | undefined;
	do {
		const page = await list(cursor);
		all.push(page);
		cursor = page.nextCursor;
	} while (cursor !== undefined && all.length < 100);
	return all;
}

/**
 * The SDK's reference server for a folder of skill folders: in memory on the 2025 revision, and on 2026-07-28 through
 * the SDK's own request handler (the client's fetch calls it directly).
 */
async function sdkReference(root: string, pageSize: number, protocol?: string): Promise<Client> {
	const catalog = await loadSkills(root, { pageSize, onWarning: () => undefined });
	const reference = () => {
		// Named as skillset names itself: 2026-07-28 results carry the server's name and version in `_meta`.
		const mcp = new McpServer({ name: "skillset", version: "0" });
		catalog.attach(mcp);
		return mcp;
	};
	if (protocol) {
		const handler = createMcpHandler(reference, { legacy: "reject" });
		const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
			fetch: (url, init) => handler.fetch(new Request(url, init)),
		});
		const client = new Client(
			{ name: "skillset-test", version: "1" },
			{ versionNegotiation: { mode: { pin: protocol } } },
		);
		await client.connect(transport);
		return client;
	}
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	await reference().connect(serverSide);
	const client = new Client({ name: "skillset-test", version: "1" });
	await client.connect(clientSide);
	return client;
}

const tree = {
	"alpha/SKILL.md": skillMd("alpha", "Does alpha things.", "metadata:\n  author: someone\n  version: '1.0'"),
	"alpha/a-notes.md": "# Notes at the root, after SKILL.md in URI order\n",
	"alpha/references/guide.md": "# Guide\n",
	"alpha/assets/data.bin": new Uint8Array([0, 1, 2, 3]),
	"alpha/zz-last.md": "# A root file that sorts after the folders\n",
	"bravo/SKILL.md": skillMd("bravo"),
	"charlie/SKILL.md": skillMd("charlie", "Third.", "license: MIT"),
	"charlie/scripts/run.py": "print('hi')\n",
	"delta/SKILL.md": skillMd("delta"),
	"echo/SKILL.md": skillMd("echo"),
	"foxtrot/SKILL.md": skillMd("foxtrot"),
	"golf/SKILL.md": skillMd("golf"),
};

describe("skills/list answered by skillset", () => {
	it.each([
		["2025-11-25", undefined],
		["2026-07-28", MODERN],
	])("gives every page exactly as the SDK's own catalog of the same folder (%s)", async (_label, protocol) => {
		const root = await writeTree(await tempDir(), tree);
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], pageSize: 3 });
		const serving = await serveHttp(server, { port: 0 });
		const reference = await sdkReference(root, 3, protocol);
		try {
			const ours = await pages(listerOf((await httpClient(serving.url, undefined, protocol)).client));
			const theirs = await pages(listerOf(reference));
			expect(ours.map((page) => page.skills.length)).toEqual([3, 3, 1]);
			// Whole pages: entries, their order, resource order, digests, sizes, cursors and the caching hints.
			expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
			if (protocol) expect(ours[0]).toMatchObject({ ttlMs: 0, cacheScope: "private" });
			else expect(ours[0]).not.toHaveProperty("ttlMs");
		} finally {
			await reference.close();
			await serving.close();
			await server.close();
		}
	});

	it("rejects with -32602 every cursor it did not give, and serves on", async () => {
		const root = await writeTree(await tempDir(), tree);
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], pageSize: 3 });
		const serving = await serveHttp(server, { port: 0 });
		try {
			const { client, skills } = await httpClient(serving.url);
			const forged = [
				"not-a-cursor",
				"99999",
				"3",
				"",
				Buffer.from("before:skill://alpha/SKILL.md").toString("base64url"),
				// A valid cursor with padding or stray characters is not the cursor the server gave.
				`${Buffer.from("after:skill://alpha/SKILL.md").toString("base64url")}==`,
				`${Buffer.from("after:skill://alpha/SKILL.md").toString("base64url")}!`,
				Buffer.from([0x61, 0x66, 0x74, 0x65, 0x72, 0x3a, 0xff, 0xfe]).toString("base64url"),
				"A".repeat(100_000),
			];
			for (const cursor of forged) expect(await errorCode(skills.list({ cursor })), cursor.slice(0, 40)).toBe(-32602);
			const typed = client.request({ method: "skills/list", params: { cursor: 5 } }, RAW);
			expect(await errorCode(typed)).toBe(-32602);
			expect((await pages(listerOf(client))).flatMap((page) => page.skills)).toHaveLength(7);
		} finally {
			await serving.close();
			await server.close();
		}
	});

	it("lists every skill that stays exactly once when the skills change mid-enumeration", async () => {
		const files: Record<string, string> = {};
		for (const name of ["s1", "s2", "s3", "s4", "s5", "s6"]) files[`${name}/SKILL.md`] = skillMd(name);
		const root = await writeTree(await tempDir(), files);
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root], pageSize: 2 };
		const server = await createSkillServer({ ...settings, watch: true, debounceMs: 50 });
		const serving = await serveHttp(server, { port: 0 });
		try {
			const list = listerOf((await httpClient(serving.url)).client);
			const first = await list();
			expect(first.skills.map((skill) => skill.uri)).toEqual(["skill://s1/SKILL.md", "skill://s2/SKILL.md"]);
			// One skill already listed goes away (and the one the cursor names), one that sorts after them comes.
			const changed = new Promise((resolve) => server.onChange(resolve));
			rmSync(join(root, "s1"), { recursive: true });
			rmSync(join(root, "s2"), { recursive: true });
			await writeTree(root, { "s45/SKILL.md": skillMd("s45") });
			await changed;
			const rest: string[] = [];
			let cursor = first.nextCursor;
			while (cursor !== undefined) {
				const page = await list(cursor);
				rest.push(...page.skills.map((skill) => skill.uri));
				cursor = page.nextCursor;
			}
			expect(rest).toEqual(["s3", "s4", "s45", "s5", "s6"].map((name) => `skill://${name}/SKILL.md`));
		} finally {
			await serving.close();
			await server.close();
		}
	}, 20_000);

	it("keeps a page within its resource bound however many files the skills have", async () => {
		const files: Record<string, string> = {};
		for (const name of ["big-a", "big-b", "big-c", "big-d", "big-e"]) {
			files[`${name}/SKILL.md`] = skillMd(name);
			for (let i = 0; i < 499; i++) files[`${name}/references/r${i}.md`] = `# ${i}\n`;
		}
		const root = await writeTree(await tempDir(), files);
		// A huge page size changes nothing: a page also ends at its resource bound.
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root], pageSize: 1_000_000 };
		const server = await createSkillServer(settings);
		const serving = await serveHttp(server, { port: 0 });
		try {
			const all = await pages(listerOf((await httpClient(serving.url)).client));
			const sizes = all.map((page) => page.skills.reduce((sum, skill) => sum + skill.resources.length, 0));
			expect(sizes).toEqual([2000, 500]);
			expect(all.flatMap((page) => page.skills)).toHaveLength(5);
		} finally {
			await serving.close();
			await server.close();
		}
	}, 30_000);

	it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses a page size of %s", async (pageSize) => {
		const root = await writeTree(await tempDir(), { "demo/SKILL.md": skillMd("demo") });
		const made = createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], pageSize });
		await expect(made).rejects.toMatchObject({ code: "invalid-option" });
	});
});

describe("skills/list after the files change under a server that does not watch", () => {
	type Entry = { uri: string; resources: { uri: string; digest: string }[] };
	const listed = async (list: Lister): Promise<Map<string, Entry>> => {
		const entries = (await pages(list)).flatMap((page) => page.skills) as Entry[];
		return new Map(entries.map((entry) => [entry.uri, entry]));
	};

	it("lists what each folder holds now: rewritten bytes behind an old mtime, new files, planted links", async () => {
		const root = await writeTree(await tempDir(), {
			"demo/SKILL.md": skillMd("demo"),
			"demo/references/guide.md": "# Guide one\n",
			"other/SKILL.md": skillMd("other"),
			"other/references/notes.md": "# Notes\n",
			"third/SKILL.md": skillMd("third"),
			"third/data.txt": "data\n",
		});
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], watch: false });
		const serving = await serveHttp(server, { port: 0 });
		try {
			const { client, skills } = await httpClient(serving.url);
			const list = listerOf(client);
			const guide = join(root, "demo/references/guide.md");
			expect((await listed(list)).size).toBe(3);
			expect((await listed(list)).size).toBe(3);
			// Same size, the old mtime put back: only the ctime tells.
			const { atime, mtime } = statSync(guide);
			writeFileSync(guide, "# Guide two\n");
			utimesSync(guide, atime, mtime);
			// A file added in a sub-folder, a link planted in another skill's sub-folder, a hard link to a third's file.
			writeFileSync(join(root, "demo/references/extra.md"), "# Extra\n");
			symlinkSync("/etc/passwd", join(root, "other/references/passwd.md"));
			linkSync(join(root, "third/data.txt"), join(root, "data-copy.txt"));
			const now = await listed(list);
			const demo = now.get("skill://demo/SKILL.md");
			expect(demo?.resources.find((r) => r.uri === "skill://demo/references/guide.md")?.digest).toBe(digestOf(guide));
			expect(demo?.resources.map((r) => r.uri)).toContain("skill://demo/references/extra.md");
			expect([...now.keys()]).toEqual(["skill://demo/SKILL.md"]);
			expect(await errorCode(skills.get("skill://other/SKILL.md"))).toBe(-32602);
			rmSync(join(root, "other/references/passwd.md"));
			rmSync(join(root, "data-copy.txt"));
			expect([...(await listed(list)).keys()]).toHaveLength(3);
		} finally {
			await serving.close();
			await server.close();
		}
	});

	it("fills a default page with held skills, builds at most 100 per page, and still sees every change", async () => {
		const files: Record<string, string> = { "swap/SKILL.md": skillMd("swap"), "swap/references/a.md": "# A\n" };
		for (const name of ["grow", "shrink", "add", "link"]) {
			files[`${name}/SKILL.md`] = skillMd(name);
			files[`${name}/notes.md`] = "# Notes, as first written\n";
		}
		for (let i = 0; i < 225; i++) files[`s-${String(i).padStart(3, "0")}/SKILL.md`] = skillMd(`s-${i}`);
		await withSettledServer(files, async (root, list) => {
			const sizes = async () => (await pages(list)).map((page) => page.skills.length);
			// Cold: every entry is built (its digests read), a hundred per page; warm: held entries fill one page.
			expect(await sizes()).toEqual([100, 100, 30]);
			expect(await sizes()).toEqual([230]);
			// Each change to a held skill, made by an attacker between two listings.
			writeFileSync(join(root, "grow/notes.md"), "# Notes, as first written, and grown\n");
			writeFileSync(join(root, "shrink/notes.md"), "# Notes\n");
			writeFileSync(join(root, "add/extra.md"), "# Added\n");
			rmSync(join(root, "link/notes.md"));
			symlinkSync("/etc/passwd", join(root, "link/notes.md"));
			rmSync(join(root, "swap/references"), { recursive: true });
			symlinkSync("/etc", join(root, "swap/references"));
			const now = await listed(list);
			// A file or folder swapped for a link: the skill is left out, as a fresh build leaves it out.
			expect(now.size).toBe(228);
			expect(now.has("skill://link/SKILL.md")).toBe(false);
			expect(now.has("skill://swap/SKILL.md")).toBe(false);
			for (const name of ["grow", "shrink"])
				expect(now.get(`skill://${name}/SKILL.md`)?.resources[1]?.digest).toBe(
					digestOf(join(root, `${name}/notes.md`)),
				);
			expect(now.get("skill://add/SKILL.md")?.resources.map((r) => r.uri)).toContain("skill://add/extra.md");
		});
	}, 60_000);

	it("ends warm pages at the file bound and lists every skill once when a held skill changes mid-page", async () => {
		const files: Record<string, string> = {};
		const names = Array.from({ length: 12 }, (_, i) => `w-${String(i).padStart(2, "0")}`);
		for (const name of names) {
			files[`${name}/SKILL.md`] = skillMd(name);
			for (let i = 0; i < 299; i++) files[`${name}/references/r${i}.md`] = `# ${i}\n`;
		}
		await withSettledServer(files, async (root, list) => {
			const shape = async () => {
				const all = await pages(list);
				const uris = all.flatMap((page) => page.skills.map((skill) => skill.uri));
				expect(uris).toEqual(names.map((name) => `skill://${name}/SKILL.md`));
				return all.map((page) => page.skills.reduce((sum, skill) => sum + skill.resources.length, 0));
			};
			// Six skills of 300 files fill a page (2,048 at most): cold, then from held entries.
			expect(await shape()).toEqual([1800, 1800]);
			expect(await shape()).toEqual([1800, 1800]);
			// A held skill of the first page loses most of its files: the page now takes a seventh skill.
			for (let i = 50; i < 299; i++) rmSync(join(root, `w-02/references/r${i}.md`));
			expect(await shape()).toEqual([1851, 1500]);
		});
	}, 60_000);

	it("answers on when a held skill's category folder becomes a file (its paths then fail with ENOTDIR)", async () => {
		const files = {
			"team/held/SKILL.md": skillMd("held"),
			"team/held/notes.md": "# Notes\n",
			"other/SKILL.md": skillMd("other"),
		};
		await withSettledServer(files, async (root, list) => {
			expect([...(await listed(list)).keys()].sort()).toEqual(["skill://held/SKILL.md", "skill://other/SKILL.md"]);
			expect((await listed(list)).size).toBe(2);
			// The folder above a held skill's own folder, swapped for a file between two listings.
			rmSync(join(root, "team"), { recursive: true });
			writeFileSync(join(root, "team"), "not a folder\n");
			expect([...(await listed(list)).keys()]).toEqual(["skill://other/SKILL.md"]);
		});
	}, 30_000);

	it("remembers nothing of a file changed within the racy margin: a rewrite in the same clock tick is seen", async () => {
		const dir = await writeTree(await tempDir(), { "SKILL.md": skillMd("tick"), "notes.md": "# One\n" });
		const rules = { maxBytes: 1 << 20, allowHardLinks: false };
		// Two writes in one tick of the kernel's clock can show the same size, mtime and ctime: the first's lstat.
		const before = lstatSync(join(dir, "notes.md"));
		const cache = new DigestCache();
		expect((await cache.digest(dir, "notes.md", before, rules))?.hex).toBe(sha256Hex("# One\n"));
		writeFileSync(join(dir, "notes.md"), "# Two\n");
		expect((await cache.digest(dir, "notes.md", before, rules))?.hex).toBe(sha256Hex("# Two\n"));
		// An entry built from files that just changed is not held for reuse by their lstats either.
		const tree = walkSkill(dir, rules);
		if ("code" in tree) throw new Error(tree.message);
		const entry = { uri: "skill://tick/SKILL.md", frontmatter: { name: "tick", description: "d" }, resources: [] };
		expect(holdEntry(entry, dir, tree, rules)).toBeUndefined();
	});
});

function sha256Hex(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}
