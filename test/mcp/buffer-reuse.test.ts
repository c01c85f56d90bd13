// Issue 23: large reads borrow their file buffer from a pool and give it back only once the answer is written. Two
// readers of different large files of one size class, one of them slow, and readers that leave mid-answer, round
// after round (so buffers are reused): each answer must carry exactly its own file, with and without the fast path.
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { join } from "node:path";
import { createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { headersOf, initialize, leavingReader, post } from "./fast-path-helpers.ts";

const MIB = 1024 * 1024;
/** Two texts of the same size class (3 MiB) that differ everywhere, and a binary file of that class. */
const files: Record<string, string | Uint8Array> = {
	"big/SKILL.md": skillMd("big"),
	"big/one.md": 'one " \\ \n'.repeat((3 * MIB - 100) / 10),
	"big/two.md": "TWO\t2é\n".repeat((3 * MIB - 100) / 9),
	"big/three.bin": randomBytes(3 * MIB - 7),
};
const urls: string[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
	const root = await writeTree(join(await tempDir(), "skills"), files);
	const server = await createSkillServer({ cwd: root, home: root, defaultRoots: false, roots: [root] });
	const fast = await serveHttp(server, { port: 0 });
	const sdk = await serveHttp(server, { port: 0, fastPath: false });
	urls.push(fast.url, sdk.url);
	closers.push(
		() => fast.close(),
		() => sdk.close(),
		() => server.close(),
	);
}, 60_000);

afterAll(async () => {
	for (const close of closers) await close();
});

function readOf(id: number, rel: string) {
	return { jsonrpc: "2.0", id, method: "resources/read", params: { uri: `skill://big/${rel}` } };
}

/** The content of a read, taken slowly: the reader pauses 5 ms after every chunk it gets. */
function slowRead(url: string, session: string, rel: string): Promise<{ text?: string; blob?: string }> {
	return new Promise((resolve, reject) => {
		const headers = {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			...headersOf(session),
		};
		const req = request(url, { method: "POST", agent: false, headers }, (res) => {
			const chunks: Buffer[] = [];
			res.on("data", (chunk: Buffer) => {
				chunks.push(chunk);
				res.pause();
				setTimeout(() => res.resume(), 5);
			});
			res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")).result.contents[0]));
			res.on("error", reject);
		});
		req.on("error", reject);
		req.end(JSON.stringify(readOf(1, rel)));
	});
}

async function quickRead(
	url: string,
	session: string,
	id: number,
	rel: string,
): Promise<{ text?: string; blob?: string }> {
	const answer = await post(url, readOf(id, rel), headersOf(session));
	return JSON.parse(answer.body).result.contents[0];
}

describe("reused buffers of large reads", () => {
	it("give a slow reader, a fast one and the one after clients left exactly their own file", async () => {
		for (const url of urls) {
			const session = await initialize(url, "2025-11-25");
			for (let round = 0; round < 3; round++) {
				const [slow, quick, binary] = await Promise.all([
					slowRead(url, session, "one.md"),
					// Ids differ: the SDK's transport routes an answer by its id, and two in flight with one id would meet.
					quickRead(url, session, 2, "two.md"),
					quickRead(url, session, 4, "three.bin"),
					leavingReader(url, session, readOf(3, "two.md")),
				]);
				expect(slow.text === files["big/one.md"], `${url} round ${round}: the slow reader`).toBe(true);
				expect(quick.text === files["big/two.md"], `${url} round ${round}: the quick reader`).toBe(true);
				const bytes = Buffer.from(binary.blob ?? "", "base64");
				expect(bytes.equals(files["big/three.bin"] as Uint8Array), `${url} round ${round}: the binary`).toBe(true);
			}
		}
	}, 120_000);
});
