import { join } from "node:path";
import { type CollisionPolicy, type DiscoverOptions, discover, type IndexedSkill, SkillIndex } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let root: string;
let high: string;
let low: string;
let user: string;

const run = (roots: string[], extra: DiscoverOptions = {}) =>
	discover({ cwd: root, home: root, defaultRoots: false, roots, ...extra });
const codes = (diagnostics: readonly { code: string }[]) => diagnostics.map((d) => d.code);

beforeAll(async () => {
	root = await tempDir();
	high = join(root, "high");
	low = join(root, "low");
	user = join(root, "user");
	await writeTree(high, { "deploy/SKILL.md": skillMd("deploy", "High deploy."), "alpha/SKILL.md": skillMd("alpha") });
	await writeTree(low, { "deploy/SKILL.md": skillMd("deploy", "Low deploy."), "beta/SKILL.md": skillMd("beta") });
	await writeTree(user, { "deploy/SKILL.md": skillMd("deploy", "User deploy.") });
});

describe("identity inside one root", () => {
	it("renames skills that declare another skill's name to their folder names, so both stay reachable", async () => {
		const dir = join(root, "comms");
		await writeTree(dir, {
			"internal-comms-anthropic/SKILL.md": skillMd("internal-comms", "Anthropic's version."),
			"internal-comms-community/SKILL.md": skillMd("internal-comms", "Community version."),
		});
		const { index } = await run([dir]);
		expect(index.names()).toEqual(["internal-comms-anthropic", "internal-comms-community"]);
		expect(index.skills.map((s) => codes(s.diagnostics).filter((c) => c === "name.collision-renamed"))).toEqual([
			["name.collision-renamed"],
			["name.collision-renamed"],
		]);
	});

	it("keeps the skill whose folder matches and renames the other", async () => {
		const dir = join(root, "partial");
		await writeTree(dir, { "pdf/SKILL.md": skillMd("pdf"), "pdf-v2/SKILL.md": skillMd("pdf") });
		expect((await run([dir])).index.names()).toEqual(["pdf", "pdf-v2"]);
	});

	it("rejects two different skills with one name at the same rank, under every policy", async () => {
		const dir = join(root, "same-rank");
		await writeTree(dir, { "a/foo/SKILL.md": skillMd("foo", "One."), "b/foo/SKILL.md": skillMd("foo", "Two.") });
		for (const policy of ["precedence", "reject", "keep-all", "qualify"] as CollisionPolicy[]) {
			const { index, report } = await run([dir], { policy });
			expect(index.size).toBe(0);
			expect(report.rejected.map((r) => codes(r.diagnostics))).toEqual([
				["collision.same-rank"],
				["collision.same-rank"],
			]);
		}
	});

	it("gives names with spaces and capitals an id from the folder and keeps the text as a title", async () => {
		const dir = join(root, "messy");
		await writeTree(dir, { "pdf-tools/SKILL.md": skillMd("PDF Tools") });
		const [skill] = (await run([dir])).index.skills;
		expect([skill?.name, skill?.properties.declaredName]).toEqual(["pdf-tools", "PDF Tools"]);
	});
});

describe("collision policies across roots", () => {
	it("precedence: the higher root wins; the others are shadowed and reachable by qualified name", async () => {
		const { index, report } = await run([high, low], { userRoots: [user] });
		expect(index.get("deploy")?.description).toBe("High deploy.");
		expect(index.get("deploy@workspace.2")).toMatchObject({ status: "shadowed", shadowedBy: "deploy@workspace" });
		expect(index.get("deploy@user")).toMatchObject({ status: "shadowed", description: "User deploy." });
		expect(index.names()).toEqual(["alpha", "deploy", "beta"]);
		expect(report.shadowed.map((s) => s.qualifiedName)).toEqual(["deploy@workspace.2", "deploy@user"]);
	});

	it("reject: every copy of a colliding name is excluded with an error", async () => {
		const { index, report } = await run([high, low], { policy: "reject" });
		expect(index.names()).toEqual(["alpha", "beta"]);
		expect(report.rejected.map((r) => [r.name, codes(r.diagnostics)])).toEqual([
			["deploy", ["collision.rejected"]],
			["deploy", ["collision.rejected"]],
		]);
	});

	it("keep-all: every copy is listed under its qualified name and the bare name goes to none", async () => {
		const { index } = await run([high, low], { policy: "keep-all", userRoots: [user] });
		expect(index.names()).toEqual(["alpha", "deploy@workspace", "beta", "deploy@workspace.2", "deploy@user"]);
		expect(index.get("deploy")).toBeUndefined();
	});

	it("qualify: every copy is listed; the bare name goes to the winner", async () => {
		const { index } = await run([high, low], { policy: "qualify", userRoots: [user] });
		expect(index.names()).toEqual(["alpha", "deploy", "beta", "deploy@workspace.2", "deploy@user"]);
		expect(index.get("deploy")?.description).toBe("High deploy.");
	});

	it("a locked admin root keeps its names under every policy", async () => {
		const admin = join(root, "admin");
		await writeTree(admin, { "deploy/SKILL.md": skillMd("deploy", "Admin deploy.") });
		for (const policy of ["precedence", "keep-all", "qualify"] as CollisionPolicy[]) {
			const { index, report } = await run([high], { adminRoots: [admin], adminLocked: true, policy });
			expect(index.get("deploy")?.description).toBe("Admin deploy.");
			expect(report.rejected.map((r) => codes(r.diagnostics))).toEqual([["collision.locked"]]);
		}
		const unlocked = await run([high], { adminRoots: [admin] });
		expect(unlocked.index.get("deploy")?.description).toBe("High deploy.");
	});
});

describe("trust and disabled skills", () => {
	it("keeps an untrusted workspace's skills out of competition and the catalog", async () => {
		const { index, report } = await run([high], { userRoots: [user], trustWorkspace: false });
		expect(index.get("deploy")?.description).toBe("User deploy.");
		expect(index.catalogSkills.map((s) => s.name)).toEqual(["deploy"]);
		expect(report.untrusted.map((s) => s.qualifiedName)).toEqual(["alpha@workspace", "deploy@workspace"]);
	});

	it("disables by name (every copy) or by qualified name (that copy, letting the next win)", async () => {
		const all = await run([high, low], { disabled: ["deploy"] });
		expect(all.index.selected.map((s) => s.name)).toEqual(["alpha", "beta"]);
		expect(all.report.disabled.map((s) => s.qualifiedName)).toEqual(["deploy@workspace", "deploy@workspace.2"]);
		const one = await run([high, low], { disabled: ["deploy@workspace"] });
		expect(one.index.get("deploy")?.description).toBe("Low deploy.");
	});

	it("lists a skill that opted out of model invocation, but not in the catalog", async () => {
		const dir = join(root, "manual");
		await writeTree(dir, { "by-hand/SKILL.md": skillMd("by-hand", "Only by hand.", "disable-model-invocation: true") });
		const { index } = await run([dir]);
		expect(index.names()).toEqual(["by-hand"]);
		expect(index.catalogSkills).toEqual([]);
	});
});

describe("SkillIndex", () => {
	it("is frozen, ordered by rank then name, and suggests close names", async () => {
		const { index } = await run([high, low]);
		expect(Object.isFrozen(index.skills)).toBe(true);
		expect(Object.isFrozen(index.skills[0])).toBe(true);
		expect(index.skills.map((s) => s.rank)).toEqual([0, 0, 1, 1]);
		expect(index.closest("deploi")).toEqual(["deploy"]);
		expect(index.get("  deploy ")?.name).toBe("deploy");
	});

	it("keeps each skill's properties as discovered: what a cached catalog of the index says cannot go stale", async () => {
		const { index } = await run([high, low]);
		const properties = index.skills[0]?.properties as { description: string };
		const before = properties.description;
		expect(() => {
			properties.description = "changed after discovery";
		}).toThrow(TypeError);
		expect(index.skills[0]?.properties.description).toBe(before);
		// The catalog's triggers too (a list inside the properties).
		const folder = await writeTree(join(await tempDir(), "triggers"), {
			"ship/SKILL.md": "---\nname: ship\ndescription: Ships.\nread_when:\n  - releasing\n---\n# Ship\n",
		});
		const triggered = (await discover({ cwd: folder, defaultRoots: false, roots: [folder] })).index.get("ship");
		const triggers = (triggered?.properties.readWhen ?? []) as string[];
		expect(triggers).toEqual(["releasing"]);
		expect(() => triggers.push("always")).toThrow(TypeError);
		// An index made from a caller's skills freezes its own copy, never the caller's objects.
		const theirs = { ...(index.skills[0] as IndexedSkill), properties: { ...index.skills[0]?.properties } };
		const copied = new SkillIndex([theirs as IndexedSkill]);
		expect(() => {
			(copied.skills[0]?.properties as { description: string }).description = "x";
		}).toThrow(TypeError);
		theirs.properties.description = "still theirs to change";
		expect(copied.skills[0]?.properties.description).toBe(before);
	});
});
