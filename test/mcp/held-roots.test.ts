// Issue 23: the server keeps recently read skill folders open between `resources/read`s. As an attacker: reading
// every skill of a large tree must not grow the server's descriptors past the bound, a folder moved and replaced
// between two reads must answer with what is at the path now, and a new snapshot or closing the server lets go of
// every held folder.
import { readdirSync, readlinkSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createSkillServer } from "skillset/mcp";
import { describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { waitFor } from "./mcp-helpers.ts";

/** Descriptors this process has open now. */
function openFds(): number {
	return readdirSync("/proc/self/fd").length;
}

/** The text a direct read of `uri` answers with, or the error's message. */
async function readText(server: Awaited<ReturnType<typeof createSkillServer>>, uri: string): Promise<string> {
	const answer = await server.direct.read(uri);
	return "bytes" in answer ? Buffer.from(answer.bytes).toString("utf8") : `error: ${answer.message}`;
}

describe.skipIf(process.platform !== "linux")("held skill folders of the MCP server", () => {
	it("reads 300 skills twice over without holding more than 64 folders, and closes them all on close", async () => {
		const tree: Record<string, string> = {};
		for (let i = 0; i < 300; i++) tree[`s-${i}/SKILL.md`] = skillMd(`s-${i}`);
		const root = await writeTree(await tempDir(), tree);
		const before = openFds();
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], tools: false });
		const started = openFds();
		let peak = started;
		for (let round = 0; round < 2; round++) {
			for (let i = 0; i < 300; i++) {
				expect(await readText(server, `skill://s-${i}/SKILL.md`)).toContain(`name: s-${i}`);
				peak = Math.max(peak, openFds());
			}
		}
		expect(peak).toBeGreaterThan(started);
		expect(peak).toBeLessThanOrEqual(started + 64);
		await server.close();
		expect(openFds()).toBeLessThanOrEqual(before);
	});

	it("holds nothing for a read that ends after the server closed", async () => {
		const root = await writeTree(await tempDir(), {
			"skill/SKILL.md": skillMd("skill"),
			"skill/big.txt": "x".repeat(3 * 1024 * 1024),
		});
		const before = openFds();
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], tools: false });
		// Two large reads: the second waits its turn, and is opened again only after the server has closed.
		const reads = [server.direct.read("skill://skill/big.txt"), server.direct.read("skill://skill/big.txt")];
		await server.close();
		await Promise.all(reads);
		expect(openFds()).toBeLessThanOrEqual(before);
	});

	it("serves the folder now at a skill's path after the read one was moved away and replaced", async () => {
		const root = await writeTree(await tempDir(), {
			"skill/SKILL.md": skillMd("skill"),
			"skill/notes.md": "original notes\n",
		});
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], tools: false });
		try {
			expect(await readText(server, "skill://skill/notes.md")).toBe("original notes\n");
			renameSync(join(root, "skill"), join(root, "moved"));
			await writeTree(root, { "skill/SKILL.md": skillMd("skill"), "skill/notes.md": "new notes\n" });
			expect(await readText(server, "skill://skill/notes.md")).toBe("new notes\n");
		} finally {
			await server.close();
		}
	});

	it("lets go of the held folders when a rescan makes a new snapshot", async () => {
		const root = await writeTree(await tempDir(), {
			"keep/SKILL.md": skillMd("keep"),
			"gone/SKILL.md": skillMd("gone"),
		});
		const settings = { cwd: root, home: root, defaultRoots: false, roots: [root], tools: false };
		const server = await createSkillServer({ ...settings, watch: true, debounceMs: 100 });
		try {
			const gone = join(root, "gone");
			expect(await readText(server, "skill://gone/SKILL.md")).toContain("name: gone");
			const heldGone = () => readdirSync("/proc/self/fd").some((fd) => fdTarget(fd) === gone);
			expect(heldGone()).toBe(true);
			rmSync(gone, { recursive: true });
			expect(await waitFor(() => !server.served.some((served) => served.name === "gone"), 20_000)).toBe(true);
			// The deleted folder's descriptor would show as "<path> (deleted)"; neither it nor the path stays open.
			expect(readdirSync("/proc/self/fd").some((fd) => fdTarget(fd).startsWith(gone))).toBe(false);
		} finally {
			await server.close();
		}
	}, 30_000);
});

/** Where descriptor `fd` of this process points, or "" when it is gone. */
function fdTarget(fd: string): string {
	try {
		return readlinkSync(`/proc/self/fd/${fd}`);
	} catch {
		return "";
	}
}
