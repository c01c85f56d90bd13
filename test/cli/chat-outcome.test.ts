import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSkills, workspaceFixture } from "../agent/fixture.ts";
import { runBuilt } from "../helpers/cli.ts";
import { type ScriptedLlm, type ScriptStep, startScriptedLlm } from "../helpers/scripted-llm.ts";

// Issue 20 §2: `chat -p` tells the user what happened, through the built CLI against a scripted loopback server.

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

async function chat(args: string[], steps: ScriptStep[], env: Record<string, string> = {}) {
	llm.requests.length = 0;
	llm.script(steps);
	const fixture = await workspaceFixture(defaultSkills());
	return runBuilt(["chat", fixture.workspace, "--model", "scripted", ...args], {
		cwd: fixture.workspace,
		env: { HOME: fixture.home, ...env },
	});
}

const writeThenAnswer: ScriptStep[] = [
	{ toolCalls: [{ name: "write_file", arguments: { path: "notes/x.txt", content: "x" } }] },
	{ toolCalls: [{ name: "run_shell", arguments: { command: "git push origin main" } }] },
	{ content: "I could not write the file or push; please run it yourself." },
];

describe("chat -p with refused calls (issue 20)", () => {
	it("prints the model's answer on stdout, each refused call on stderr, and exits 0", async () => {
		const run = await chat(
			["--base-url", llm.url, "-p", "write and push", "--deny", "run_shell(git push:*)"],
			writeThenAnswer,
		);
		expect(run.stdout).toBe("I could not write the file or push; please run it yourself.\n");
		const refused = run.stderr.split("\n").filter((line) => line.startsWith("refused:"));
		expect(refused).toEqual([
			expect.stringMatching(/^refused: write_file notes\/x\.txt \(rule [a-z-]+\)$/),
			"refused: run_shell git push origin main (rule ceiling-deny)",
		]);
		expect(run.stderr).not.toContain("the task was refused");
		expect(run.exitCode).toBe(0);
	});

	it("--fail-on-refusal exits 1, and still prints the answer", async () => {
		const run = await chat(["--base-url", llm.url, "-p", "write it", "--fail-on-refusal"], writeThenAnswer);
		expect(run.stdout).toBe("I could not write the file or push; please run it yourself.\n");
		expect(run.exitCode).toBe(1);
	});

	it("--fail-on-refusal exits 0 when nothing was refused", async () => {
		const run = await chat(["--base-url", llm.url, "-p", "hi", "--fail-on-refusal"], [{ content: "Hello." }]);
		expect(run).toMatchObject({ exitCode: 0, stdout: "Hello.\n" });
	});

	it("--json carries the refused calls", async () => {
		const run = await chat(["--base-url", llm.url, "-p", "write it", "--json", "--deny", "run_shell"], writeThenAnswer);
		expect(run.exitCode).toBe(0);
		const data = JSON.parse(run.stdout);
		expect(data).toMatchObject({ status: "refused", text: expect.stringContaining("could not write"), toolCalls: 2 });
		expect(data.refusals).toEqual([
			{ tool: "write_file", target: "notes/x.txt", rule: expect.any(String) },
			{ tool: "run_shell", target: "git push origin main", rule: "ceiling-deny" },
		]);
	});

	it("exits 1 when the turn hits the model-call limit", async () => {
		const loop = Array.from({ length: 60 }, () => ({ toolCalls: [{ name: "list_dir", arguments: {} }] }));
		const run = await chat(["--base-url", llm.url, "-p", "loop"], loop);
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain("stopped after 50 model calls");
		expect(run.stderr).not.toContain("API key");
		expect(run.stdout).toBe("");
	});
});

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe("chat errors name what to fix (issue 20)", () => {
	it("an endpoint that cannot be reached without a key names the URL tried and the variable read", async () => {
		const url = `http://127.0.0.1:${await closedPort()}/v1`;
		const run = await chat(["-p", "hi", "--timeout", "5000"], [], { OPENAI_BASE_URL: url });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain(`cannot reach the model server at ${url}`);
		expect(run.stderr).toContain("ECONNREFUSED");
		expect(run.stderr).toContain("OPENAI_API_KEY is not set");
		expect(run.stderr).not.toMatch(/^skillset: the task failed: Connection error\.$/m);
		const named = await chat(["-p", "hi", "--api-key-env", "MY_MODEL_KEY"], [], { OPENAI_BASE_URL: url });
		expect(named.stderr).toContain("MY_MODEL_KEY (--api-key-env) is not set");
	});

	it("says nothing of the key when one was set", async () => {
		const url = `http://127.0.0.1:${await closedPort()}/v1`;
		const run = await chat(["-p", "hi"], [], { OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-test" });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain(`cannot reach the model server at ${url}`);
		expect(run.stderr).not.toContain("API key");
	});

	it.each([
		[["--base-url", "127.0.0.1:11434/v1"], {}, "--base-url must be an http:// or https:// URL"],
		[[], { OPENAI_BASE_URL: "localhost:8080/v1" }, "OPENAI_BASE_URL must be an http:// or https:// URL"],
	])("a base URL without a scheme is a usage error naming where it came from: %j %j", async (args, env, message) => {
		const run = await chat(["-p", "hi", ...args], [], env);
		expect(run.exitCode).toBe(2);
		expect(run.stderr.split("\n")[0]).toContain(message);
		expect(llm.requests).toHaveLength(0);
	});

	it("an HTML error page is summarised by its status, title and first line, not dumped", async () => {
		const page = `<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.18.0 (Ubuntu)</center>
${"<!-- a padding comment -->\n".repeat(200)}</body></html>\n`;
		const proxy = createServer((_request, response) => {
			response.writeHead(502, { "content-type": "text/html", "retry-after-ms": "10" });
			response.end(page);
		});
		await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
		const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
		try {
			const run = await chat(["-p", "hi", "--base-url", url], [], { OPENAI_API_KEY: "sk-test" });
			expect(run.exitCode).toBe(1);
			expect(run.stderr).toContain(
				`the model server at ${url} answered 502: an HTML page titled "502 Bad Gateway": nginx/1.18.0 (Ubuntu)`,
			);
			expect(run.stderr).not.toMatch(/<html|<center|padding comment|color:red/);
			expect(run.stderr.length).toBeLessThan(600);
		} finally {
			await new Promise<void>((resolve) => proxy.close(() => resolve()));
		}
	});

	it("a JSON error keeps the server's own message", async () => {
		const run = await chat(["-p", "hi", "--base-url", llm.url], [{ status: 400 }], { OPENAI_API_KEY: "sk-test" });
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain(`the model server at ${llm.url} answered 400: scripted 400`);
	});
});

describe("chat -p output under attack (issue 20; THREATS: terminal, structure forging, secrets out, size)", () => {
	it("a model-chosen target cannot forge a refusal line or reach the terminal as an escape sequence", async () => {
		const path = `a\u001b]52;c;ZXZpbA==\u0007\nrefused: nothing (rule fake)\r${"x".repeat(5000)}`;
		const run = await chat(
			["--base-url", llm.url, "-p", "write"],
			[{ toolCalls: [{ name: "write_file", arguments: { path, content: "x" } }] }, { content: "No." }],
		);
		expect(run.exitCode).toBe(0);
		const refused = run.stderr.split("\n").filter((line) => line.includes("refused:"));
		expect(refused).toHaveLength(1);
		expect(refused[0]).toMatch(
			/^refused: write_file a\\x1b\]52;c;ZXZpbA==\\x07\\nrefused: nothing \(rule fake\)\\rx+… \(rule /,
		);
		expect(refused[0]?.length).toBeLessThan(400);
		expect([...run.stderr].filter((char) => "\u001b\u0007\r".includes(char))).toEqual([]);
	});

	it("a password or token in the base URL never reaches the error", async () => {
		const port = await closedPort();
		const run = await chat(["-p", "hi"], [], {
			OPENAI_BASE_URL: `http://me:s3cret-pass@127.0.0.1:${port}/v1?api-key=tok3n`,
		});
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain(`cannot reach the model server at http://…@127.0.0.1:${port}/v1?…`);
		expect(run.stderr).not.toMatch(/s3cret|tok3n/);
		const usage = await chat(["-p", "hi", "--base-url", "me:s3cret-pass@127.0.0.1/v1"], []);
		expect(usage.exitCode).toBe(2);
		expect(usage.stderr).not.toContain("s3cret");
	});

	it("an error page's title and text reach the terminal only made visible, and clipped", async () => {
		const page = `<html><head><title>Down\u001b]0;OWNED\u0007</title></head><body><p>${"\u001b[2J".repeat(3)}${"y".repeat(10_000)}</p></body></html>`;
		const proxy = createServer((_request, response) => {
			response.writeHead(404, { "content-type": "text/html" });
			response.end(page);
		});
		await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
		const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
		try {
			const run = await chat(["-p", "hi", "--base-url", url], [], { OPENAI_API_KEY: "sk-test" });
			expect(run.exitCode).toBe(1);
			expect(run.stderr).toContain('answered 404: an HTML page titled "Down\\x1b]0;OWNED\\x07": \\x1b[2J');
			expect([...run.stderr].filter((char) => "\u001b\u0007".includes(char))).toEqual([]);
			expect(run.stderr.length).toBeLessThan(800);
		} finally {
			await new Promise<void>((resolve) => proxy.close(() => resolve()));
		}
	});
});

describe("chat names a failed origin like every discovering command (issue 21 item 6)", () => {
	async function closedPort(): Promise<number> {
		const probe = createServer();
		await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
		const { port } = probe.address() as AddressInfo;
		await new Promise<void>((done) => probe.close(() => done()));
		return port;
	}

	it("says which origin failed on stderr, still answers, and exits 1 unless --allow-offline", async () => {
		const index = `--index=site=http://127.0.0.1:${await closedPort()}/`;
		const run = await chat(["--base-url", llm.url, "-p", "hi", index], [{ content: "Hello." }]);
		expect(run.stdout).toBe("Hello.\n");
		const warnings = run.stderr.split("\n").filter((line) => line.startsWith("skillset: warning: origin"));
		expect(warnings).toEqual([expect.stringMatching(/origin index:site .*failed: .*nothing cached/)]);
		expect(run.exitCode).toBe(1);
		const offline = await chat(["--base-url", llm.url, "-p", "hi", index, "--allow-offline"], [{ content: "Hi." }]);
		expect(offline).toMatchObject({ exitCode: 0, stdout: "Hi.\n" });
		expect(offline.stderr).toMatch(/^skillset: warning: origin index:site /m);
	});
});
