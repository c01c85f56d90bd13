import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentEvent, createAgent, createOpenAIClient, readAgentsMd } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	type RecordedRequest,
	type ScriptedLlm,
	startScriptedLlm,
	systemOf,
	toolResultsOf,
} from "../helpers/scripted-llm.ts";
import { skillMd, writeTree } from "../helpers/temp.ts";
import { agentFor, defaultSkills, workspaceFixture } from "./fixture.ts";

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

function fresh(steps: Parameters<ScriptedLlm["script"]>[0]) {
	llm.requests.length = 0;
	llm.script(steps);
}

const COMPACTION = "You write the summary";
const isCompaction = (request: { body: { messages: { content: string | null }[] } }) =>
	String(request.body.messages[0]?.content).startsWith(COMPACTION);

describe("createAgent", () => {
	it("puts the catalog and AGENTS.md (root first, nearest last) in the system prompt", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture);
		fresh([{ content: "hi there" }]);
		const result = await agent.send("hello");
		expect(result).toMatchObject({ status: "done", text: "hi there" });
		const system = systemOf(llm.requests[0]);
		expect(system).toContain("pdf-tools: Fill, merge and split PDF files and forms.");
		expect(system).toContain("deploy: Ship the service to production.");
		expect(system).not.toContain("secret-ritual");
		expect(system.indexOf("Root rule: use tabs.")).toBeGreaterThan(0);
		expect(system.indexOf("App rule")).toBeGreaterThan(system.indexOf("Root rule"));
		expect(llm.requests[0]?.body.stream).toBe(true);
		expect(llm.requests[0]?.body.tools?.map((t) => t.function.name)).toEqual(
			expect.arrayContaining(["load_skill", "read_file", "run_shell", "create_skill"]),
		);
	});

	it("caps AGENTS.md with a marker that says what was cut", async () => {
		const fixture = await workspaceFixture();
		await writeFile(join(fixture.workspace, "AGENTS.md"), "x".repeat(5000));
		const agentsMd = readAgentsMd(fixture.workspace, 1000);
		expect(agentsMd.truncated).toBe(true);
		expect(agentsMd.text).toMatch(/^\[AGENTS\.md cut: the first \d+ of \d+ characters were left out/);
		expect(agentsMd.text.length).toBeLessThan(1200);
	});

	it("works without streaming too", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture, { stream: false });
		fresh([{ toolCalls: [{ name: "list_dir", arguments: {} }] }, { content: "listed" }]);
		const result = await agent.send("what is here?");
		expect(result).toMatchObject({ status: "done", text: "listed", toolCalls: 1 });
		expect(llm.requests[0]?.body.stream).toBeFalsy();
		expect(toolResultsOf(llm.requests[1])[0]).toContain("README.md");
	});

	it("retries a 429 and a 503 with backoff and then answers", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture);
		fresh([{ status: 429 }, { status: 503 }, { content: "after retries" }]);
		const result = await agent.send("hello");
		expect(result).toMatchObject({ status: "done", text: "after retries" });
		expect(llm.requests).toHaveLength(3);
	});

	it("fails the turn (not the program) when the server keeps failing", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture);
		fresh([{ status: 500 }, { status: 500 }, { status: 500 }, { content: "later" }]);
		expect((await agent.send("hello")).status).toBe("failed");
		expect((await agent.send("again")).text).toBe("later");
	});

	it("times out a request that does not answer, retries it, then fails the turn", async () => {
		const fixture = await workspaceFixture();
		const agent = await createAgent({
			model: createOpenAIClient({ model: "m", baseURL: llm.url, apiKey: "k", timeoutMs: 300, maxRetries: 1 }),
			workspace: fixture.workspace,
			discover: { home: fixture.home },
		});
		fresh([
			{ content: "late", headerDelayMs: 2_000 },
			{ content: "late", headerDelayMs: 2_000 },
		]);
		const result = await agent.send("hello");
		expect(result.status).toBe("failed");
		expect(result.error).toMatch(/timed out/i);
		expect(llm.requests).toHaveLength(2);
	});

	it("fails a call whose streamed answer passes the size limit", async () => {
		const fixture = await workspaceFixture();
		const agent = await createAgent({
			model: createOpenAIClient({ model: "m", baseURL: llm.url, apiKey: "k", maxAnswerChars: 5_000 }),
			workspace: fixture.workspace,
			discover: { home: fixture.home },
		});
		fresh([{ content: "word ".repeat(5_000) }]);
		const result = await agent.send("talk");
		expect(result).toMatchObject({ status: "failed", error: "the model's answer passed 5000 characters" });
	});

	it("saves skills into the workspace with saveSkills: workspace", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture, { saveSkills: "workspace", yes: true });
		const skill = { name: "notes", description: "Take notes. Use when asked to take notes.", body: "Write them down." };
		fresh([{ toolCalls: [{ name: "create_skill", arguments: skill }] }, { content: "ok" }, { content: "next" }]);
		await agent.send("save");
		expect(await readFile(join(fixture.workspace, ".agents/skills/notes/SKILL.md"), "utf8")).toContain(
			"agent_created: true",
		);
		await agent.send("next");
		expect(systemOf(llm.requests[2])).toContain("notes: Take notes.");
	});

	it("keeps load_skill output whole three turns later while an old run_shell output becomes a placeholder", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture, { yes: true });
		fresh([
			{ toolCalls: [{ name: "load_skill", arguments: { name: "pdf-tools" } }] },
			{ toolCalls: [{ name: "run_shell", arguments: { command: "seq 1 3000" } }] },
			{ content: "turn 1 done" },
			{ content: "turn 2" },
			{ content: "turn 3" },
			{ content: "turn 4" },
		]);
		await agent.send("fill the form");
		const clipped = toolResultsOf(llm.requests[2])[1] ?? "";
		expect(clipped).toMatch(/\[\.\.\. \d+ of \d+ characters cut here/);
		expect(clipped.length).toBeLessThan(4400);
		for (const text of ["two", "three", "four"]) await agent.send(text);
		const results = toolResultsOf(llm.requests.at(-1));
		const skill = results.find((r) => r.includes('<skill_content name="pdf-tools">')) ?? "";
		expect(skill).toContain("Step 299: keep the PDF text layer intact.");
		expect(skill.length).toBeGreaterThan(10_000);
		expect(results[1]).toBe(
			'[Older result of run_shell({"command":"seq 1 3000"}) removed to save context; call the tool again if you need it.]',
		);
		// Turn 3 still saw the clipped output itself.
		expect(toolResultsOf(llm.requests.at(-2))[1]).toContain("characters cut here");
	});

	it("compacts past the threshold with a model-written summary and re-delivers the active skill once", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const events: AgentEvent[] = [];
		const agent = await agentFor(llm.url, fixture, { contextWindow: 12_000, onEvent: (e) => events.push(e) });
		const reply = (request: RecordedRequest) =>
			isCompaction(request) ? { content: "SUMMARY: the user wants PDF forms filled." } : { content: "ok" };
		fresh([{ toolCalls: [{ name: "load_skill", arguments: { name: "pdf-tools" } }] }, ...Array(12).fill(reply)]);
		await agent.send("fill the form");
		await agent.send(`Here is the data: ${"row of numbers 1 2 3 4 5 6 7 8 9 ".repeat(400)}`);
		await agent.send("and now?");
		const compactions = llm.requests.filter(isCompaction);
		expect(compactions.length).toBeGreaterThanOrEqual(1);
		expect(compactions[0]?.body.messages[1]?.content).toContain("skill content for pdf-tools");
		expect(compactions[0]?.body.messages[1]?.content).not.toContain("Step 299");
		const first = llm.requests.indexOf(compactions[0] as (typeof llm.requests)[number]);
		const after = llm.requests.slice(first + 1).filter((r) => !isCompaction(r));
		expect(after.length).toBeGreaterThanOrEqual(2);
		for (const request of after) {
			const text = JSON.stringify(request.body.messages);
			expect(text.split("Step 299: keep the PDF text layer intact.").length - 1).toBe(1);
			expect(systemOf(request)).toContain("SUMMARY: the user wants PDF forms filled.");
		}
		expect(events.some((e) => e.type === "context.compacted")).toBe(true);
		expect(events.some((e) => e.type === "agent.skill.redelivered")).toBe(true);
	});

	it("activates $name before the first request, user-only skills too", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture);
		fresh([{ content: "following the ritual" }]);
		const result = await agent.send("$secret-ritual begin");
		expect(result.status).toBe("done");
		const messages = llm.requests[0]?.body.messages ?? [];
		expect(messages[1]).toMatchObject({ role: "user", content: "$secret-ritual begin" });
		expect(String(messages[3]?.content)).toContain('<skill_content name="secret-ritual">');
		expect(agent.session.active).toEqual(["secret-ritual"]);
	});

	it.each([
		["/pdf do it", "No skill is called 'pdf'. Did you mean: pdf-tools?"],
		["$nothing-like-it", "No skill is called 'nothing-like-it'."],
	])("lists candidates for an unknown name and does not guess: %s", async (message, expected) => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture);
		fresh([{ content: "should not be asked" }]);
		const result = await agent.send(message);
		expect(result).toMatchObject({ status: "refused", text: expected });
		expect(llm.requests).toHaveLength(0);
		expect(agent.session.active).toEqual([]);
	});

	it("lists the copies of an ambiguous name and runs nothing", async () => {
		const fixture = await workspaceFixture({ "notes/SKILL.md": skillMd("notes", "Workspace notes.") });
		await writeTree(fixture.home, { ".agents/skills/notes/SKILL.md": skillMd("notes", "User notes.") });
		const agent = await agentFor(llm.url, fixture, { discover: { home: fixture.home, policy: "keep-all" } });
		fresh([{ content: "should not be asked" }]);
		const result = await agent.send("$notes take a note");
		expect(result.status).toBe("refused");
		expect(result.text).toMatch(/^'notes' is ambiguous: notes@workspace, notes@user\. Say which one\.$/);
		expect(llm.requests).toHaveLength(0);
		expect((await agent.send("$notes@user take a note")).status).toBe("done");
		expect(agent.session.active).toEqual(["notes@user"]);
	});

	it("hints at matching skills (read_when and BM25) without loading them, and loads with autoLoad", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture);
		fresh([{ content: "a" }, { content: "b" }]);
		await agent.send("please release a new version");
		expect(llm.requests[0]?.body.messages[1]?.content).toBe(
			"please release a new version\n\n[skillset: skills that may help: deploy — load with load_skill]",
		);
		await agent.send("merge these pdf files");
		expect(llm.requests[1]?.body.messages.at(-1)?.content).toContain("skills that may help: pdf-tools");
		expect(agent.session.active).toEqual([]);
		const auto = await agentFor(llm.url, fixture, { autoLoad: true });
		fresh([{ content: "c" }]);
		await auto.send("merge these pdf files");
		expect(auto.session.active).toEqual(["pdf-tools"]);
		expect(toolResultsOf(llm.requests[0])[0]).toContain('<skill_content name="pdf-tools">');
	});

	it("picks up a skill added between turns (rescan before each turn)", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture);
		fresh([{ content: "a" }, { content: "b" }]);
		await agent.send("one");
		expect(systemOf(llm.requests[0])).not.toContain("csv-clean");
		await writeTree(fixture.workspace, {
			".agents/skills/csv-clean/SKILL.md": skillMd("csv-clean", "Clean CSV files."),
		});
		await agent.send("two");
		expect(systemOf(llm.requests[1])).toContain("csv-clean: Clean CSV files.");
	});

	it("cancels a turn mid-stream and keeps the agent usable", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture);
		fresh([{ content: "word ".repeat(200), delayMs: 20 }, { content: "second answer" }]);
		const controller = new AbortController();
		let streamed = "";
		const turn = agent.send("talk", {
			signal: controller.signal,
			onText: (delta) => {
				streamed += delta;
				if (streamed.length > 20) controller.abort();
			},
		});
		expect((await turn).status).toBe("cancelled");
		expect(await agent.send("again")).toMatchObject({ status: "done", text: "second answer" });
	});

	it("runs at most 32 tool calls from one answer and answers the rest with an error", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture);
		const calls = Array.from({ length: 40 }, () => ({ name: "list_dir", arguments: {} }));
		fresh([{ toolCalls: calls }, { content: "done" }]);
		const result = await agent.send("list a lot");
		expect(result.toolCalls).toBe(32);
		const results = toolResultsOf(llm.requests[1]);
		expect(results).toHaveLength(40);
		expect(results.slice(32).every((r) => r === "Not run: at most 32 tool calls are run per answer.")).toBe(true);
	});

	it("reminds the model once after many tool calls that it may save a skill", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture, { reminderAfterToolCalls: 3 });
		const list = { toolCalls: [{ name: "list_dir", arguments: {} }] };
		fresh([list, list, list, list, { content: "done" }]);
		await agent.send("look around");
		const results = toolResultsOf(llm.requests.at(-1));
		expect(results.filter((r) => r.includes("save it as a skill with create_skill"))).toHaveLength(1);
		expect(results[2]).toContain("save it as a skill with create_skill");
	});

	it("saves and resumes a conversation with its active skills and grants", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		const agent = await agentFor(llm.url, fixture, { confirm: async () => "always" });
		fresh([
			{ toolCalls: [{ name: "load_skill", arguments: { name: "pdf-tools" } }] },
			{ toolCalls: [{ name: "write_file", arguments: { path: "notes.txt", content: "one" } }] },
			{ content: "saved" },
		]);
		await agent.send("start");
		const saved = JSON.parse(JSON.stringify(agent.save()));
		const asked: string[] = [];
		const resumed = await agentFor(llm.url, fixture, {
			resume: saved,
			confirm: async (request) => {
				asked.push(request.pattern);
				return "deny";
			},
		});
		expect(resumed.session.active).toEqual(["pdf-tools"]);
		fresh([
			{ toolCalls: [{ name: "write_file", arguments: { path: "notes.txt", content: "two" } }] },
			{ content: "ok" },
		]);
		await resumed.send("continue");
		expect(asked).toEqual([]);
		expect(await readFile(join(fixture.workspace, "notes.txt"), "utf8")).toBe("two");
		expect(llm.requests[0]?.body.messages.some((m) => m.content === "start")).toBe(true);
	});
});
