// Shared by the tests that attack a warm MCP start-up (saved-plan.test.ts, warm-verdicts.test.ts): the attacked trees'
// files, two start-ups that leave a warm cache, and what a client sees of the attacked skill at its first use.
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { createSkillServer, type SkillServer, type SkillServerOptions } from "skillset/mcp";
import { expect } from "vitest";
import { skillMd } from "../helpers/temp.ts";
import { errorCode, parseFrontmatter, RAW } from "./mcp-helpers.ts";

/** Bytes that no answer about a refused file may carry. */
export const SECRET = "SECRET-BYTES-OF-A-REFUSED-FILE";

/** A tree's files: a bystander, and per attack a skill with a secret note and a guide (`extra` added). */
export function attackFiles(attacks: readonly string[], extra: Record<string, string> = {}): Record<string, string> {
	const files: Record<string, string> = { "bystander/SKILL.md": skillMd("bystander"), ...extra };
	for (const attack of attacks) {
		files[`${attack}/SKILL.md`] = skillMd(attack);
		files[`${attack}/notes.md`] = `# Notes ${SECRET}\n`;
		files[`${attack}/references/guide.md`] = "# Guide\n";
	}
	return files;
}

/** A server's options for one root, nothing else found, no watcher; the cache on when `cacheDir` is given. */
export function rootOptions(
	base: string,
	root: string,
	cacheDir?: string,
	more: Partial<SkillServerOptions> = {},
): SkillServerOptions {
	return {
		cwd: base,
		home: `${base}/no-home`,
		defaultRoots: false,
		roots: [root],
		watch: false,
		...(cacheDir ? { cacheDir } : {}),
		...more,
	};
}

/** Two start-ups with the cache on: what the first saves, the second takes (and saves what it derives from it). */
export async function warmStartups(options: SkillServerOptions): Promise<void> {
	for (let i = 0; i < 2; i++) await (await createSkillServer(options)).close();
}

/** An SDK client and its skills extension, connected to `server` in memory. */
export async function connect(server: SkillServer): Promise<{ client: Client; skills: SkillsClient }> {
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	await server.connect(serverSide);
	const client = new Client({ name: "attacker", version: "1" });
	await client.connect(clientSide);
	return { client, skills: new SkillsClient(client, { parseFrontmatter }) };
}

/** What a warm server answered about the attacked skill at its first use. */
export interface FirstUse {
	served: boolean;
	listed: string[];
	names: unknown[];
	descriptions: unknown[];
	get: number | undefined;
	read: { code: number | undefined; data: unknown; text: string };
	directory: number | undefined;
}

/** Starts a server with `options` and asks it everything about `attack` (its `file` read), then closes it. */
export async function firstUse(options: SkillServerOptions, attack: string, file: string): Promise<FirstUse> {
	const server = await createSkillServer(options);
	const { client, skills } = await connect(server);
	try {
		const page = (await client.request({ method: "skills/list", params: {} }, RAW)) as {
			skills: { uri: string; frontmatter: { name: unknown; description: unknown } }[];
		};
		let read: FirstUse["read"] = { code: undefined, data: undefined, text: "" };
		try {
			read.text = JSON.stringify(await client.readResource({ uri: `skill://${attack}/${file}` }));
		} catch (error) {
			const { code, data, message } = error as { code?: number; data?: unknown; message: string };
			read = { code, data, text: message };
		}
		return {
			served: server.served.some((skill) => skill.name === attack),
			listed: page.skills.map((entry) => entry.uri),
			names: page.skills.map((entry) => entry.frontmatter.name),
			descriptions: page.skills.map((entry) => entry.frontmatter.description),
			get: await errorCode(skills.get(`skill://${attack}/SKILL.md`)),
			read,
			directory: await errorCode(skills.readDirectory(`skill://${attack}`)),
		};
	} finally {
		await client.close();
		await server.close();
	}
}

/** Every first use refuses the skill (or the file) without sending a byte of the refused file. */
export function expectRefused(use: FirstUse, attack: string): void {
	expect(use.listed).toContain("skill://bystander/SKILL.md");
	expect(use.listed).not.toContain(`skill://${attack}/SKILL.md`);
	expect(use.get).toBe(-32602);
	expect(use.read.code).toBeDefined();
	expect(use.read.text).not.toContain(SECRET);
	expect(use.read.text).not.toContain("root:x:0");
	expect(use.directory).toBe(-32602);
}
