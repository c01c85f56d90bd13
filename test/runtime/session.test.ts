import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSession, estimateTokenizer, isSkillContent, type StampedEvent } from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf } from "../helpers/temp.ts";

const tokenizer = estimateTokenizer;
const BODY = "# Steps\n\nDo the thing.";
const skill = (name: string, extra = "", body = BODY) =>
	`---\nname: ${name}\ndescription: Does ${name} things.\n${extra ? `${extra}\n` : ""}---\n${body}\n`;

describe("SkillSession.activate", () => {
	it("returns the body without frontmatter, the real folder, verified resources, cost and watermark", async () => {
		const { index, root } = await indexOf({
			"pdf/SKILL.md": skill("pdf"),
			"pdf/scripts/extract.py": "print(1)\n",
			"pdf/references/FORMS.md": "# Forms\n",
			"pdf/assets/logo.png": new Uint8Array([0x89, 0x50]),
			"pdf/NOTES.txt": "notes",
		});
		const session = createSession(index, { tokenizer });
		const result = await session.activate("pdf", { reason: "user asked about PDFs" });
		if (!result.ok) throw new Error(result.message);
		expect(result).toMatchObject({
			name: "pdf",
			qualifiedName: "pdf@workspace",
			cached: false,
			body: BODY,
			dir: join(root, "pdf"),
			resources: {
				scripts: ["scripts/extract.py"],
				references: ["references/FORMS.md"],
				assets: ["assets/logo.png"],
				other: ["NOTES.txt"],
				truncated: false,
			},
			watermark: { active: 1, maxActive: 3, maxTokens: 20_000 },
		});
		expect(result.tokens).toBe(tokenizer.count(result.text));
		expect(result.watermark.tokens).toBe(result.tokens);
		expect(result.text).toBe(
			[
				'<skill_content name="pdf">',
				BODY,
				"",
				`Base directory for this skill: ${join(root, "pdf")}`,
				"Relative paths in this skill are relative to that directory.",
				"<skill_resources>",
				"<file>scripts/extract.py</file>",
				"<file>references/FORMS.md</file>",
				"<file>assets/logo.png</file>",
				"<file>NOTES.txt</file>",
				"</skill_resources>",
				"</skill_content>",
			].join("\n"),
		);
		expect(isSkillContent(result.text)).toBe(true);
		expect(isSkillContent("# not a skill")).toBe(false);
	});

	it("lists at most the bounded number of resources and says so", async () => {
		const files: Record<string, string> = { "many/SKILL.md": skill("many") };
		for (let i = 0; i < 12; i++) files[`many/references/r${String(i).padStart(2, "0")}.md`] = "x";
		const { index } = await indexOf(files);
		const result = await createSession(index, { tokenizer, maxResourceFiles: 5 }).activate("many");
		expect(result.ok && result.resources.references.length).toBe(5);
		expect(result.ok && result.resources.truncated).toBe(true);
	});

	it("answers an unknown name with the available names and the closest ones", async () => {
		const { index } = await indexOf({ "deploy/SKILL.md": skill("deploy"), "review/SKILL.md": skill("review") });
		const result = await createSession(index, { tokenizer }).activate("deplyo");
		expect(result).toMatchObject({ ok: false, code: "unknown", available: ["deploy", "review"], closest: ["deploy"] });
		expect(!result.ok && result.message).toContain("Did you mean 'deploy'?");
	});

	it("works with qualified names", async () => {
		const { index } = await indexOf({ "deploy/SKILL.md": skill("deploy") });
		const result = await createSession(index, { tokenizer }).activate("deploy@workspace");
		expect(result.ok && result.name).toBe("deploy");
	});

	it("does not count a re-activation twice, and re-delivers the full body after compaction", async () => {
		const { index } = await indexOf({ "a/SKILL.md": skill("a") });
		const session = createSession(index, { tokenizer });
		const first = await session.activate("a");
		const again = await session.activate("a");
		expect(again).toMatchObject({ ok: true, cached: true, body: null });
		expect(again.ok && isSkillContent(again.text)).toBe(true);
		expect(session.watermark()).toMatchObject({ active: 1, tokens: first.ok ? first.tokens : -1 });
		session.markCompacted();
		const after = await session.activate("a");
		expect(after).toMatchObject({ ok: true, cached: false, body: BODY });
		expect(session.watermark().active).toBe(1);
		expect(session.totals().tier2.count).toBe(2);
	});

	it("makes concurrent activations of one skill into one activation", async () => {
		const { index } = await indexOf({ "a/SKILL.md": skill("a") });
		const events: StampedEvent[] = [];
		const session = createSession(index, { tokenizer, onEvent: (e) => events.push(e) });
		const results = await Promise.all(Array.from({ length: 5 }, () => session.activate("a")));
		expect(results.filter((r) => r.ok && !r.cached)).toHaveLength(1);
		expect(results.filter((r) => r.ok && r.cached)).toHaveLength(4);
		expect(events.filter((e) => e.type === "skill.activated")).toHaveLength(1);
		expect(session.watermark().active).toBe(1);
	});

	it("refuses past the active-skill limit with the watermark, until one is deactivated", async () => {
		const { index } = await indexOf({ "a/SKILL.md": skill("a"), "b/SKILL.md": skill("b"), "c/SKILL.md": skill("c") });
		const session = createSession(index, { tokenizer, maxActive: 2 });
		await session.activate("a");
		await session.activate("b");
		const refused = await session.activate("c");
		expect(refused).toMatchObject({ ok: false, code: "limit", watermark: { active: 2, maxActive: 2 } });
		expect(session.deactivate("a")).toBe(true);
		expect((await session.activate("c")).ok).toBe(true);
		expect(session.active).toEqual(["b", "c"]);
	});

	it("refuses past the token cap", async () => {
		const { index } = await indexOf({ "big/SKILL.md": skill("big", "", "word ".repeat(2000)) });
		const refused = await createSession(index, { tokenizer, maxTokens: 500 }).activate("big");
		expect(refused).toMatchObject({ ok: false, code: "limit", watermark: { tokens: 0, maxTokens: 500 } });
	});

	it("activates dependencies first, counts them against the limits, and refuses cycles", async () => {
		const { index } = await indexOf({
			"base/SKILL.md": skill("base"),
			"mid/SKILL.md": skill("mid", "depends_on: [base]"),
			"top/SKILL.md": skill("top", "depends_on:\n  - mid"),
			"x/SKILL.md": skill("x", "depends_on: [y]"),
			"y/SKILL.md": skill("y", "depends_on: [x]"),
			"lost/SKILL.md": skill("lost", "depends_on: [nowhere]"),
		});
		const session = createSession(index, { tokenizer });
		const top = await session.activate("top");
		expect(top.ok && top.dependencies.map((d) => d.name)).toEqual(["base", "mid"]);
		expect(top.ok && top.fullText.indexOf('name="base"')).toBeLessThan(top.ok ? top.fullText.indexOf('name="top"') : 0);
		expect(session.active).toEqual(["base", "mid", "top"]);
		const tight = createSession(index, { tokenizer, maxActive: 2 });
		expect(await tight.activate("top")).toMatchObject({ ok: false, code: "limit" });
		expect(await session.activate("x")).toMatchObject({ ok: false, code: "cycle" });
		expect(await session.activate("lost")).toMatchObject({ ok: false, code: "unknown" });
	});

	it("refuses user-only skills to the model and model-only skills to the user", async () => {
		const { index } = await indexOf({
			"manual/SKILL.md": skill("manual", "disable-model-invocation: true"),
			"auto/SKILL.md": skill("auto", "user-invocable: false"),
		});
		const session = createSession(index, { tokenizer });
		expect(await session.activate("manual")).toMatchObject({ ok: false, code: "not-invocable" });
		expect((await session.activate("manual", { invoker: "user" })).ok).toBe(true);
		expect(await session.activate("auto", { invoker: "user" })).toMatchObject({ ok: false, code: "not-invocable" });
	});

	it("refuses a skill whose SKILL.md broke or vanished after discovery", async () => {
		const { index, root } = await indexOf({ "gone/SKILL.md": skill("gone"), "broke/SKILL.md": skill("broke") });
		await rm(join(root, "gone"), { recursive: true });
		await writeFile(join(root, "broke", "SKILL.md"), "---\nname: [broke\n---\n");
		const session = createSession(index, { tokenizer });
		expect(await session.activate("gone")).toMatchObject({ ok: false, code: "unreadable" });
		expect(await session.activate("broke")).toMatchObject({ ok: false, code: "unreadable" });
	});
});

describe("events and totals", () => {
	it("reports discovery: completed, then each rejected and shadowed skill", async () => {
		const { discover } = await import("skillset");
		const { root } = await indexOf({ "a/SKILL.md": skill("a"), "bad/SKILL.md": "no frontmatter" });
		const second = join(root, "..", "second");
		const { writeTree } = await import("../helpers/temp.ts");
		await writeTree(second, { "a/SKILL.md": skill("a") });
		const { index, report } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [root, second] });
		const events: StampedEvent[] = [];
		createSession(index, { tokenizer, onEvent: (e) => events.push(e) }).recordDiscovery(report);
		expect(events.map(({ time: _t, session: _s, ...e }) => e)).toEqual([
			{ type: "discovery.completed", skills: 1, rejected: 1, shadowed: 1, ms: report.timings.totalMs },
			{ type: "skill.rejected", file: join(root, "bad", "SKILL.md"), codes: ["frontmatter.missing"] },
			{ type: "skill.shadowed", name: "a@workspace.2", by: "a@workspace" },
		]);
	});

	it("reports per-tier bytes and tokens, to a callback and a JSONL file, without contents", async () => {
		const { index, root } = await indexOf({
			"a/SKILL.md": skill("a", "", "SECRET-BODY-TEXT"),
			"a/references/r.md": "SECRET-REFERENCE\n",
		});
		const log = join(root, "events.jsonl");
		const events: StampedEvent[] = [];
		const session = createSession(index, { tokenizer, onEvent: (e) => events.push(e), eventLog: log, id: "s1" });
		const { buildCatalog } = await import("skillset");
		session.recordCatalog(await buildCatalog(index, { tokenizer }));
		const activated = await session.activate("a");
		const read = await session.readResource("a", "references/r.md");
		await session.activate("nope");
		expect(events.map((e) => e.type)).toEqual([
			"catalog.built",
			"skill.activated",
			"skill.resource.loaded",
			"skill.activation.refused",
		]);
		expect(events.every((e) => e.session === "s1" && !Number.isNaN(Date.parse(e.time)))).toBe(true);
		const totals = session.totals();
		expect(totals.tier2).toEqual({
			count: 1,
			bytes: Buffer.byteLength(activated.ok ? activated.text : ""),
			tokens: activated.ok ? activated.tokens : 0,
		});
		expect(totals.tier3.count).toBe(1);
		expect(totals.tier3.tokens).toBe(read.ok ? read.tokens : -1);
		expect(totals.tier1.tokens).toBeGreaterThan(0);
		const { readFile } = await import("node:fs/promises");
		const lines = (await readFile(log, "utf8")).trim().split("\n");
		expect(lines.map((line) => JSON.parse(line).type)).toEqual(events.map((e) => e.type));
		expect(lines.join("\n")).not.toContain("SECRET");
	});
});

describe("createJsonlSink (issue 18: an event log through a planted link)", () => {
	it("never appends through a link or to a file with another name", async () => {
		const { createJsonlSink } = await import("skillset");
		const { link, readFile, symlink } = await import("node:fs/promises");
		const { root } = await indexOf({ "a/SKILL.md": skill("a") });
		const bashrc = join(root, "bashrc");
		await writeFile(bashrc, "# start-up\n");
		await symlink(bashrc, join(root, "soft.jsonl"));
		await link(bashrc, join(root, "hard.jsonl"));
		const event = { type: "context.compacted", active: 0, time: "t", session: "s" } as const;
		expect(() => createJsonlSink(join(root, "soft.jsonl"))(event)).toThrow(/cannot append events/);
		expect(() => createJsonlSink(join(root, "hard.jsonl"))(event)).toThrow(/not a regular file of its own/);
		expect(await readFile(bashrc, "utf8")).toBe("# start-up\n");
		createJsonlSink(join(root, "ok.jsonl"))(event);
		expect(JSON.parse(await readFile(join(root, "ok.jsonl"), "utf8"))).toEqual(event);
	});
});
