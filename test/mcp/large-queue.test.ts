// Issue 23 (review): large reads wait for their turn one at a time. As an attacker client: queue hundreds of large
// reads at once. A waiting read must hold no descriptor (or the server runs out of them for everyone), the queue
// must refuse what is over its bound with a specific code instead of growing without end, and the reads it takes
// must still serve the file's own bytes, proven again when their turn comes.
import { readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createSkillServer } from "skillset/mcp";
import { describe, expect, it } from "vitest";
import { MAX_WAITING_LARGE_READS } from "../../src/mcp/large-reads.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

/** Descriptors this process has open now. */
function openFds(): number {
	return readdirSync("/proc/self/fd").length;
}

const BIG = "0123456789abcdef".repeat(128 * 1024); // 2 MiB: a large read

describe.skipIf(process.platform !== "linux")("the large-read queue under a flood of large reads", () => {
	it("holds no descriptor for a waiting read and refuses reads over its bound with mcp.busy", async () => {
		const root = await writeTree(await tempDir(), { "big/SKILL.md": skillMd("big"), "big/assets/big.txt": BIG });
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], tools: false });
		try {
			const uri = "skill://big/assets/big.txt";
			// One read first, so the skill's folder is held and counted before the flood.
			expect(await server.direct.read(uri)).toHaveProperty("bytes");
			const before = openFds();
			const flood = MAX_WAITING_LARGE_READS * 3;
			const reads = Array.from({ length: flood }, () => server.direct.read(uri));
			// Every read has opened, proven and queued its file by now (that part runs before the first wait).
			expect(openFds()).toBeLessThanOrEqual(before + 1);
			const answers = await Promise.all(reads);
			const served = answers.filter((answer) => "bytes" in answer);
			const refused = answers.filter((answer) => !("bytes" in answer));
			expect(served.length).toBeGreaterThanOrEqual(MAX_WAITING_LARGE_READS);
			expect(served.length).toBeLessThan(flood);
			for (const answer of served) {
				if ("bytes" in answer) expect(Buffer.from(answer.bytes).toString("latin1")).toBe(BIG);
			}
			for (const answer of refused) {
				if ("bytes" in answer) continue;
				expect(answer.data).toEqual({ code: "mcp.busy" });
				expect(answer.message).toMatch(/large reads/);
			}
			expect(openFds()).toBeLessThanOrEqual(before);
			// The queue drained: the next large read is served.
			expect(await server.direct.read(uri)).toHaveProperty("bytes");
		} finally {
			await server.close();
		}
	}, 60_000);

	it("proves the file again when a waiting read's turn comes: a file swapped for a link meanwhile is not served", async () => {
		const root = await writeTree(await tempDir(), {
			"big/SKILL.md": skillMd("big"),
			"big/assets/a.txt": BIG,
			"big/assets/b.txt": BIG,
			"outside/secret.txt": `SECRET${BIG}`,
		});
		const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root], tools: false });
		try {
			// The first read takes the turn; the second waits behind it with its file proven, then the file is replaced.
			const first = server.direct.read("skill://big/assets/a.txt");
			const second = server.direct.read("skill://big/assets/b.txt");
			rmSync(join(root, "big", "assets", "b.txt"));
			symlinkSync(join(root, "outside", "secret.txt"), join(root, "big", "assets", "b.txt"));
			expect(await first).toHaveProperty("bytes");
			const answer = await second;
			// Proven when it was queued, it is proven again at its turn: the link is not followed (before, the descriptor
			// opened at queueing was read, and a waiting read held it all along).
			expect("bytes" in answer).toBe(false);
			expect(JSON.stringify(answer)).not.toContain("SECRET");
		} finally {
			await server.close();
		}
	});
});
