import { readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillServer, type SkillServerOptions } from "skillset/mcp";
import { beforeAll, describe, expect, it } from "vitest";
import { forgePayload, readPayload } from "../discovery/index-helpers.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 23: a warm MCP start-up takes each served SKILL.md's frontmatter and each skill folder's listing from the
// cache folder while the files are unchanged. It must never serve what a file no longer says, and a changed or
// forged cache must not change what is served.

let base: string;
let root: string;
let caches = 0;

const SKILLS: Record<string, string> = {
	"bad-field/SKILL.md": skillMd("bad-field", "Has an empty compatibility.", 'compatibility: ""'),
	"linked-name/SKILL.md": skillMd("linked-name", "Plain."),
	"linked-name/references/guide.md": "# Guide\n",
	// Parses only after quoting the value that holds ': ': discovery indexes it, the server leaves it out.
	"repaired/SKILL.md": skillMd("repaired", "Use when: x"),
};
for (let i = 0; i < 12; i++) SKILLS[`s${i}/SKILL.md`] = skillMd(`skill-${i}`, `Handles case ${i}.`);

beforeAll(async () => {
	base = await tempDir();
	root = await writeTree(join(base, "skills"), SKILLS);
	await pastRacyWindow();
});

function optionsFor(cacheDir?: string): SkillServerOptions {
	return {
		cwd: base,
		home: join(base, "no-home"),
		defaultRoots: false,
		roots: [root],
		...(cacheDir ? { cacheDir } : {}),
	};
}

async function plan(cacheDir?: string): Promise<{ served: unknown; leftOut: unknown }> {
	const server = await createSkillServer(optionsFor(cacheDir));
	try {
		return { served: server.served, leftOut: server.leftOut };
	} finally {
		await server.close();
	}
}

function savedFile(cacheDir: string): string {
	const folder = join(cacheDir, "mcp-frontmatter");
	const [name] = readdirSync(folder).filter((file) => file.endsWith(".json"));
	if (!name) throw new Error("no saved start-up cache");
	return join(folder, name);
}

describe("a warm MCP start-up", () => {
	it("serves what a cold one serves, and keeps what it checked", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const cold = await plan();
		expect(cold.leftOut).toMatchObject([
			{ name: "bad-field", code: "mcp.field-invalid" },
			{ name: "repaired", code: "mcp.frontmatter" },
		]);
		expect(await plan(cacheDir)).toEqual(cold);
		const saved = readPayload(savedFile(cacheDir)) as unknown as { value: { files: unknown[]; dirs: unknown[] } };
		// Every skill checked, served or left out for what its file says, so a warm start-up reads none again.
		expect(saved.value.files).toHaveLength(15);
		expect(saved.value.dirs.length).toBeGreaterThanOrEqual(16);
		expect(await plan(cacheDir)).toEqual(cold);
	});

	it("rewrites nothing when nothing changed, skills left out included", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const cold = await plan(cacheDir);
		const before = statSync(savedFile(cacheDir));
		expect(await plan(cacheDir)).toEqual(cold);
		const after = statSync(savedFile(cacheDir));
		expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
	});

	it("serves a left-out SKILL.md fixed within the same second, at the same size", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const file = join(root, "repaired", "SKILL.md");
		const before = readFileSync(file, "utf8");
		const info = statSync(file);
		expect((await plan(cacheDir)).leftOut).toMatchObject([{ name: "bad-field" }, { name: "repaired" }]);
		try {
			writeFileSync(file, before.replace("Use when: x", "Use when x."));
			utimesSync(file, info.atimeMs / 1000, info.mtimeMs / 1000);
			const warm = await plan(cacheDir);
			expect(warm.leftOut).toMatchObject([{ name: "bad-field" }]);
			expect(warm.served).toContainEqual({ name: "repaired", uri: "skill://repaired/SKILL.md" });
			expect(warm).toEqual(await plan());
		} finally {
			writeFileSync(file, before);
		}
	});

	it("serves a SKILL.md edited within the same second, at the same size, as it now is", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const file = join(root, "s3", "SKILL.md");
		const before = readFileSync(file, "utf8");
		const info = statSync(file);
		await plan(cacheDir);
		try {
			writeFileSync(file, before.replace("name: skill-3", "name: skill-x"));
			utimesSync(file, info.atimeMs / 1000, info.mtimeMs / 1000);
			const warm = await plan(cacheDir);
			// A stale frontmatter would name skill-3 while discovery indexes skill-x: the skill would be left out.
			expect(warm.leftOut).toMatchObject([{ name: "bad-field" }, { name: "repaired" }]);
			expect(warm.served).toContainEqual({ name: "skill-x", uri: "skill://skill-x/SKILL.md" });
			expect(warm).toEqual(await plan());
		} finally {
			writeFileSync(file, before);
		}
	});

	it("sees an entry added to a skill's subfolder since the last start-up", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const cold = await plan(cacheDir);
		const link = join(root, "linked-name", "references", "escape.md");
		symlinkSync("/etc/hostname", link);
		try {
			const warm = await plan(cacheDir);
			expect(warm.leftOut).toContainEqual(expect.objectContaining({ name: "linked-name", code: "mcp.link" }));
			expect(warm).toEqual(await plan());
		} finally {
			unlinkSync(link);
		}
		expect(await plan(cacheDir)).toEqual(cold);
	});

	it("ignores a changed cache file, and never takes a listing that names anything outside its folder", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const truth = await plan(cacheDir);
		const file = savedFile(cacheDir);
		const payload = readPayload(file) as unknown as { key: string; value: { files: unknown[]; dirs: unknown[][] } };
		writeFileSync(file, readFileSync(file, "utf8").replace("Handles", "Hijacks"));
		expect(await plan(cacheDir)).toEqual(truth);
		const forged = payload.value.dirs.map((row) =>
			row[0] === join(root, "s5") ? [...row.slice(0, 5), ["../../s6", "SKILL.md"], row[6]] : row,
		);
		expect(forged).not.toEqual(payload.value.dirs);
		forgePayload(file, { key: payload.key, value: { ...payload.value, dirs: forged } });
		expect(await plan(cacheDir)).toEqual(truth);
		// A kept read is a parse or one of the known reasons a file does not parse: anything else is read again.
		const files = payload.value.files.map((row) => [...(row as unknown[]).slice(0, 7), "bogus"]);
		forgePayload(file, { key: payload.key, value: { ...payload.value, files } });
		expect(await plan(cacheDir)).toEqual(truth);
	});
});
