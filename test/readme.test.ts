import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/temp.ts";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
	it("is a front page: at most 250 lines, a path per kind of user, each ending in a link to its page", () => {
		expect(readme.split("\n").length - 1).toBeLessThanOrEqual(250);
		const paths = [...readme.matchAll(/^### (I .+)\n([\s\S]*?)(?=^##)/gm)];
		expect(paths.map((m) => m[1])).toEqual([
			"I write skills",
			"I build an agent",
			"I use an MCP client",
			"I run skills for a team",
			"I want an agent in my terminal",
		]);
		for (const [, , body = ""] of paths) expect(body.trimEnd()).toMatch(/\]\(docs\/[a-z-]+\.md(#[a-z-]+)?\)$/);
	});

	it("has one docs/ page per surface, each listed in docs/README.md", () => {
		const index = readFileSync(new URL("../docs/README.md", import.meta.url), "utf8");
		for (const page of [
			"cli",
			"configuration",
			"discovery-and-catalog",
			"runtime-and-tools",
			"mcp-server",
			"origins-and-installs",
			"agent",
			"security",
			"deploying",
			"codes",
			"performance",
		])
			expect(index).toContain(`](${page}.md)`);
	});

	it("runs the skill author's path as written, each command exiting 0 (the built CLI for `npx skillset`)", async () => {
		const block = /### I write skills\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
		const commands = block.split("\n").filter((line) => line.startsWith("npx skillset "));
		expect(commands.length).toBeGreaterThanOrEqual(4);
		const cwd = await tempDir();
		const bin = join(import.meta.dirname, "..", "dist", "cli", "bin.cjs");
		for (const line of commands) {
			// Words as a shell reads this line: the description is the one quoted argument; a `#` starts a comment.
			const words = [...line.replace(/\s+#.*$/, "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
			execFileSync(process.execPath, [bin, ...words.slice(2)], { cwd, env: { ...process.env, HOME: cwd } });
		}
	}, 60_000);

	it("gives the two set-up commands", () => {
		expect(readme).toContain("npm ci && npm start");
		expect(readme).toContain("npm ci && npm test");
	});
});
