import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { discover } from "skillset";
import { createIndexOrigin, OriginCache, publishSkills } from "skillset/sources";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { commit, repo, skill, workspace } from "../helpers/git.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

// An attacker plants links: in a site or folder the user installs from, in a cloned workspace, in a shared cache.
// No read, write or delete may follow one out of the folder it works in.

const SECRET = "TOPSECRET-8c1f\n";

/** Every file under `dir` whose bytes contain the secret (none may). */
function leaked(dir: string): string[] {
	const found: string[] = [];
	const walk = (folder: string) => {
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			const path = join(folder, entry.name);
			if (entry.isDirectory()) walk(path);
			else if (entry.isFile() && readFileSync(path, "utf8").includes("TOPSECRET")) found.push(path);
		}
	};
	if (existsSync(dir)) walk(dir);
	return found;
}

/** A secret outside every site, a file the attacker wants installed. */
async function secretFile(): Promise<string> {
	const dir = await writeTree(await tempDir(), { id_rsa: SECRET });
	return join(dir, "id_rsa");
}

describe("local reads of a source never follow a link", () => {
	it("a v0.1.0 file: index whose listed file is a link installs nothing of that skill", async () => {
		const secret = await secretFile();
		const site = await writeTree(await tempDir(), {
			".well-known/skills/index.json": JSON.stringify({
				skills: [{ name: "notes", description: "Notes.", files: ["SKILL.md", "notes.txt"] }],
			}),
			".well-known/skills/notes/SKILL.md": skill("notes"),
		});
		await symlink(secret, join(site, ".well-known/skills/notes/notes.txt"));
		const ws = await workspace();
		const index = join(site, ".well-known/skills/index.json");
		// Even with the user's consent to an unverified (v0.1.0) index, a link is never followed.
		const run = await ws.run("add", index, "--allow-unverified", "--json");
		expect(run.exitCode).toBe(1);
		expect(JSON.parse(run.stdout).outcomes).toEqual([
			expect.objectContaining({ name: "notes", status: "refused", message: expect.stringMatching(/symbolic link/) }),
		]);
		expect(ws.installed()).toEqual([]);
		expect(leaked(ws.cwd)).toEqual([]);
		// As a configured origin: not cached, not served.
		const cacheDir = await tempDir();
		const origin = createIndexOrigin("site", pathToFileURL(index).href, { cacheDir, allowUnverified: true });
		const { index: found } = await discover({ cwd: ws.cwd, home: ws.cwd, origins: [origin], defaultRoots: false });
		expect(found.selected.map((s) => s.name)).toEqual([]);
		expect(leaked(cacheDir)).toEqual([]);
	});

	it("a v0.1.0 index whose skill folder is a link installs nothing of that skill", async () => {
		const outside = await writeTree(await tempDir(), { "notes/SKILL.md": skill("notes"), "notes/key.txt": SECRET });
		const site = await writeTree(await tempDir(), {
			".well-known/skills/index.json": JSON.stringify({
				skills: [{ name: "notes", description: "Notes.", files: ["SKILL.md", "key.txt"] }],
			}),
		});
		await symlink(join(outside, "notes"), join(site, ".well-known/skills/notes"));
		const ws = await workspace();
		const run = await ws.run("add", join(site, ".well-known/skills/index.json"), "--allow-unverified");
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toMatch(/'notes' is a symbolic link/);
		expect(leaked(ws.cwd)).toEqual([]);
	});

	it("a published site whose artifact was swapped for a link (same bytes, digest matches) is refused", async () => {
		const skills = await writeTree(await tempDir(), { "solo/SKILL.md": skill("solo") });
		const site = await tempDir();
		await publishSkills([{ name: "solo", description: "Solo.", dir: join(skills, "solo") }], site);
		const published = join(site, ".well-known/agent-skills/solo/SKILL.md");
		const outside = await writeTree(await tempDir(), { "SKILL.md": await readFile(published, "utf8") });
		await rm(published);
		await symlink(join(outside, "SKILL.md"), published);
		const ws = await workspace();
		const run = await ws.run("add", site, "--json");
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toMatch(/solo\/SKILL\.md' is a symbolic link/);
		expect(ws.installed()).toEqual([]);
	});

	it("a site whose .well-known folder is a link is refused", async () => {
		const skills = await writeTree(await tempDir(), { "solo/SKILL.md": skill("solo") });
		const elsewhere = await tempDir();
		await publishSkills([{ name: "solo", description: "Solo.", dir: join(skills, "solo") }], elsewhere);
		const site = await tempDir();
		await symlink(join(elsewhere, ".well-known"), join(site, ".well-known"));
		const ws = await workspace();
		const run = await ws.run("add", site);
		expect(run.exitCode).toBe(1);
		expect(run.stdout).toMatch(/'\.well-known' is a symbolic link/);
		expect(ws.installed()).toEqual([]);
	});
});

describe("cache prune never deletes through a link", () => {
	async function cacheWith(plant: (cacheDir: string, acme: OriginCache) => Promise<void>) {
		const cwd = await tempDir();
		const cacheDir = await tempDir();
		const url = "file:///nowhere/index";
		const acme = new OriginCache(cacheDir, "index:acme", url);
		await plant(cacheDir, acme);
		const run = () =>
			cli(["cache", "prune", cwd, "--index", `acme=${url}`, "--json"], {
				cwd,
				env: { HOME: cwd, SKILLSET_CACHE_DIR: cacheDir },
			});
		return { run };
	}

	it("when <cache>/origins is a link", async () => {
		const outside = await writeTree(await tempDir(), { "victim/data.txt": "keep\n", "other/x.txt": "keep\n" });
		const { run } = await cacheWith(async (cacheDir) => {
			await symlink(outside, join(cacheDir, "origins"));
		});
		const result = await run();
		expect(result.exitCode).toBe(1);
		expect(JSON.parse(result.stdout).error).toMatch(/origins is a link: nothing was pruned/);
		expect(readdirSync(outside).sort()).toEqual(["other", "victim"]);
		expect(existsSync(join(outside, "victim/data.txt"))).toBe(true);
	});

	it("when an origin's folder or its skills folder is a link", async () => {
		const outside = await writeTree(await tempDir(), {
			"0123abcd/notes/SKILL.md": "keep\n",
			"beef/SKILL.md": "keep\n",
		});
		const other = await writeTree(await tempDir(), { "stale/x.txt": "keep\n" });
		let acmeSkills = "";
		const { run } = await cacheWith(async (cacheDir, acme) => {
			acmeSkills = acme.skillsFolder;
			await mkdir(acme.folder, { recursive: true });
			await symlink(outside, acme.skillsFolder);
			await symlink(other, join(cacheDir, "origins", "index_old-000000000000"));
		});
		const result = await run();
		expect(result.exitCode).toBe(0);
		// The planted links go, as links; what they pointed to stays.
		expect(JSON.parse(result.stdout).removed).toHaveLength(2);
		expect(existsSync(acmeSkills)).toBe(false);
		expect(existsSync(join(outside, "0123abcd/notes/SKILL.md"))).toBe(true);
		expect(existsSync(join(outside, "beef/SKILL.md"))).toBe(true);
		expect(existsSync(join(other, "stale/x.txt"))).toBe(true);
	});

	it("the cache itself never writes through a planted skills link", async () => {
		const outside = await tempDir();
		const cacheDir = await tempDir();
		const cache = new OriginCache(cacheDir, "index:acme", "file:///nowhere");
		await mkdir(cache.folder, { recursive: true });
		await symlink(outside, cache.skillsFolder);
		const files = new Map([["SKILL.md", new TextEncoder().encode(skill("notes"))]]);
		await expect(cache.store("notes", files, "unverified")).rejects.toThrow(/link/);
		expect(readdirSync(outside)).toEqual([]);
	});
});

/** A workspace whose `vendor` is a link to a folder outside it, holding a skill the lock points at. */
async function linkedVendor() {
	const source = await repo({ "SKILL.md": skill("x") });
	const ws = await workspace();
	expect((await ws.run("add", `file://${source}`, "--dir", "vendor")).exitCode).toBe(0);
	const outside = await tempDir();
	// The attacker's commit: `vendor` is now a link out of the workspace, with the same skill (same digest) there.
	await writeTree(outside, { "x/SKILL.md": skill("x") });
	await rm(join(ws.cwd, "vendor"), { recursive: true });
	await symlink(outside, join(ws.cwd, "vendor"));
	expect((await ws.lock()).skills.x.path).toBe("vendor/x");
	return { source, ws, outside };
}

describe("a cache folder the user keeps behind a link", () => {
	it("still serves its verified copies (the link is the user's own choice)", async () => {
		const skills = await writeTree(await tempDir(), { "solo/SKILL.md": skill("solo") });
		const site = await tempDir();
		await publishSkills([{ name: "solo", description: "Solo.", dir: join(skills, "solo") }], site);
		const real = await tempDir();
		const cacheDir = join(await tempDir(), "cache-link");
		await symlink(real, cacheDir);
		const cwd = await tempDir();
		const origin = createIndexOrigin("site", pathToFileURL(site).href, { cacheDir });
		const { index } = await discover({ cwd, home: cwd, origins: [origin], defaultRoots: false });
		expect(index.selected.map((s) => s.name)).toEqual(["solo"]);
	});
});

describe("remove and update never act through a link out of the lock's folder", () => {
	it("remove refuses (even with --force) and leaves the outside folder", async () => {
		const { ws, outside } = await linkedVendor();
		for (const args of [[], ["--force"]]) {
			const run = await ws.run("remove", "x", "--json", ...args);
			expect(run.exitCode).toBe(1);
			expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ status: "refused", code: "install.outside" })]);
		}
		expect(existsSync(join(outside, "x/SKILL.md"))).toBe(true);
		expect((await ws.lock()).skills.x).toBeDefined();
	});

	it("update --yes refuses and leaves the outside folder", async () => {
		const { source, ws, outside } = await linkedVendor();
		await commit(source, { "SKILL.md": skill("x", "", "Version two.\n") }, "two");
		const run = await ws.run("update", "--yes", "--json");
		expect(run.exitCode).toBe(1);
		expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ status: "refused", code: "install.outside" })]);
		expect(await readFile(join(outside, "x/SKILL.md"), "utf8")).toBe(skill("x"));
	});

	it("add refuses a target that leaves the workspace through a link, and names the real folder", async () => {
		const source = await repo({ "SKILL.md": skill("y") });
		const ws = await workspace();
		const outside = await tempDir();
		await symlink(outside, join(ws.cwd, ".agents"));
		const run = await ws.run("add", `file://${source}`, "--json");
		expect(run.exitCode).toBe(1);
		expect(JSON.parse(run.stdout).failure).toMatchObject({ code: "install.outside" });
		expect(JSON.parse(run.stdout).failure.message).toContain(outside);
		expect(readdirSync(outside)).toEqual([]);
		expect(existsSync(join(ws.cwd, "skills.lock.json"))).toBe(false);
	});

	it("add refuses a target reached through a dangling link (writing through it would create its target)", async () => {
		const source = await repo({ "SKILL.md": skill("v") });
		const ws = await workspace();
		const nowhere = join(await tempDir(), "not-yet");
		await symlink(nowhere, join(ws.cwd, ".agents"));
		const run = await ws.run("add", `file://${source}`, "--json");
		expect(JSON.parse(run.stdout).failure).toMatchObject({ code: "install.outside" });
		expect(existsSync(nowhere)).toBe(false);
	});

	it("add refuses a skills folder outside the lock's folder (update and remove could never act on it)", async () => {
		const source = await repo({ "SKILL.md": skill("w") });
		const ws = await workspace();
		const elsewhere = await tempDir();
		const run = await ws.run("add", `file://${source}`, "--dir", elsewhere, "--lock", "skills.lock.json", "--json");
		expect(JSON.parse(run.stdout).failure).toMatchObject({ code: "install.outside" });
		expect(readdirSync(elsewhere)).toEqual([]);
	});

	it("add still installs through a link that stays inside the workspace", async () => {
		const source = await repo({ "SKILL.md": skill("z") });
		const ws = await workspace();
		await mkdir(join(ws.cwd, "shared/skills"), { recursive: true });
		await mkdir(join(ws.cwd, ".claude"));
		await symlink(join(ws.cwd, "shared/skills"), join(ws.cwd, ".claude/skills"));
		expect((await ws.run("add", `file://${source}`, "--client", "claude")).exitCode).toBe(0);
		expect(existsSync(join(ws.cwd, "shared/skills/z/SKILL.md"))).toBe(true);
	});
});
