// Issue 20: the agent's skills section is the library's (buildSkillsSection), fitted as a whole to its share of the
// context window; load_skill's enum lists the described skills; a skill listed by name only counts as listed.
import { join } from "node:path";
import { loadDefaultTokenizer } from "skillset";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMarkdownCatalog } from "../helpers/catalog-measure.ts";
import { type ScriptedLlm, startScriptedLlm, systemOf } from "../helpers/scripted-llm.ts";
import { generateSkills, writeSkillCollection } from "../helpers/skill-collection.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

describe("the agent's skills section on a big collection", () => {
	it("fits heading, instruction and catalog in 2% of the window, and offers the described names", async () => {
		const fixture = await workspaceFixture();
		await writeSkillCollection(join(fixture.workspace, ".agents", "skills"), generateSkills(300));
		// 2% of 100,000 tokens: 2,000 tokens for the whole section.
		const agent = await agentFor(llm.url, fixture, { contextWindow: 100_000 });
		llm.requests.length = 0;
		llm.script([{ content: "done" }]);
		await agent.send("hello");
		const system = systemOf(llm.requests[0]);
		const start = system.indexOf("## Skills");
		const end = system.indexOf("\n\n", system.indexOf("\n- ", start));
		const section = system.slice(start, end < 0 ? undefined : end);
		const tokenizer = await loadDefaultTokenizer();
		expect(tokenizer.count(section)).toBeLessThanOrEqual(2000);
		const shown = readMarkdownCatalog(section.slice(section.indexOf("\n- ") + 1));
		expect(shown.named.length).toBeGreaterThan(0);
		expect(shown.described.length + shown.named.length + shown.more).toBe(300);
		// load_skill's enum: exactly the described skills.
		const load = llm.requests[0]?.body.tools?.find((tool) => tool.function.name === "load_skill");
		if (!load) throw new Error("no load_skill tool");
		const schema = load.function.parameters as { properties: { name: { anyOf?: { enum?: string[] }[] } } };
		const name = schema.properties.name;
		const listedEnum = name.anyOf?.find((option) => option.enum)?.enum ?? [];
		expect(listedEnum.sort()).toEqual(shown.described.map((entry) => entry.name).sort());
		// The catalog is not repeated in the tool's description: the system prompt carries it.
		expect(load.function.description ?? "").not.toContain("Available skills:");
		// A skill the model sees by name only is listed too.
		const listed = new Set(
			agent
				.skills()
				.filter((skill) => skill.listed)
				.map((skill) => skill.name),
		);
		for (const named of shown.named) expect(listed.has(named), named).toBe(true);
		expect(listed.size).toBe(shown.described.length + shown.named.length);
	}, 60_000);
});
