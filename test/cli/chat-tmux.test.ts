import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSkills, workspaceFixture } from "../agent/fixture.ts";
import { type ScriptedLlm, startScriptedLlm } from "../helpers/scripted-llm.ts";

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");
const SESSION = `skillset-chat-${process.pid}`;

let llm: ScriptedLlm;
let workspace: string;

function tmux(...args: string[]): string {
	return execFileSync("tmux", args, { encoding: "utf8" });
}

function screen(): string {
	return tmux("capture-pane", "-p", "-t", SESSION, "-S", "-200");
}

/** Waits (at most `ms`) until the screen shows `text`; fails with the screen otherwise. */
async function waitFor(text: string | RegExp, ms = 10_000): Promise<string> {
	const until = Date.now() + ms;
	for (;;) {
		const shown = screen();
		if (typeof text === "string" ? shown.includes(text) : text.test(shown)) return shown;
		if (Date.now() > until) throw new Error(`timed out waiting for ${text}; the screen:\n${shown}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

function type(text: string): void {
	tmux("send-keys", "-t", SESSION, "-l", text);
	tmux("send-keys", "-t", SESSION, "Enter");
}

beforeAll(async () => {
	expect(existsSync(BIN), "run `npm run build` first").toBe(true);
	llm = await startScriptedLlm();
	const fixture = await workspaceFixture(defaultSkills());
	workspace = fixture.workspace;
	const command = [
		`cd '${workspace}' &&`,
		`HOME='${fixture.home}' TERM=xterm-256color NO_COLOR=1`,
		`'${process.execPath}' '${BIN}' chat --base-url ${llm.url} --model scripted`,
		"; echo CHAT-EXITED-$?; sleep 30",
	].join(" ");
	tmux("new-session", "-d", "-s", SESSION, "-x", "160", "-y", "50", command);
});

afterAll(async () => {
	try {
		tmux("kill-session", "-t", SESSION);
	} catch {
		// Already gone.
	}
	await llm?.close();
});

describe("skillset chat in a real terminal (tmux)", () => {
	it("streams an answer to what is typed", async () => {
		await waitFor("skillset chat");
		// The model's escape sequence reaches the terminal only made visible (NO_COLOR: skillset itself sends none).
		llm.script([{ content: "Hello from the \u001b[7mscripted\u001b[27m model." }]);
		type("hello there");
		await waitFor("Hello from the \\x1b[7mscripted\\x1b[27m model.");
		expect(tmux("capture-pane", "-p", "-e", "-t", SESSION)).not.toContain("\u001b[7m");
		expect(llm.requests.at(-1)?.body.messages.at(-1)?.content).toBe("hello there");
	});

	it("asks for permission on the terminal and acts on the answer", async () => {
		llm.script([
			{ toolCalls: [{ name: "write_file", arguments: { path: "note.txt", content: "from the model" } }] },
			{ content: "The note is written." },
		]);
		type("write a note");
		const asked = await waitFor("Allow? [o]nce, [a]lways, [d]eny:");
		expect(asked).toContain("Permission needed (rule needs-approval)");
		expect(asked).toContain("[a]lways allows exactly this call again: write_file(note.txt)");
		type("o");
		await waitFor("The note is written.");
		expect(await readFile(join(workspace, "note.txt"), "utf8")).toBe("from the model");
	});

	it("cancels a streaming turn with Ctrl-C and stays open", async () => {
		llm.script([{ content: `${"slowly ".repeat(300)}END-OF-STREAM`, delayMs: 50 }, { content: "Still here." }]);
		type("tell me a long story");
		await waitFor(/(slowly ){5}/);
		tmux("send-keys", "-t", SESSION, "C-c");
		const after = await waitFor("(cancelled)");
		expect(after).not.toContain("END-OF-STREAM");
		type("are you there?");
		await waitFor("Still here.");
	});

	it("runs the slash commands: /skills, /load, /unload, /compact, /save", async () => {
		type("/load pdf-tools");
		await waitFor(/loaded pdf-tools \(\d+ tokens\)/);
		type("/skills");
		await waitFor(/● pdf-tools — Fill, merge and split PDF files and forms\./);
		llm.script([{ content: "SUMMARY of the chat so far." }]);
		type("/compact");
		await waitFor(/compacted: \d+ → \d+ tokens/);
		expect(String(llm.requests.at(-1)?.body.messages[0]?.content)).toMatch(/^You write the summary/);
		type("/save saved.json");
		await waitFor("saved to");
		const saved = JSON.parse(await readFile(join(workspace, "saved.json"), "utf8"));
		expect(saved).toMatchObject({ version: 1, summary: "SUMMARY of the chat so far.", active: ["pdf-tools"] });
		type("/unload pdf-tools");
		await waitFor("unloaded pdf-tools");
	});

	it("points an unknown slash command to /help, with the closest command, and sends nothing (issue 20)", async () => {
		const before = llm.requests.length;
		type("/skils");
		await waitFor("unknown command '/skils'. Did you mean /skills? /help lists the commands.");
		type("/what?");
		await waitFor("unknown command '/what?'. /help lists the commands.");
		expect(llm.requests.length).toBe(before);
		type("/help");
		await waitFor("/compact          summarise the conversation so far");
	});

	it("shows context use with /tokens and leaves with /quit", async () => {
		type("/tokens");
		const shown = await waitFor("tier 3 (resources)");
		expect(shown).toMatch(/context: \d+ of 128000 tokens/);
		expect(shown).toMatch(/tier 1 \(catalog\): [1-9]\d* tokens/);
		type("/quit");
		await waitFor("CHAT-EXITED-0");
	});
});

describe("skillset chat without a terminal", () => {
	it("reads lines from a pipe, denies what it would ask, and ends at the end of input", async () => {
		const fixture = await workspaceFixture(defaultSkills());
		llm.script([
			{ toolCalls: [{ name: "write_file", arguments: { path: "piped.txt", content: "x" } }] },
			{ content: "Could not write it." },
		]);
		const child = spawn(process.execPath, [BIN, "chat", "--base-url", llm.url, "--model", "scripted"], {
			cwd: fixture.workspace,
			env: { PATH: process.env.PATH ?? "", HOME: fixture.home, NO_COLOR: "1" },
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		child.stdin.end("write a file\n/tokens\n/nosuch\n");
		const code = await new Promise<number | null>((resolve) => {
			const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
			child.on("close", (exit) => {
				clearTimeout(timer);
				resolve(exit);
			});
		});
		expect(code).toBe(0);
		expect(stdout).toContain("Could not write it.");
		expect(stdout).toContain("tier 2 (skills)");
		expect(stdout).toContain("unknown command '/nosuch'. /help lists the commands.");
		expect(existsSync(join(fixture.workspace, "piped.txt"))).toBe(false);
		// Said once, at the start, before anything is denied (issue 20).
		const note = "input is not a terminal, so no one can answer a question";
		expect(stderr.split(note)).toHaveLength(2);
		expect(stderr).toContain(
			"writes, shell commands and other calls that need approval are denied (--yes answers them)",
		);
	});
});
