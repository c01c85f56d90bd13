import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
	buildReferenceGraph,
	createLock,
	createSession,
	estimateTokenizer,
	hashPackage,
	parseLock,
	renderLock,
} from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf, SHARED_DIR } from "../helpers/temp.ts";

const tokenizer = estimateTokenizer;
const skill = (name: string, body = "Read references/guide.md first.") =>
	`---\nname: ${name}\ndescription: Does ${name} things.\n---\n${body}\n`;

describe("SkillSession.readResource", () => {
	it("pages a long text file by lines and says where the next page starts", async () => {
		const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
		const { index } = await indexOf({ "a/SKILL.md": skill("a"), "a/references/long.md": `${lines}\n` });
		const session = createSession(index, { tokenizer });
		const first = await session.readResource("a", "references/long.md", { limit: 10 });
		expect(first).toMatchObject({ ok: true, offset: 1, lines: 10, totalLines: 30, nextOffset: 11, binary: false });
		expect(first.ok && first.content.split("\n").slice(0, 10).at(-1)).toBe("line 10");
		expect(first.ok && first.content).toContain("[20 more lines: read again with offset=11]");
		const last = await session.readResource("a", "references/long.md", { offset: 21, limit: 50 });
		expect(last).toMatchObject({ ok: true, lines: 10, totalLines: 30 });
		expect(last.ok && last.nextOffset).toBeUndefined();
	});

	it("cuts a one-line 8 MiB file into pages of at most 50,000 bytes and says where the line continues", async () => {
		const { index } = await indexOf({ "a/SKILL.md": skill("a"), "a/assets/blob.txt": "x".repeat(8 * 1024 * 1024) });
		const first = await createSession(index, { tokenizer }).readResource("a", "assets/blob.txt");
		expect(first).toMatchObject({ ok: true, lines: 1, totalLines: 1, nextOffset: 1, nextColumn: 50_000 });
		if (!first.ok) return;
		const [text, notice] = first.content.split("\n\n");
		expect(Buffer.byteLength(text ?? "")).toBeLessThanOrEqual(50_000);
		expect(notice).toBe(
			"[line 1 is cut after character 49999 of 8388608 (a page holds at most 50000 bytes): read again with offset=1 column=50000]",
		);
	});

	it("reads a long line with multi-byte characters back exactly by following offset and column", async () => {
		const long = "é😀a".repeat(30_000); // 210,000 bytes on one line, none of its characters split
		const file = `short\n${long}\nlast line\n`;
		const { index } = await indexOf({ "a/SKILL.md": skill("a"), "a/references/mixed.md": file });
		const session = createSession(index, { tokenizer });
		const lines: string[] = [];
		let position: { offset?: number; column?: number } = {};
		for (let pages = 0; pages < 20; pages++) {
			const page = await session.readResource("a", "references/mixed.md", position);
			if (!page.ok) throw new Error(page.message);
			const body = page.content.replace(/\n\n\[[^\]]*\]$/, "");
			expect(Buffer.byteLength(body)).toBeLessThanOrEqual(50_000);
			const parts = body.split("\n");
			if (page.column) lines[lines.length - 1] += parts.shift() ?? "";
			lines.push(...parts);
			if (page.nextOffset === undefined) break;
			position = { offset: page.nextOffset, ...(page.nextColumn ? { column: page.nextColumn } : {}) };
		}
		expect(`${lines.join("\n")}\n`).toBe(file);
	});

	it("gives only metadata for a binary file", async () => {
		const { index } = await indexOf({
			"a/SKILL.md": skill("a"),
			"a/assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
		});
		const result = await createSession(index, { tokenizer }).readResource("a", "assets/logo.png");
		expect(result).toMatchObject({ ok: true, binary: true, size: 7, mediaType: "image/png" });
		expect(result.ok && result.content).toBe(
			"assets/logo.png is a binary file (image/png, 7 bytes); its content is not shown.",
		);
	});

	it("returns refusals as results the model can act on", async () => {
		const { index } = await indexOf({ "a/SKILL.md": skill("a") });
		const session = createSession(index, { tokenizer });
		expect(await session.readResource("a", "../../etc/passwd")).toMatchObject({
			ok: false,
			code: "resource.invalid-path",
		});
		expect(await session.readResource("zzz", "x.md")).toMatchObject({ ok: false, code: "unknown" });
	});
});

describe("integrity", () => {
	it("locks every file with sorted POSIX paths and a package digest that changes with any byte", async () => {
		const { index, root } = await indexOf({
			"a/SKILL.md": skill("a"),
			"a/references/guide.md": "# G\n",
			"a/scripts/z.sh": "x",
		});
		const { lock, problems } = createLock(index.selected, root);
		expect(problems).toEqual([]);
		expect(Object.keys(lock.skills.a?.files ?? {})).toEqual(["SKILL.md", "references/guide.md", "scripts/z.sh"]);
		expect(lock.skills.a?.path).toBe("a");
		expect(lock.skills.a?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
		expect(parseLock(renderLock(lock))).toEqual(lock);
		const before = hashPackage(join(root, "a")).digest;
		await appendFile(join(root, "a", "scripts", "z.sh"), " ");
		expect(hashPackage(join(root, "a")).digest).not.toBe(before);
	});

	it("in verify mode refuses activation or reads of changed, extra or missing files", async () => {
		const { index, root } = await indexOf({
			"a/SKILL.md": skill("a"),
			"a/references/guide.md": "# G\n",
			"a/references/keep.md": "k",
		});
		const integrity = { lock: createLock(index.selected, root).lock, root };
		const fresh = createSession(index, { tokenizer, integrity });
		expect((await fresh.activate("a")).ok).toBe(true);
		expect((await fresh.readResource("a", "references/guide.md")).ok).toBe(true);

		await writeFile(join(root, "a", "references", "guide.md"), "# Tampered\n");
		const changed = createSession(index, { tokenizer, integrity });
		const refused = await changed.activate("a");
		expect(refused).toMatchObject({
			ok: false,
			code: "integrity.mismatch",
			details: { changed: ["references/guide.md"] },
		});
		expect(await changed.readResource("a", "references/guide.md")).toMatchObject({
			ok: false,
			code: "integrity.mismatch",
		});

		await writeFile(join(root, "a", "references", "guide.md"), "# G\n");
		await writeFile(join(root, "a", "references", "extra.md"), "injected\n");
		expect(await createSession(index, { tokenizer, integrity }).activate("a")).toMatchObject({
			ok: false,
			details: { extra: ["references/extra.md"] },
		});
		expect(await fresh.readResource("a", "references/extra.md")).toMatchObject({
			ok: false,
			code: "integrity.mismatch",
		});
	});

	it("refuses a skill that is not in the lock", async () => {
		const { index, root } = await indexOf({ "a/SKILL.md": skill("a") });
		const result = await createSession(index, {
			tokenizer,
			integrity: { lock: { version: 1, skills: {} }, root },
		}).activate("a");
		expect(result).toMatchObject({ ok: false, code: "integrity.mismatch" });
	});

	it("reports what it cannot parse in a lock file", () => {
		expect(parseLock("{")).toHaveProperty("error");
		expect(parseLock('{"version": 2, "skills": {}}')).toEqual({ error: "expected { version: 1, skills: { ... } }" });
	});
});

describe("buildReferenceGraph", () => {
	it("resolves links and paths: missing targets are errors, deep chains warnings, orphans info", async () => {
		const { root } = await indexOf({
			"a/SKILL.md": skill(
				"a",
				"See [the guide](references/guide.md) and run `scripts/run.py`.\nAlso [gone](references/missing.md), https://example.com and [anchor](#x).",
			),
			"a/references/guide.md": "For forms, read [forms](forms.md).\n",
			"a/references/forms.md": "# Forms\n",
			"a/scripts/run.py": "print(1)\n",
			"a/assets/unused.txt": "nobody links me\n",
		});
		const graph = buildReferenceGraph(join(root, "a"));
		expect(graph.hops).toEqual({
			"SKILL.md": 0,
			"references/guide.md": 1,
			"scripts/run.py": 1,
			"references/forms.md": 2,
		});
		expect(graph.diagnostics.map((d) => [d.code, d.severity, d.line ?? null])).toEqual([
			["refs.missing", "error", 6],
			["refs.deep", "warning", 1],
			["refs.orphan", "info", null],
		]);
		expect(graph.diagnostics[2]?.message).toBe("'assets/unused.txt' is not referenced");
	});

	it("ignores code, code-like brackets and path-like prose (issue 9)", async () => {
		const body = [
			'Call `handlers["parse"](payload)` or handlers["parse"](payload) in prose.',
			"```markdown",
			"See [FORMS.md](FORMS.md) and references/api.md for the example skill.",
			"```",
			"Run `scripts/missing.py` only if you wrote it; see assets/workflows.md in your own repo.",
			"Read [the guide](references/guide.md), then `scripts/run.py`.",
			"Broken: [notes](references/notes.md) and scripts/gone.sh.",
		].join("\n");
		const { root } = await indexOf({
			"a/SKILL.md": skill("a", body),
			"a/references/guide.md": "# Guide\n",
			"a/scripts/run.py": "print(1)\n",
		});
		const graph = buildReferenceGraph(join(root, "a"));
		expect(graph.hops).toEqual({ "SKILL.md": 0, "references/guide.md": 1, "scripts/run.py": 1 });
		expect(graph.diagnostics.map((d) => d.message)).toEqual([
			"'references/notes.md' does not exist",
			"'scripts/gone.sh' does not exist",
		]);
	});

	it("finds no missing reference in the openai skill-creator (issue 9)", () => {
		const dir = join(SHARED_DIR, "corpus/openai-skills/skills/.system/skill-creator");
		const graph = buildReferenceGraph(dir);
		expect(graph.diagnostics.filter((d) => d.code === "refs.missing")).toEqual([]);
		expect(graph.hops["scripts/init_skill.py"]).toBe(1);
	});
});

describe("hard links", () => {
	it("refuses a hard-linked resource unless the session allows hard links (as pnpm installs create)", async () => {
		const { link } = await import("node:fs/promises");
		const { index, root } = await indexOf({ "a/SKILL.md": skill("a"), "a/references/guide.md": "# G\n" });
		await link(join(root, "a", "references", "guide.md"), join(root, "store-copy.md"));
		await link(join(root, "a", "SKILL.md"), join(root, "store-skill.md"));
		const strict = createSession(index, { tokenizer });
		expect((await strict.activate("a")).ok).toBe(true);
		expect(await strict.readResource("a", "references/guide.md")).toMatchObject({
			ok: false,
			code: "resource.hardlink",
		});
		const relaxed = createSession(index, { tokenizer, allowHardLinks: true });
		expect((await relaxed.readResource("a", "references/guide.md")).ok).toBe(true);
	});
});
