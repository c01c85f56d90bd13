import { join } from "node:path";
import { discover, type IndexedSkill, SkillIndex } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// The index builds its look-up maps and its selected list on first use: what each answers must not depend on
// whether, or in which order, a host asked before.

let skills: readonly IndexedSkill[];

beforeAll(async () => {
	const root = await tempDir();
	const high = join(root, "high");
	const low = join(root, "low");
	await writeTree(high, { "deploy/SKILL.md": skillMd("deploy", "High deploy."), "alpha/SKILL.md": skillMd("alpha") });
	await writeTree(low, { "deploy/SKILL.md": skillMd("deploy", "Low deploy."), "beta/SKILL.md": skillMd("beta") });
	const { index } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [high, low] });
	skills = index.skills;
});

const answers = (index: SkillIndex) => ({
	deploy: index.get("deploy")?.description,
	shadowed: index.get("deploy@workspace.2")?.description,
	padded: index.get("  alpha ")?.name,
	missing: index.get("gamma"),
	selected: index.selected.map((skill) => skill.qualifiedName),
	catalog: index.catalogSkills.map((skill) => skill.name),
	names: index.names(),
	closest: index.closest("deploi"),
	size: index.size,
});

describe("SkillIndex look-ups", () => {
	it("answers the same whether a name was looked up first, the list read first, or neither", () => {
		const lookUpFirst = new SkillIndex(skills);
		const looked = lookUpFirst.get("deploy@workspace.2")?.description;
		const listFirst = new SkillIndex(skills);
		const listed = listFirst.selected.length;
		const fresh = answers(new SkillIndex(skills));
		expect(fresh).toEqual({
			deploy: "High deploy.",
			shadowed: "Low deploy.",
			padded: "alpha",
			missing: undefined,
			selected: ["alpha@workspace", "deploy@workspace", "beta@workspace"],
			catalog: ["alpha", "deploy", "beta"],
			names: ["alpha", "deploy", "beta"],
			closest: ["deploy"],
			size: 4,
		});
		expect([looked, listed]).toEqual(["Low deploy.", 3]);
		expect(answers(lookUpFirst)).toEqual(fresh);
		expect(answers(listFirst)).toEqual(fresh);
		expect(answers(listFirst)).toEqual(fresh);
	});

	it("hands each caller its own selected list: changing one changes no later answer", () => {
		const index = new SkillIndex(skills);
		const first = index.selected as IndexedSkill[];
		first.length = 0;
		(index.names() as string[]).push("intruder");
		expect(index.selected.map((skill) => skill.name)).toEqual(["alpha", "deploy", "beta"]);
		expect(index.names()).toEqual(["alpha", "deploy", "beta"]);
		expect(index.get("alpha")?.name).toBe("alpha");
	});

	it("keeps its skills frozen and shows no look-up table as a property", () => {
		const index = new SkillIndex(skills);
		index.get("deploy");
		expect(Object.isFrozen(index.skills)).toBe(true);
		expect(index.skills.every((skill) => Object.isFrozen(skill) && Object.isFrozen(skill.properties))).toBe(true);
		expect(Object.keys(index)).toEqual(["skills"]);
		expect(() => {
			(index.skills as IndexedSkill[]).push(skills[0] as IndexedSkill);
		}).toThrow(TypeError);
	});
});
