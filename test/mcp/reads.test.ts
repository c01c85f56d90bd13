// Issue 18: large reads do not stall small ones. The official SDK client asks the server for five 8 MiB files and
// then for a small one; the small one is answered first, while the big ones are still being read. Before, a read
// ran synchronously from open to answer, so the server answered in arrival order and the small read waited for
// all five (under five 8 MiB readers a small read took 100-190 ms instead of 1 ms).
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { createLock, discover } from "skillset";
import { createSkillServer, type SkillServer } from "skillset/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

const BIG_BYTES = 8 * 1024 * 1024 - 4096;
const BIGS = [0, 1, 2, 3, 4];

let server: SkillServer;
let client: Client;
let verifying: SkillServer;
let verifyingClient: Client;

async function connect(skills: SkillServer): Promise<Client> {
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	await skills.connect(serverSide);
	const connected = new Client({ name: "reader", version: "1" });
	await connected.connect(clientSide);
	return connected;
}

beforeAll(async () => {
	const ws = await tempDir();
	const line = `${"lorem ipsum dolor sit amet ".repeat(37)}\n`;
	const big = line.repeat(Math.floor(BIG_BYTES / line.length));
	const files: Record<string, string> = { "small/SKILL.md": skillMd("small"), "small/notes.md": "# Notes\n" };
	for (const i of BIGS) {
		files[`big-${i}/SKILL.md`] = skillMd(`big-${i}`);
		files[`big-${i}/assets/data.txt`] = big;
	}
	const root = await writeTree(join(ws, "skills"), files);
	const settings = { cwd: ws, home: ws, defaultRoots: false, roots: [root] };
	server = await createSkillServer(settings);
	client = await connect(server);
	// In verify mode an activation hashes the skill's every file: 8 MiB here.
	const { lock } = createLock((await discover(settings)).index.selected, ws);
	verifying = await createSkillServer({ ...settings, integrity: { lock, root: ws } });
	verifyingClient = await connect(verifying);
}, 60_000);

afterAll(async () => {
	await client?.close();
	await server?.close();
	await verifyingClient?.close();
	await verifying?.close();
});

describe("resources/read under large reads", () => {
	it("answers a small read while five 8 MiB reads that came before it are still in flight", async () => {
		for (let round = 0; round < 3; round++) {
			const finished: string[] = [];
			const bigs = BIGS.map(async (i) => {
				const answer = await client.readResource({ uri: `skill://big-${i}/assets/data.txt` });
				finished.push(`big-${i}`);
				return answer.contents[0] as { text?: string };
			});
			const small = await client.readResource({ uri: "skill://small/notes.md" });
			finished.push("small");
			expect(small.contents[0]).toMatchObject({ text: "# Notes\n" });
			for (const content of await Promise.all(bigs)) expect(content.text?.length).toBeGreaterThan(BIG_BYTES - 1024);
			expect(finished[0], `round ${round}: ${finished.join(", ")}`).toBe("small");
		}
	}, 120_000);

	it("answers a small read_skill_resource call while five calls for 8 MiB files are in flight", async () => {
		const call = (name: string, path: string) =>
			client.callTool({ name: "read_skill_resource", arguments: { name, path } });
		for (let round = 0; round < 2; round++) {
			const finished: string[] = [];
			const bigs = BIGS.map(async (i) => {
				const answer = await call(`big-${i}`, "assets/data.txt");
				finished.push(`big-${i}`);
				return answer;
			});
			const small = await call("small", "notes.md");
			finished.push("small");
			expect(JSON.stringify(small.content)).toContain("# Notes");
			for (const answer of await Promise.all(bigs)) expect(answer.isError).toBeFalsy();
			expect(finished[0], `round ${round}: ${finished.join(", ")}`).toBe("small");
		}
	}, 120_000);

	it("in verify mode, answers a small prompts/get while five activations hash 8 MiB skills", async () => {
		for (let round = 0; round < 2; round++) {
			const finished: string[] = [];
			const bigs = BIGS.map(async (i) => {
				const answer = await verifyingClient.getPrompt({ name: `big-${i}` });
				finished.push(`big-${i}`);
				return answer;
			});
			const small = await verifyingClient.getPrompt({ name: "small" });
			finished.push("small");
			expect(JSON.stringify(small.messages)).toContain("# small");
			for (const answer of await Promise.all(bigs)) expect(JSON.stringify(answer.messages)).toContain("# big-");
			expect(finished[0], `round ${round}: ${finished.join(", ")}`).toBe("small");
		}
	}, 120_000);
});
