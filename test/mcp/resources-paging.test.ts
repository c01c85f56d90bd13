import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { errorCode, httpClient, httpServer } from "./mcp-helpers.ts";

// Issue 21 item 7: resources/list pages with the cursor the SDK supports, at skills/list's page size, so 512 skills
// do not arrive in one answer and a client that follows the cursor still sees them all.

async function project(count: number): Promise<string> {
	const files: Record<string, string> = {};
	for (let i = 0; i < count; i++) {
		const name = `skill-${String(i).padStart(2, "0")}`;
		files[`.agents/skills/${name}/SKILL.md`] = skillMd(name);
	}
	return writeTree(await tempDir(), files);
}

describe("resources/list pages", () => {
	it("gives pageSize SKILL.md resources per page with a cursor, and every one once across the pages", async () => {
		const cwd = await project(7);
		const { url } = await httpServer({ cwd, home: cwd, watch: false, pageSize: 3 });
		const { client } = await httpClient(url);
		// One page at a time, as a client that walks the cursor itself (the SDK's listResources() walks it for you).
		const page = async (cursor?: string) =>
			(await client.request({ method: "resources/list", params: cursor === undefined ? {} : { cursor } })) as {
				resources: { uri: string }[];
				nextCursor?: string;
			};
		const first = await page();
		expect(first.resources).toHaveLength(3);
		expect(first.nextCursor).toEqual(expect.any(String));
		const uris = [...first.resources.map((r) => r.uri)];
		let cursor = first.nextCursor;
		let pages = 1;
		while (cursor !== undefined) {
			const next = await page(cursor);
			uris.push(...next.resources.map((r) => r.uri));
			cursor = next.nextCursor;
			pages++;
		}
		expect(pages).toBe(3);
		const all = Array.from({ length: 7 }, (_, i) => `skill://skill-0${i}/SKILL.md`);
		expect(uris).toEqual(all);
		expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(all);
	});

	it("refuses a cursor it did not give with invalid params", async () => {
		const cwd = await project(2);
		const { url } = await httpServer({ cwd, home: cwd, watch: false, pageSize: 1 });
		const { client } = await httpClient(url);
		for (const cursor of ["x", "-1", "99", "1e3", "0x1"])
			expect(await errorCode(client.listResources({ cursor }))).toBe(-32602);
	});

	it("one page with no cursor when everything fits", async () => {
		const cwd = await project(2);
		const { url } = await httpServer({ cwd, home: cwd, watch: false });
		const { client } = await httpClient(url);
		const all = await client.listResources();
		expect(all.resources).toHaveLength(2);
		expect(all.nextCursor).toBeUndefined();
	});
});

describe("prompts/list pages like resources/list", () => {
	it("gives pageSize prompts per page with a cursor, every skill once, and refuses a cursor it did not give", async () => {
		const cwd = await project(5);
		const { url } = await httpServer({ cwd, home: cwd, watch: false, pageSize: 2 });
		const { client } = await httpClient(url);
		// One page at a time, as a client that walks the cursor itself (listPrompts() walks it for you).
		const page = async (cursor?: string) =>
			(await client.request({ method: "prompts/list", params: cursor === undefined ? {} : { cursor } })) as {
				prompts: { name: string }[];
				nextCursor?: string;
			};
		const first = await page();
		expect(first.prompts.map((p) => p.name)).toEqual(["skill-00", "skill-01"]);
		expect(first.nextCursor).toEqual(expect.any(String));
		const names = first.prompts.map((p) => p.name);
		for (let cursor = first.nextCursor, pages = 1; cursor !== undefined && pages < 10; pages++) {
			const next = await page(cursor);
			names.push(...next.prompts.map((p) => p.name));
			cursor = next.nextCursor;
		}
		const all = Array.from({ length: 5 }, (_, i) => `skill-0${i}`);
		expect(names).toEqual(all);
		expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(all);
		for (const cursor of ["x", "-1", "99"]) expect(await errorCode(client.listPrompts({ cursor }))).toBe(-32602);
	});
});
