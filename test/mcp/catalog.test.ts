// Issue 20: `skillset mcp` uses the library's catalog. Its instructions are the skills section fitted to the budget,
// its load_skill enum lists the described names only, and tools/list costs about what the library's tools cost.
// Measured through the built CLI on the shared corpus plus a generated 500-skill collection.
import { join } from "node:path";
import {
	buildSkillsSection,
	createSession,
	createSkillTools,
	discover,
	loadDefaultTokenizer,
	type Tokenizer,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { letterSpread, readMarkdownCatalog } from "../helpers/catalog-measure.ts";
import { runBuilt } from "../helpers/cli.ts";
import { generateSkills, writeSkillCollection } from "../helpers/skill-collection.ts";
import { SHARED_DIR, tempDir, writeTree } from "../helpers/temp.ts";
import { type Connected, stdioClient } from "./mcp-helpers.ts";

const CORPUS = join(SHARED_DIR, "corpus");
const ROOTS = [join(CORPUS, "anthropic-skills"), join(CORPUS, "openai-skills", "skills")];
const FLAGS = [...ROOTS.flatMap((root) => ["--root", root]), "--include-hidden", "--no-watch"];
const BUDGET = 4000;

let workspace: string;
let served: Connected;
let tokenizer: Tokenizer;

beforeAll(async () => {
	workspace = join(await tempDir(), "project");
	await writeSkillCollection(join(workspace, ".agents", "skills"), generateSkills(500));
	served = await stdioClient(workspace, [workspace, ...FLAGS, "--budget-tokens", String(BUDGET)]);
	tokenizer = await loadDefaultTokenizer();
}, 120_000);

/** The enum of a tool's `name` input: the names it lists. */
function enumOf(tool: { inputSchema: unknown }): string[] {
	const name = (tool.inputSchema as { properties: { name: { anyOf?: { enum?: string[] }[] } } }).properties.name;
	return name.anyOf?.find((option) => option.enum)?.enum ?? [];
}

describe("skillset mcp on a big collection", () => {
	it("builds its instructions from the same catalog: every name, no alphabet bias, within the budget", async () => {
		const instructions = served.client.getInstructions() ?? "";
		expect(tokenizer.count(instructions)).toBeLessThanOrEqual(BUDGET);
		const catalog = readMarkdownCatalog(instructions.slice(instructions.indexOf("\n- ") + 1));
		const described = catalog.described.map((entry) => entry.name);
		const listed = [...described, ...catalog.named];
		const { resources } = await served.client.listResources();
		expect(resources.length).toBeGreaterThan(0);
		const all = (await served.skills.list()).skills.map((skill) => skill.uri.split("/")[2] ?? "");
		expect(all.length).toBeGreaterThan(500);
		expect(listed.length + catalog.more).toBe(all.length);
		expect(described.length).toBeGreaterThan(20);
		for (const range of letterSpread(all, described)) expect(range.ratio, range.range).toBeLessThanOrEqual(2);
	}, 60_000);

	it("lists only the described names in load_skill's enum, and costs at most 1.5× the library's tools", async () => {
		const { tools } = await served.client.listTools();
		const load = tools.find((tool) => tool.name === "load_skill");
		if (!load) throw new Error("no load_skill");
		const instructions = served.client.getInstructions() ?? "";
		const described = readMarkdownCatalog(instructions.slice(instructions.indexOf("\n- ") + 1)).described;
		expect(enumOf(load).sort()).toEqual(described.map((entry) => entry.name).sort());
		// The library's tool definitions for the same skills and budget, as a host would register them.
		const { index } = await discover({ cwd: workspace, home: workspace, roots: ROOTS, includeHidden: true });
		const section = await buildSkillsSection(index, { budget: { tokens: BUDGET }, tokenizer });
		const library = createSkillTools(createSession(index), { catalog: section.catalog });
		const size = (list: readonly { name: string; description?: string; inputSchema: unknown }[]) =>
			JSON.stringify(list.map((t) => [t.name, t.description, t.inputSchema])).length;
		expect(size(tools)).toBeLessThanOrEqual(1.5 * size(library));
		// Not the old every-name enum: the enum is the catalog's, far below the 12 KB of 500 names.
		expect(JSON.stringify(enumOf(load)).length).toBeLessThan(JSON.stringify(section.catalog.report.kept).length * 2);
	}, 60_000);

	it("says clearly when the budget cannot hold the instructions, instead of crashing", async () => {
		const run = await runBuilt(["mcp", workspace, ...FLAGS, "--budget-tokens", "5", "--check"], {
			cwd: workspace,
			env: { HOME: workspace },
		});
		expect(run.exitCode).not.toBe(0);
		expect(run.stderr).toMatch(/does not fit in 5 tokens.*--budget-tokens/);
		expect(run.stderr).not.toMatch(/\n\s+at /);
	}, 60_000);
});

describe("skillset mcp without tools", () => {
	it("tells clients to read SKILL.md resources, with the same fitted catalog", async () => {
		const dir = await tempDir();
		await writeTree(dir, {});
		await writeSkillCollection(join(dir, ".agents", "skills"), generateSkills(60));
		const bare = await stdioClient(dir, [dir, "--no-tools", "--no-watch", "--budget-tokens", "600"]);
		const instructions = bare.client.getInstructions() ?? "";
		expect(instructions).toContain("read its SKILL.md resource");
		expect(instructions).not.toContain("load_skill tool");
		expect(tokenizer.count(instructions)).toBeLessThanOrEqual(600);
		const shown = readMarkdownCatalog(instructions.slice(instructions.indexOf("\n- ") + 1));
		expect(shown.described.length + shown.named.length + shown.more).toBe(60);
	}, 60_000);
});
