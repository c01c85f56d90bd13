import { join } from "node:path";
import { buildCatalog, discover } from "skillset";
import { describe, expect, it } from "vitest";
import { SHARED_DIR } from "../helpers/temp.ts";

const CORPUS = join(SHARED_DIR, "corpus");
const OPENAI = join(CORPUS, "openai-skills", "skills");

describe("the real corpus (../shared/corpus)", () => {
	it("scans with a pinned report: every skill reachable under a unique id", async () => {
		const { index, report } = await discover({
			cwd: CORPUS,
			home: join(CORPUS, "no-home"),
			defaultRoots: false,
			roots: [join(CORPUS, "anthropic-skills"), OPENAI],
			userRoots: [join(OPENAI, ".curated"), join(OPENAI, ".experimental")],
			builtinRoots: [join(OPENAI, ".system")],
		});
		const pinned = {
			roots: report.roots.map((r) => [
				r.path.slice(CORPUS.length + 1),
				r.scope,
				r.counts.candidates,
				r.counts.selected,
			]),
			selected: report.selected.map((s) => `${s.qualifiedName} ${s.diagnostics.map((d) => d.code).join(",")}`.trim()),
			rejected: report.rejected.length,
			shadowed: report.shadowed.length,
			diagnostics: report.diagnostics.map((d) => [d.code, d.file.slice(CORPUS.length + 1), d.message]),
		};
		expect(pinned).toEqual({
			roots: [
				["anthropic-skills", "workspace", 11, 11],
				["openai-skills/skills", "workspace", 0, 0],
				["openai-skills/skills/.curated", "user", 6, 6],
				["openai-skills/skills/.experimental", "user", 2, 2],
				["openai-skills/skills/.system", "builtin", 2, 2],
			],
			selected: [
				"algorithmic-art@workspace",
				"brand-guidelines@workspace",
				"canvas-design@workspace",
				"claude-api@workspace description.too-long",
				"frontend-design@workspace",
				"internal-comms@workspace",
				"mcp-builder@workspace",
				"slack-gif-creator@workspace",
				"theme-factory@workspace",
				"web-artifacts-builder@workspace",
				"webapp-testing@workspace",
				"gh-address-comments@user",
				"gh-fix-ci@user",
				"notion-knowledge-capture@user",
				"notion-meeting-intelligence@user",
				"notion-research-documentation@user",
				"notion-spec-to-implementation@user",
				"create-plan@user",
				"linear@user",
				"skill-creator@builtin",
				"skill-installer@builtin",
			],
			rejected: 0,
			shadowed: 0,
			diagnostics: [
				[
					"walk.hidden-skipped",
					"openai-skills/skills",
					"Hidden folders were not scanned: .curated, .experimental, .system",
				],
			],
		});
		expect(new Set(index.names()).size).toBe(index.names().length);
	});

	it("fits the corpus into a small budget without losing a skill", async () => {
		const { index } = await discover({
			cwd: CORPUS,
			home: join(CORPUS, "no-home"),
			defaultRoots: false,
			roots: [join(CORPUS, "anthropic-skills"), join(OPENAI, ".curated")],
		});
		const catalog = await buildCatalog(index, { budget: { tokens: 600 } });
		expect(catalog.report.tokens).toBeLessThanOrEqual(600);
		expect(catalog.report.kept.length + catalog.report.named.length).toBe(17);
		expect(catalog.report.kept.length).toBeGreaterThan(10);
		expect(catalog.report.omitted).toEqual([]);
	});
});
