import {
	buildCatalog,
	createSession,
	createSkillTools,
	estimateTokenizer,
	executeToolCall,
	isSkillContent,
} from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf, skillMd } from "../helpers/temp.ts";

const tokenizer = estimateTokenizer;

async function tools() {
	const { index } = await indexOf({
		"pdf-tools/SKILL.md": skillMd("pdf-tools", "Extracts text and tables from PDF files and fills PDF forms."),
		"pdf-tools/references/forms.md": "# Forms\nFill every field.\n",
		"deploy/SKILL.md": skillMd("deploy", "Deploys the web app to staging or production with a checklist."),
		"release-notes/SKILL.md": skillMd("release-notes", "Drafts release notes from git history between two tags."),
		"by-hand/SKILL.md": skillMd("by-hand", "Only by hand.", "disable-model-invocation: true"),
	});
	const session = createSession(index, { tokenizer });
	return { session, tools: createSkillTools(session) };
}

describe("createSkillTools", () => {
	it("creates the four tools, with load_skill's name limited to the catalog's names", async () => {
		const { tools: list } = await tools();
		expect(list.map((t) => t.name)).toEqual(["load_skill", "read_skill_resource", "list_skills", "search_skills"]);
		const load = list[0];
		expect(load?.inputSchema).toMatchObject({
			type: "object",
			required: ["name"],
			additionalProperties: false,
			properties: {
				name: {
					type: "string",
					anyOf: [
						{ type: "string", enum: ["deploy", "pdf-tools", "release-notes"] },
						{ type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$", maxLength: 64 },
					],
				},
			},
		});
	});

	it("creates no tools when there are no skills", async () => {
		const { index } = await indexOf({ "empty/.keep": "" });
		expect(createSkillTools(createSession(index, { tokenizer }))).toEqual([]);
	});

	it("loads a skill as protected skill content, and answers an unknown name with close names", async () => {
		const { tools: list } = await tools();
		const loaded = await executeToolCall(list, "load_skill", '{"name": "pdf-tools", "reason": "a PDF form"}');
		expect(loaded).toMatchObject({ isError: false, protected: true, details: { name: "pdf-tools", cached: false } });
		expect(isSkillContent(loaded.content)).toBe(true);
		const wrong = await executeToolCall(list, "load_skill", { name: "pdf" });
		expect(wrong.isError).toBe(true);
		expect(wrong.content).toBe(
			"No skill is named 'pdf'. Did you mean 'pdf-tools'? Use search_skills to find skills by topic.",
		);
		expect(wrong.details).not.toHaveProperty("available");
	});

	it("reads a resource and reports bad input and bad paths as error results", async () => {
		const { tools: list } = await tools();
		const read = await executeToolCall(list, "read_skill_resource", { name: "pdf-tools", path: "references/forms.md" });
		expect(read).toMatchObject({ isError: false, content: "# Forms\nFill every field." });
		const escaped = await executeToolCall(list, "read_skill_resource", {
			name: "pdf-tools",
			path: "../deploy/SKILL.md",
		});
		expect(escaped).toMatchObject({ isError: true, details: { code: "resource.invalid-path" } });
		const bad = await executeToolCall(list, "read_skill_resource", {
			name: "pdf-tools",
			path: "x",
			offset: 0,
			extra: 1,
		});
		expect(bad.content).toBe("Invalid input: 'offset' must be at least 1; 'extra' is not an input of this tool");
		expect((await executeToolCall(list, "nope", {})).isError).toBe(true);
		expect((await executeToolCall(list, "load_skill", "{not json")).content).toBe("The arguments are not valid JSON.");
	});

	it("lists skills with what is loaded, and searches names and descriptions with BM25", async () => {
		const { tools: list } = await tools();
		await executeToolCall(list, "load_skill", { name: "deploy" });
		const listed = await executeToolCall(list, "list_skills", {});
		expect(listed.content.split("\n")[0]).toBe(
			"- deploy (loaded): Deploys the web app to staging or production with a checklist.",
		);
		const search = await executeToolCall(list, "search_skills", { query: "fill a PDF form" });
		expect((search.details.results as { name: string }[])[0]?.name).toBe("pdf-tools");
		expect((await executeToolCall(list, "search_skills", { query: "kubernetes" })).content).toBe(
			"No skill matches 'kubernetes'.",
		);
	});

	it("can carry the catalog in the load tool's description", async () => {
		const { session } = await tools();
		const catalog = await buildCatalog(session.index, { tokenizer });
		const [load] = createSkillTools(session, { catalog, include: ["load_skill"] });
		expect(load?.description).toContain(`Available skills:\n${catalog.text}`);
	});
});
