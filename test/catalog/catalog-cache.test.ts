import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	buildCatalog,
	buildSkillsSection,
	type DiscoverOptions,
	discover,
	estimateTokenizer,
	SkillIndex,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import {
	folderAttacks,
	forgePayload,
	forgeResultPayload,
	forgeText,
	readResultPayload,
} from "../discovery/index-helpers.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 23: a warm `catalog` (and the MCP server's instructions) reuses the fitted catalog kept in the cache folder.
// It must never show what the skills no longer say, and a cached catalog someone changed must be refused.

let base: string;
let root: string;
let caches = 0;

const SKILLS: Record<string, string> = {};
for (let i = 0; i < 30; i++) {
	SKILLS[`s${i}/SKILL.md`] = skillMd(`skill-${i}`, `Handles case ${i} of the thing. Use when case ${i} comes up.`);
}

beforeAll(async () => {
	base = await tempDir();
	root = await writeTree(join(base, "skills"), SKILLS);
	await pastRacyWindow();
});

function freshCache(): string {
	return join(base, `cache-${caches++}`);
}

function optionsFor(cacheDir?: string): DiscoverOptions {
	return {
		cwd: base,
		home: join(base, "no-home"),
		defaultRoots: false,
		roots: [root],
		...(cacheDir ? { cacheDir } : {}),
	};
}

/**
 * A cached catalog's (or section's) payload, the catalog's text (kept raw after the JSON value) put back as the
 * value's `text` (a catalog's; a section keeps its own text in the value, and the tail is its catalog's).
 */
function readPayload(file: string): { key: string; value: Record<string, unknown>; tail?: string } {
	const text = readFileSync(file, "utf8");
	const body = text.slice(text.indexOf("\n") + 1);
	const split = body.indexOf("\n");
	const saved = JSON.parse(split === -1 ? body : body.slice(0, split));
	return split === -1 ? saved : { ...saved, tail: body.slice(split + 1) };
}

/** A cached catalog forged in place with a matching digest: a text given as the value's goes in the tail. */
function forgeCatalog(file: string, payload: { key: string; value: Record<string, unknown> }): void {
	const { text, ...rest } = payload.value;
	if (typeof text !== "string") forgePayload(file, payload);
	else forgeText(file, `${JSON.stringify({ key: payload.key, value: { ...rest, text: null } })}\n${text}`);
}

/** A cached catalog's text: its tail. */
function savedText(file: string): string | undefined {
	return readPayload(file).tail;
}

/** The cached values of one kind (full paths). */
function cached(cacheDir: string, kind: string): string[] {
	try {
		return readdirSync(join(cacheDir, kind))
			.filter((name) => name.endsWith(".json"))
			.map((name) => join(cacheDir, kind, name));
	} catch {
		return [];
	}
}

async function catalogText(cacheDir: string | undefined, budgetTokens = 300): Promise<string> {
	const { index } = await discover(optionsFor(cacheDir));
	const catalog = await buildCatalog(index, { budget: { tokens: budgetTokens }, ...(cacheDir ? { cacheDir } : {}) });
	return catalog.text;
}

describe("the cached catalog", () => {
	it("gives warm what a cold build gives, for catalogs and skills sections alike", async () => {
		const cacheDir = freshCache();
		const { index } = await discover(optionsFor());
		const cold = await buildCatalog(index, { budget: { tokens: 300 } });
		expect(await buildCatalog(index, { budget: { tokens: 300 }, cacheDir })).toEqual(cold);
		expect(cached(cacheDir, "catalog")).toHaveLength(1);
		expect(await buildCatalog(index, { budget: { tokens: 300 }, cacheDir })).toEqual(cold);
		// Other options are another catalog, never the one kept for these.
		const wider = await buildCatalog(index, { budget: { tokens: 5000 } });
		expect(await buildCatalog(index, { budget: { tokens: 5000 }, cacheDir })).toEqual(wider);
		expect(cached(cacheDir, "catalog")).toHaveLength(2);
		const section = await buildSkillsSection(index, { budget: { tokens: 400 }, activation: "tool" });
		for (let run = 0; run < 2; run++) {
			expect(await buildSkillsSection(index, { budget: { tokens: 400 }, activation: "tool", cacheDir })).toEqual(
				section,
			);
		}
		expect(cached(cacheDir, "catalog-section")).toHaveLength(1);
	});

	it("gives warm what a cold build gives when a description holds a lone surrogate (UTF-8 cannot keep one)", async () => {
		const cacheDir = freshCache();
		const odd = await writeTree(join(base, "odd"), {
			"odd/SKILL.md":
				'---\nname: odd\ndescription: "Half a pair \\uD800 here. Use when testing text a file cannot hold."\n---\n',
		});
		const { index } = await discover({ ...optionsFor(), roots: [odd] });
		expect(index.get("odd")?.description).toContain("\uD800");
		const cold = await buildCatalog(index, { budget: { tokens: 300 } });
		expect(await buildCatalog(index, { budget: { tokens: 300 }, cacheDir })).toEqual(cold);
		expect(await buildCatalog(index, { budget: { tokens: 300 }, cacheDir })).toEqual(cold);
	});

	it("shows a description changed within the same second, in a file of the same size and time", async () => {
		const cacheDir = freshCache();
		const file = join(root, "s3", "SKILL.md");
		const before = readFileSync(file, "utf8");
		const info = statSync(file);
		expect(await catalogText(cacheDir, 5000)).toContain("Handles case 3 of");
		try {
			const edited = before.replace("Handles case 3 of", "Mangles case 3 of");
			expect(edited.length).toBe(before.length);
			writeFileSync(file, edited);
			utimesSync(file, info.atimeMs / 1000, info.mtimeMs / 1000);
			expect(Math.floor(statSync(file).mtimeMs / 1000)).toBe(Math.floor(info.mtimeMs / 1000));
			const warm = await catalogText(cacheDir, 5000);
			expect(warm).toContain("Mangles case 3 of");
			expect(warm).not.toContain("Handles case 3 of");
			expect(warm).toBe(await catalogText(undefined, 5000));
		} finally {
			writeFileSync(file, before);
		}
	});

	it("ignores a cached catalog that was changed, cut short, reshaped, moved to another key or made writable", async () => {
		const cacheDir = freshCache();
		const truth = await catalogText(cacheDir);
		const [file] = cached(cacheDir, "catalog");
		if (!file) throw new Error("no cached catalog");
		const saved = readPayload(file) as unknown as { key: string; value: { text: string; entries: unknown[] } };
		// Every entry the catalog lists is one it was given, so each is saved as its number among them.
		expect(saved.value.entries.length).toBeGreaterThan(0);
		expect(saved.value.entries.every((entry) => typeof entry === "number")).toBe(true);
		const attacks: [string, () => void][] = [
			["a changed byte", () => writeFileSync(file, readFileSync(file, "utf8").replace("Handles", "Hijacks"))],
			["a cut", () => writeFileSync(file, readFileSync(file).subarray(0, 200))],
			["not a catalog", () => forgePayload(file, { key: saved.key, value: { ...saved.value, text: 42 } })],
			// The text is kept after the value: one in the value (no tail) is not taken, nor is a tail that is cut.
			[
				"a text in the value",
				() => forgePayload(file, { key: saved.key, value: { ...saved.value, text: "Hijacked" } }),
			],
			["no text", () => forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: null } })],
			["another key", () => forgeCatalog(file, { key: "0".repeat(64), value: { ...saved.value, text: "Hijacked" } })],
			// Fitted entries that are the input entries are saved as their numbers; a number that names none is refused.
			...[999, -1, 0.5, "0", null].map((ref): [string, () => void] => [
				`an entry saved as ${JSON.stringify(ref)}`,
				() => forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: "Hijacked", entries: [ref] } }),
			]),
			[
				"group-writable",
				() => {
					forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: "Hijacked" } });
					chmodSync(file, 0o664);
				},
			],
		];
		for (const [what, attack] of attacks) {
			attack();
			expect(await catalogText(cacheDir), what).toBe(truth);
			// The run wrote the real catalog back: the next one starts from a good file.
			chmodSync(file, 0o600);
		}
		// The same forgery with its digest, key, owner and mode is what a warm run takes: the checks above are what
		// kept it out (anyone who can write the user's files can change the skills themselves).
		forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: "Forged" } });
		expect(await catalogText(cacheDir)).toBe("Forged");
	});

	it("ignores a forged catalog in a folder that is a link, writable by others or another user's", async () => {
		for (const [what, attack] of folderAttacks()) {
			const cacheDir = freshCache();
			const truth = await catalogText(cacheDir);
			const [file] = cached(cacheDir, "catalog");
			if (!file) throw new Error("no cached catalog");
			const saved = readPayload(file) as unknown as { key: string; value: { text: string } };
			forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: "Forged" } });
			attack(join(cacheDir, "catalog"));
			expect(await catalogText(cacheDir), what).toBe(truth);
			// Nor is the real one written into such a folder: the forged file is as it was.
			expect(savedText(file), what).toBe("Forged");
		}
	});

	it("costs only speed when the cached catalog cannot be written (a folder in its place)", async () => {
		const cacheDir = freshCache();
		const truth = await catalogText(cacheDir);
		const [file] = cached(cacheDir, "catalog");
		if (!file) throw new Error("no cached catalog");
		rmSync(file);
		mkdirSync(file);
		expect(await catalogText(cacheDir)).toBe(truth);
		expect(readdirSync(join(cacheDir, "catalog")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
	});

	it("is never the catalog of another saved discovery result: a forged result gets a catalog of its own", async () => {
		// An earlier test rewrote a skill: a result is saved only once every file is old enough to vouch for itself.
		await pastRacyWindow();
		const cacheDir = freshCache();
		const truth = await catalogText(cacheDir, 5000);
		// Warm: the index is the saved result read back, and the catalog is kept under that result's digest.
		expect(await catalogText(cacheDir, 5000)).toBe(truth);
		expect(await catalogText(cacheDir, 5000)).toBe(truth);
		const [result] = cached(cacheDir, "discovery-result");
		if (!result) throw new Error("no saved result");
		const payload = readResultPayload(result) as { skills: unknown[][] };
		const row = payload.skills.find((cells) => cells[2] === "skill-3");
		if (!row) throw new Error("no saved row for skill-3");
		(row[8] as Record<string, unknown>).description = "Forged description of skill three.";
		forgeResultPayload(result, payload);
		const forged = await catalogText(cacheDir, 5000);
		expect(forged).toContain("Forged description of skill three.");
		expect(forged).not.toContain("Handles case 3 of");
	});

	it("is kept by the cold run that saved the discovery result, and taken as it is by the next, warm run", async () => {
		await pastRacyWindow();
		const cacheDir = freshCache();
		// Cold: discovery saves its result; the catalog is fitted and kept under that result's name.
		const cold = await discover(optionsFor(cacheDir));
		await buildCatalog(cold.index, { budget: { tokens: 5000 }, cacheDir });
		const [file] = cached(cacheDir, "catalog");
		if (!file) throw new Error("no cached catalog");
		const saved = readPayload(file) as unknown as { key: string; value: { text: string } };
		forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: "Kept by the cold run" } });
		// Warm: the saved result read back finds the cold run's catalog, and fits and keeps no second one.
		const warm = await discover(optionsFor(cacheDir));
		expect(warm.report.reused.files).toBeGreaterThan(0);
		expect((await buildCatalog(warm.index, { budget: { tokens: 5000 }, cacheDir })).text).toBe("Kept by the cold run");
		expect(cached(cacheDir, "catalog")).toHaveLength(1);
	});

	it("is shared by a new index of the very same skills; one of fewer skills gets a catalog of its own", async () => {
		await pastRacyWindow();
		const cacheDir = freshCache();
		await discover(optionsFor(cacheDir));
		// Warm: the index is a saved result read back; its catalog is the only one kept.
		const { index } = await discover(optionsFor(cacheDir));
		await buildCatalog(index, { budget: { tokens: 5000 }, cacheDir });
		const [file] = cached(cacheDir, "catalog");
		if (!file) throw new Error("no cached catalog");
		const saved = readPayload(file) as unknown as { key: string; value: { text: string } };
		forgeCatalog(file, { key: saved.key, value: { ...saved.value, text: "Forged" } });
		// An MCP server's index of the skills it serves, when it serves them all: the same catalog skills.
		const same = new SkillIndex(index.skills);
		expect((await buildCatalog(same, { budget: { tokens: 5000 }, cacheDir })).text).toBe("Forged");
		const fewer = new SkillIndex(index.skills.slice(1));
		const cold = await buildCatalog(fewer, { budget: { tokens: 5000 } });
		expect(await buildCatalog(fewer, { budget: { tokens: 5000 }, cacheDir })).toEqual(cold);
		expect(await buildCatalog(new SkillIndex(index.skills.slice(1)), { budget: { tokens: 5000 }, cacheDir })).toEqual(
			cold,
		);
		// Fewer skills in another order, or another index's skills, are not the saved result's at all.
		const reordered = new SkillIndex([...index.skills].reverse());
		expect((await buildCatalog(reordered, { budget: { tokens: 5000 }, cacheDir })).text).not.toBe("Forged");
		expect(cold.text).not.toContain(index.skills[0]?.description);
	});

	it("keeps a skills section's catalog text once, and refuses a section text of any other shape", async () => {
		const cacheDir = freshCache();
		const { index } = await discover(optionsFor());
		const options = { budget: { tokens: 5000 }, activation: "tool" as const };
		const truth = await buildSkillsSection(index, options);
		expect(await buildSkillsSection(index, { ...options, cacheDir })).toEqual(truth);
		const [file] = cached(cacheDir, "catalog-section");
		if (!file) throw new Error("no cached section");
		const saved = readPayload(file);
		expect(saved.value.text).toEqual({ before: expect.any(String), after: "\n" });
		const shapes: unknown[] = [{ before: 1, after: "" }, { before: "Hijacked" }, 42, null, ["Hijacked", ""]];
		// The catalog's text stays after the value: only the section's own text is reshaped.
		const forgeSection = (text: unknown) =>
			forgeText(file, `${JSON.stringify({ key: saved.key, value: { ...saved.value, text } })}\n${saved.tail}`);
		expect(saved.tail).toBe(truth.catalog.text);
		for (const text of shapes) {
			forgeSection(text);
			expect(await buildSkillsSection(index, { ...options, cacheDir }), JSON.stringify(text)).toEqual(truth);
		}
		// Two texts around the catalog's, with the digest, key, owner and mode kept, are what a warm run takes.
		forgeSection({ before: "Forged\n", after: "" });
		const forged = await buildSkillsSection(index, { ...options, cacheDir });
		expect(forged.text).toBe(`Forged\n${truth.catalog.text}`);
	});

	it("is never kept for a custom tokenizer, or without a cache folder", async () => {
		const cacheDir = freshCache();
		const { index } = await discover(optionsFor());
		await buildCatalog(index, { budget: { tokens: 300 }, cacheDir, tokenizer: estimateTokenizer });
		await buildSkillsSection(index, { budget: { tokens: 400 }, cacheDir, tokenizer: estimateTokenizer });
		expect(cached(cacheDir, "catalog")).toEqual([]);
		expect(cached(cacheDir, "catalog-section")).toEqual([]);
		await expect(buildCatalog(index, { cacheDir: 7 as unknown as string })).rejects.toThrow(/cacheDir/);
	});
});
