import { resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Agent, PermissionAnswer, PermissionRequest } from "../agent/index.ts";
import { writeFileAtomic } from "../runtime/index.ts";
import type { CliIo, Style } from "./io.ts";
import { renderAllowQuestion, renderCallSummary, renderPermissionRequest } from "./permission-prompt.ts";
import { plural } from "./render-diagnostics.ts";
import { terminalSafe } from "./terminal-text.ts";
import { closestWord } from "./usage-hints.ts";

/** The slash commands, for "did you mean". */
const COMMANDS = ["/help", "/skills", "/load", "/unload", "/tokens", "/compact", "/save", "/quit", "/exit"];

/** Where the REPL reads and writes. */
export interface ReplOptions {
	io: CliIo;
	style: Style;
	input: NodeJS.ReadableStream;
	output: NodeJS.WritableStream;
	/** True on a terminal: prompts, Ctrl-C handling and permission questions. */
	terminal: boolean;
}

const HELP = `/skills           the skills, with what is loaded
/load NAME        load a skill now
/unload NAME      unload a skill
/tokens           context use and tokens per tier
/compact          summarise the conversation so far
/save FILE        save the conversation (resume with --resume FILE)
/quit             leave (Ctrl-D too)
$name or /name    start a message with a skill's name to load it first
Ctrl-C            cancel the running turn`;

/**
 * The chat REPL: reads a line, runs it as a turn with streamed output (Ctrl-C cancels the turn, not the program),
 * asks permission questions on the terminal, and handles the slash commands. Create it before the agent so the
 * agent can ask through {@link ChatRepl.confirm}.
 */
export class ChatRepl {
	readonly #options: ReplOptions;
	readonly #rl: Interface;
	readonly #buffered: string[] = [];
	readonly #waiting: ((line: string | undefined) => void)[] = [];
	#closed = false;
	#running: AbortController | undefined;

	constructor(options: ReplOptions) {
		this.#options = options;
		this.#rl = createInterface({ input: options.input, output: options.output, terminal: options.terminal });
		this.#rl.on("line", (line) => {
			const next = this.#waiting.shift();
			if (next) next(line);
			else this.#buffered.push(line);
		});
		this.#rl.on("close", () => {
			this.#closed = true;
			for (const next of this.#waiting.splice(0)) next(undefined);
		});
		this.#rl.on("SIGINT", () => this.#interrupt());
	}

	/** Asks about one call on the terminal: once, always for this session, or deny (also on Ctrl-C). */
	readonly confirm = async (request: PermissionRequest): Promise<PermissionAnswer> => {
		const { io, style } = this.#options;
		io.stdout(renderPermissionRequest(request, style));
		for (;;) {
			io.stdout(renderAllowQuestion(request.grantable));
			const answer = (await this.#nextLine())?.trim().toLowerCase();
			if (answer === undefined || this.#running?.signal.aborted) return "deny";
			if (answer === "o" || answer === "once" || answer === "y" || answer === "yes") return "once";
			if (request.grantable && (answer === "a" || answer === "always")) return "always";
			if (answer === "d" || answer === "deny" || answer === "n" || answer === "no") return "deny";
		}
	};

	/** Runs until /quit or the end of input. */
	async run(agent: Agent): Promise<void> {
		const { io, style, terminal } = this.#options;
		const skills = agent.skills();
		const sandbox = agent.sandboxed ? "on" : "off";
		io.stdout(
			`${style.bold("skillset chat")} ${style.dim(`— ${plural(skills.length, "skill")}, sandbox ${sandbox}; /help`)}\n`,
		);
		this.#rl.setPrompt(style.blue("› "));
		try {
			for (;;) {
				if (terminal) this.#rl.prompt();
				const line = await this.#nextLine();
				if (line === undefined) break;
				const text = line.trim();
				if (text === "") continue;
				if ((await this.#command(agent, text)) === "quit") break;
			}
		} finally {
			this.#rl.close();
		}
	}

	#nextLine(): Promise<string | undefined> {
		if (this.#buffered.length > 0) return Promise.resolve(this.#buffered.shift());
		if (this.#closed) return Promise.resolve(undefined);
		return new Promise((resolve) => this.#waiting.push(resolve));
	}

	#interrupt(): void {
		if (this.#running) {
			this.#running.abort();
			// A pending question ends as deny.
			for (const next of this.#waiting.splice(0)) next("deny");
			return;
		}
		this.#options.io.stdout(`\n${this.#options.style.dim("(/quit to leave)")}\n`);
		this.#rl.prompt();
	}

	async #command(agent: Agent, text: string): Promise<"quit" | undefined> {
		const { io, style } = this.#options;
		const [command, ...rest] = text.split(/\s+/);
		const argument = rest.join(" ");
		switch (command) {
			case "/quit":
			case "/exit":
				return "quit";
			case "/help":
				io.stdout(`${HELP}\n`);
				return;
			case "/skills":
				io.stdout(renderSkills(agent, style));
				return;
			case "/load": {
				const result = await agent.load(argument);
				io.stdout(
					result.ok
						? `loaded ${result.name} (${result.tokens} tokens)\n`
						: `${style.red(terminalSafe(result.message))}\n`,
				);
				return;
			}
			case "/unload":
				io.stdout(agent.unload(argument) ? `unloaded ${argument}\n` : `${argument} is not loaded\n`);
				return;
			case "/tokens":
				io.stdout(renderTokens(agent));
				return;
			case "/compact":
				await this.#compact(agent);
				return;
			case "/save":
				await this.#save(agent, argument);
				return;
			default:
				// `/name` loads a skill; anything else after a slash is a mistyped command, never a message.
				if (command?.startsWith("/") && !/^\/[A-Za-z0-9][A-Za-z0-9._:@-]*$/.test(command)) {
					io.stdout(`${style.red(unknownCommand(command, ""))}\n`);
					return;
				}
				await this.#turn(agent, text);
		}
	}

	async #compact(agent: Agent): Promise<void> {
		const { io, style } = this.#options;
		try {
			const done = await agent.compact();
			io.stdout(done ? `compacted: ${done.before} → ${done.after} tokens\n` : "nothing to compact yet\n");
		} catch (error) {
			io.stdout(`${style.red(`compaction failed: ${terminalSafe((error as Error).message)}`)}\n`);
		}
	}

	async #save(agent: Agent, argument: string): Promise<void> {
		const { io, style } = this.#options;
		if (!argument) {
			io.stdout(`${style.red("/save needs a FILE")}\n`);
			return;
		}
		const file = resolve(io.cwd, argument);
		try {
			// A new file renamed into place: a link planted at the name is replaced, never followed.
			await writeFileAtomic(file, `${JSON.stringify(agent.save(), null, 2)}\n`, { mode: 0o600 });
			io.stdout(`saved to ${file}\n`);
		} catch (error) {
			io.stdout(`${style.red(`cannot save to ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`)}\n`);
		}
	}

	async #turn(agent: Agent, text: string): Promise<void> {
		const { io, style } = this.#options;
		this.#running = new AbortController();
		let open = false;
		let held = "";
		try {
			const result = await agent.send(text, {
				signal: this.#running.signal,
				onText: (delta) => {
					open = true;
					// A character split between two deltas is printed whole, not as two visible halves.
					const text = held + delta;
					held = /[\ud800-\udbff]$/.test(text) ? text.slice(-1) : "";
					io.stdout(terminalSafe(held ? text.slice(0, -1) : text));
				},
				onToolCall: (name, args) => {
					io.stdout(`${open ? "\n" : ""}${style.dim(`→ ${renderCallSummary(name, args)}`)}\n`);
					open = false;
				},
			});
			if (held) io.stdout(terminalSafe(held));
			if (open) io.stdout("\n");
			if (result.status === "cancelled") io.stdout(`${style.yellow("(cancelled)")}\n`);
			else if (result.status === "failed")
				io.stdout(`${style.red(`error: ${terminalSafe(result.error ?? "the call failed")}`)}\n`);
			else if (result.status === "refused" && result.refusals.length === 0) {
				// The `$name` or `/name` was refused before the model ran; a slash may also be a mistyped command.
				const [word = ""] = text.split(/\s+/);
				const message = word.startsWith("/") ? unknownCommand(word, result.text) : terminalSafe(result.text);
				io.stdout(`${style.red(message)}\n`);
			}
		} finally {
			this.#running = undefined;
		}
	}
}

/** `unknown command '/skils'. Did you mean /skills? /help lists the commands.`, and why no skill matched. */
function unknownCommand(command: string, skillMessage: string): string {
	const near = closestWord(command, COMMANDS);
	const hint = near ? ` Did you mean ${near}?` : "";
	const skill = skillMessage ? ` (as a skill: ${terminalSafe(skillMessage)})` : "";
	return `unknown command '${terminalSafe(command)}'.${hint} /help lists the commands.${skill}`;
}

function renderSkills(agent: Agent, style: Style): string {
	const lines = agent.skills().map((skill) => {
		const mark = skill.active ? "● " : "  ";
		const note = skill.listed ? "" : " (not in the catalog)";
		return `${mark}${terminalSafe(skill.name)}${note} ${style.dim(`— ${terminalSafe(skill.description)}`)}`;
	});
	return lines.length > 0 ? `${lines.join("\n")}\n` : "no skills found\n";
}

/** Context use and the tier totals, for /tokens. */
function renderTokens(agent: Agent): string {
	const use = agent.tokens();
	const { tier1, tier2, tier3 } = use.tiers;
	const percent = Math.round((use.total / use.contextWindow) * 1000) / 10;
	return `context: ${use.total} of ${use.contextWindow} tokens (${percent}%): system ${use.system}, conversation ${use.conversation}, tools ${use.tools}; compaction at ${use.threshold}
tier 1 (catalog): ${tier1.tokens} tokens, ${tier1.bytes} bytes
tier 2 (skills): ${tier2.count} loaded, ${tier2.tokens} tokens, ${tier2.bytes} bytes
tier 3 (resources): ${tier3.count} read, ${tier3.tokens} tokens, ${tier3.bytes} bytes
`;
}
