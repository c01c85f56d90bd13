import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type AgentOptions, createAgent, createOpenAIClient } from "skillset/agent";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

/** A repository with AGENTS.md at its root and in the workspace folder, skills, and a private home. */
export async function workspaceFixture(skills: Record<string, string> = {}) {
	const repo = await tempDir();
	await mkdir(join(repo, ".git"));
	const workspace = join(repo, "app");
	const home = join(repo, "home");
	await writeTree(repo, {
		"AGENTS.md": "Root rule: use tabs.",
		"app/AGENTS.md": "App rule: run npm test before you finish.",
		"app/README.md": "hello\n",
		"home/.keep": "",
		...Object.fromEntries(Object.entries(skills).map(([path, text]) => [`app/.agents/skills/${path}`, text])),
	});
	return { repo, workspace, home };
}

/** The default skills of the tests: pdf-tools (long body), deploy (a read_when trigger) and a user-only one. */
export function defaultSkills(): Record<string, string> {
	const long = Array.from({ length: 300 }, (_, i) => `Step ${i}: keep the PDF text layer intact.`).join("\n");
	return {
		"pdf-tools/SKILL.md": `---\nname: pdf-tools\ndescription: Fill, merge and split PDF files and forms.\n---\n# PDF\n\n${long}\n`,
		"pdf-tools/references/forms.md": "Forms reference.\n",
		"deploy/SKILL.md": skillMd("deploy", "Ship the service to production.", "read_when:\n  - release a new version"),
		"secret-ritual/SKILL.md": skillMd(
			"secret-ritual",
			"A ritual only the user starts.",
			"disable-model-invocation: true",
		),
	};
}

/** An agent against the scripted server, isolated from the real home folder. */
export async function agentFor(
	url: string,
	fixture: { workspace: string; home: string },
	options: Partial<AgentOptions> & { stream?: boolean } = {},
) {
	const { stream, ...rest } = options;
	return createAgent({
		model: createOpenAIClient({
			model: "scripted",
			baseURL: url,
			apiKey: "test",
			maxRetries: 2,
			stream: stream ?? true,
		}),
		workspace: fixture.workspace,
		discover: { home: fixture.home },
		...rest,
	});
}
