import { join } from "node:path";
import { discover } from "skillset";
import { createMcpOrigin, createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// skillset as both sides: the MCP origin reads skills from skillset's own server, over stdio (the built CLI, as a
// desktop client would start it) and over Streamable HTTP, and verifies every file it serves.
const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");

async function served() {
	return writeTree(await tempDir(), {
		".agents/skills/review/SKILL.md": skillMd("review", "Reviews diffs."),
		".agents/skills/review/references/checklist.md": "- tests\n",
		".agents/skills/deploy/SKILL.md": skillMd("deploy", "Deploys things."),
		".agents/skills/deploy/scripts/run.sh": "#!/bin/sh\necho deploy\n",
	});
}

async function discoverFrom(origin: ReturnType<typeof createMcpOrigin>) {
	const cwd = await tempDir();
	return discover({ cwd, home: cwd, origins: [origin] });
}

describe("skillset's own MCP server as an origin", () => {
	const closers: (() => Promise<void>)[] = [];
	afterAll(async () => {
		for (const close of closers) await close();
	});

	it("over stdio: every skill arrives verified, with its files, under the host's label", async () => {
		const project = await served();
		const origin = createMcpOrigin(
			"team",
			{ command: process.execPath, args: [BIN, "mcp", project, "--no-watch"] },
			{ cacheDir: await tempDir(), timeoutMs: 20_000 },
		);
		const { index, report } = await discoverFrom(origin);
		expect(report.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
		expect(index.get("review")).toMatchObject({ origin: "mcp:team", qualifiedName: "review@mcp:team" });
		expect(Object.keys(index.get("deploy")?.pins ?? {}).sort()).toEqual(["SKILL.md", "scripts/run.sh"]);
	}, 30_000);

	it("over Streamable HTTP, with a bearer token", async () => {
		const project = await served();
		const server = await createSkillServer({ cwd: project, home: project, watch: false });
		const http = await serveHttp(server, { port: 0, token: "s3cret-token" });
		closers.push(
			() => http.close(),
			() => server.close(),
		);
		const refused = await discoverFrom(
			createMcpOrigin("team", { url: http.url }, { cacheDir: await tempDir(), timeoutMs: 10_000 }),
		);
		expect(refused.index.size).toBe(0);
		expect(refused.report.diagnostics.map((d) => d.code)).toContain("origin.failed");
		const origin = createMcpOrigin(
			"team",
			{ url: http.url, token: "s3cret-token" },
			{ cacheDir: await tempDir(), timeoutMs: 10_000 },
		);
		const { index } = await discoverFrom(origin);
		expect(index.get("review")?.description).toBe("Reviews diffs.");
		expect(Object.keys(index.get("review")?.pins ?? {}).sort()).toEqual(["SKILL.md", "references/checklist.md"]);
	});

	it("two servers serving the same skill URI: each copy answers only to its own origin, neither takes the name", async () => {
		const project = await served();
		const start = (label: string) =>
			createMcpOrigin(
				label,
				{ command: process.execPath, args: [BIN, "mcp", project, "--no-watch"] },
				{ cacheDir, timeoutMs: 20_000 },
			);
		const cacheDir = await tempDir();
		const cwd = await tempDir();
		const { index } = await discover({ cwd, home: cwd, origins: [start("one"), start("two")] });
		expect(index.get("review")).toBeUndefined();
		expect(index.get("review@mcp:one")?.origin).toBe("mcp:one");
		expect(index.get("review@mcp:two")?.origin).toBe("mcp:two");
		expect(index.get("review@mcp:one")?.dir).not.toBe(index.get("review@mcp:two")?.dir);
	}, 30_000);
});

describe("a skills server whose discovery has remote origins", () => {
	it("does not serve another origin's skills again, and says so", async () => {
		const project = await served();
		const folder = await writeTree(await tempDir(), { "remote-one/SKILL.md": skillMd("remote-one") });
		const origin = {
			origin: "index:elsewhere",
			load: async () => ({ folder, skills: [{ dir: "remote-one" }], diagnostics: [] }),
		};
		const server = await createSkillServer({ cwd: project, home: project, watch: false, origins: [origin] });
		expect(server.served.map((s) => s.name).sort()).toEqual(["deploy", "review"]);
		expect(server.leftOut).toContainEqual(expect.objectContaining({ name: "remote-one", code: "mcp.remote" }));
		await server.close();
	});
});
