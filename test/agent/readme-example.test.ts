// The createAgent example in docs/agent.md, run as written against the scripted server (only the URL and the workspace
// are swapped in).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm } from "../helpers/scripted-llm.ts";
import { skillMd } from "../helpers/temp.ts";
import { workspaceFixture } from "./fixture.ts";

const ROOT = join(import.meta.dirname, "..", "..");

function example(): string {
	const readme = readFileSync(join(ROOT, "docs", "agent.md"), "utf8");
	const start = readme.indexOf("As a library (`skillset/agent`");
	const code = readme.slice(start).split("```ts\n")[1]?.split("```")[0] ?? "";
	return code;
}

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

describe("the README's createAgent example", () => {
	it("is under 30 lines", () => {
		expect(example().trim().split("\n").length).toBeLessThan(30);
	});

	it("runs as written: $pdf loads the skill, the answer streams, the status and tokens print", async () => {
		const fixture = await workspaceFixture({ "pdf/SKILL.md": skillMd("pdf", "Fill PDF forms.") });
		const code = example()
			.replace("http://127.0.0.1:11434/v1", llm.url)
			.replace("workspace: process.cwd()", `workspace: ${JSON.stringify(fixture.workspace)}`);
		expect(code).toContain(llm.url);
		llm.script([{ content: "Filled the form." }]);
		const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
			cwd: ROOT,
			env: { PATH: process.env.PATH ?? "", HOME: fixture.home, NO_COLOR: "1" },
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		const exit = await new Promise<number | null>((resolve) => {
			const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
			child.on("close", (code) => {
				clearTimeout(timer);
				resolve(code);
			});
		});
		expect(exit, stderr).toBe(0);
		expect(stdout).toMatch(/^Filled the form\.done \d+\n$/);
		expect(stderr).toContain("skill.activated");
		expect(JSON.stringify(llm.requests[0]?.body.messages)).toContain('<skill_content name=\\"pdf\\">');
	});
});
