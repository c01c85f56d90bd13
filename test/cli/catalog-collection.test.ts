// Issue 20: a catalog that fits does not hide skills by their first letter. Measured through the built CLI on the
// shared corpus plus a generated 500-skill collection, as a user with a big collection would run it.
import { join } from "node:path";
import { loadDefaultTokenizer, type Tokenizer } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { letterSpread, median, readMarkdownCatalog, wordCount } from "../helpers/catalog-measure.ts";
import { runBuilt } from "../helpers/cli.ts";
import { generateSkills, writeSkillCollection } from "../helpers/skill-collection.ts";
import { SHARED_DIR, tempDir, writeTree } from "../helpers/temp.ts";

const CORPUS = join(SHARED_DIR, "corpus");
const CORPUS_FLAGS = [
	"--root",
	join(CORPUS, "anthropic-skills"),
	"--root",
	join(CORPUS, "openai-skills", "skills"),
	"--include-hidden",
];

let workspace: string;
let home: string;
let all: string[];
let corpus: string[];
let tokenizer: Tokenizer;

async function catalog(...args: string[]) {
	const run = await runBuilt(["catalog", workspace, ...CORPUS_FLAGS, "--json", ...args], {
		cwd: workspace,
		env: { HOME: home },
	});
	expect(run.stderr).toBe("");
	expect(run.exitCode).toBe(0);
	return JSON.parse(run.stdout) as { text: string; report: { kept: string[]; tokens: number; step: string } };
}

beforeAll(async () => {
	const root = await tempDir();
	workspace = join(root, "project");
	home = join(root, "home");
	await writeTree(home, {});
	await writeSkillCollection(join(workspace, ".agents", "skills"), generateSkills(500));
	const list = await runBuilt(["list", workspace, ...CORPUS_FLAGS, "--json"], { cwd: workspace, env: { HOME: home } });
	const selected = JSON.parse(list.stdout) as { name: string; file: string }[];
	all = selected.map((skill) => skill.name);
	corpus = selected.filter((skill) => skill.file.startsWith(CORPUS)).map((skill) => skill.name);
	tokenizer = await loadDefaultTokenizer();
}, 120_000);

describe("skillset catalog of a big collection at 4,000 tokens (markdown)", () => {
	it("lists every skill's name and describes skills from across the alphabet, at least 12 words each", async () => {
		expect(all.length).toBeGreaterThan(500);
		const { text, report } = await catalog("--budget-tokens", "4000");
		const shown = readMarkdownCatalog(text);
		const described = shown.described.map((entry) => entry.name);
		// Every selected skill's name is in the catalog: described, or on the line of names.
		expect([...described, ...shown.named].sort()).toEqual([...all].sort());
		expect(shown.more).toBe(0);
		expect(report.kept).toEqual(described);
		expect(described.length).toBeGreaterThan(40);
		// The described skills' initials spread over the alphabet like all names' (no range over twice its share).
		for (const range of letterSpread(all, described)) expect(range.ratio, range.range).toBeLessThanOrEqual(2);
		// The median described entry says enough to choose by: at least 12 words.
		expect(median(shown.described.map((entry) => wordCount(entry.description)))).toBeGreaterThanOrEqual(12);
		// Within budget, counted here as well as reported.
		expect(tokenizer.count(text)).toBeLessThanOrEqual(4000);
		expect(report.tokens).toBe(tokenizer.count(text));
		// Precedence first: the skills of the roots given first are all described.
		for (const name of corpus) expect(described).toContain(name);
	}, 60_000);

	it("describes the same skills in every run, so the prompt cache survives", async () => {
		const [first, second] = [await catalog("--budget-tokens", "4000"), await catalog("--budget-tokens", "4000")];
		expect(second.text).toBe(first.text);
	}, 60_000);

	it("leaves skills out only when their names do not fit, and then says how many and where to search", async () => {
		const { text, report } = await catalog("--budget-tokens", "1500");
		const shown = readMarkdownCatalog(text);
		expect(report.step).toBe("dropped");
		expect(shown.described).toEqual([]);
		expect(shown.named.length).toBeGreaterThan(100);
		expect(shown.named.length + shown.more).toBe(all.length);
		expect(text.split("\n").at(-1)).toBe(`- ${shown.more} more skills are not listed: use search_skills to find them.`);
		expect(tokenizer.count(text)).toBeLessThanOrEqual(1500);
	}, 60_000);
});
