import { join } from "node:path";
import { discover, validateSkillPath } from "skillset";
import { createMcpOrigin, createSkillServer, serveHttp } from "skillset/mcp";
import { afterAll, describe, expect, it } from "vitest";
import { SHARED_DIR, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 21 item 2: every skill `skillset validate` accepts must come back through `skillset mcp` → `--mcp`. The SDK
// skills client's own frontmatter parser cannot read some valid YAML (a flow list holding a mapping), so the origin
// hands it skillset's parser.
const CORPUS = join(SHARED_DIR, "corpus");
const CORPUS_ROOTS = [
	join(CORPUS, "anthropic-skills"),
	join(CORPUS, "openai-skills", "skills", ".system"),
	join(CORPUS, "openai-skills", "skills", ".curated"),
	join(CORPUS, "openai-skills", "skills", ".experimental"),
];

// Frontmatter shapes real collections use: each is valid YAML that skillset's validator accepts.
const SHAPES = [
	"argument-hint: [optional: date]",
	"argument-hint: [file, mode]",
	'argument-hint: "<path> [--fast]"',
	"allowed-tools: Read Grep Bash(git status:*)",
	"allowed-tools:\n  - Read\n  - Write",
	"metadata:\n  version: '1.0'\n  author: someone",
	"license: Apache-2.0\ncompatibility: Requires git and Node 20",
	"user-invocable: false\nmodel: inherit",
	"description-extra: >-\n  folded text\n  over lines",
	"tags: {a: b, c: [d, e]}",
];

async function generated(): Promise<string> {
	const files: Record<string, string> = {};
	SHAPES.forEach((extra, i) => {
		const name = `shape-${i}`;
		files[`${name}/SKILL.md`] =
			`---\nname: ${name}\ndescription: "Shape ${i}: reads: tricky YAML."\n${extra}\n---\n# ${name}\n`;
		files[`${name}/references/notes.md`] = `notes ${i}\n`;
	});
	return writeTree(await tempDir(), files);
}

describe("skillset mcp → --mcp round trip", () => {
	const closers: (() => Promise<void>)[] = [];
	afterAll(async () => {
		for (const close of closers.reverse()) await close();
	});

	it("brings back every skill the server serves: the whole shared corpus and a tree of YAML shapes", async () => {
		const shapes = await generated();
		const roots = [...CORPUS_ROOTS, shapes];
		for (const extra of SHAPES.keys()) {
			const result = await validateSkillPath(join(shapes, `shape-${extra}`), { profile: "lenient" });
			expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		}
		const home = await tempDir();
		const server = await createSkillServer({ cwd: home, home, defaultRoots: false, roots, watch: false });
		const http = await serveHttp(server, { port: 0, token: "round-trip-token" });
		closers.push(
			() => server.close(),
			() => http.close(),
		);
		const servedNames = server.served.map((s) => s.name).sort();
		expect(servedNames).toEqual(expect.arrayContaining(["shape-0", "skill-creator", "frontend-design"]));
		expect(servedNames.length).toBe(20 + SHAPES.length);
		const origin = createMcpOrigin(
			"peer",
			{ url: http.url, token: "round-trip-token" },
			{ cacheDir: await tempDir(), timeoutMs: 60_000 },
		);
		const { index, report } = await discover({ cwd: home, home, defaultRoots: false, origins: [origin] });
		expect(report.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
		expect(index.selected.map((s) => s.id).sort()).toEqual(servedNames);
		expect(index.get("shape-0@mcp:peer")?.origin ?? index.get("shape-0")?.origin).toBe("mcp:peer");
	}, 120_000);
});
