// The audit's view of shell text: the simple commands in it (words, the operator after each, redirections), read
// by the one scanner, and the program each command runs.

import { AUDIT_READING, ShellScanner } from "./scanner.ts";

/** One simple command: its words (quotes removed), what follows it, and its redirections. */
export interface ShellCommand {
	words: string[];
	/** The operator after the command: `|`, `&&`, `||`, `;`, `&`, or "" at the end of the text. */
	next: string;
	redirects: { op: string; target: string }[];
	/** Offset of the command's first character in the text. */
	start: number;
	/** The program, once computed by {@link commandProgram}. */
	program?: string;
	/** The index of the program word, once computed by {@link commandProgramIndex}. */
	programAt?: number;
}

/** The index of the command's program word ({@link programIndex}), computed once per command. */
export function commandProgramIndex(command: ShellCommand): number {
	if (command.programAt === undefined) command.programAt = programIndex(command.words);
	return command.programAt;
}

/** The program a command runs ({@link programOf}), computed once per command. */
export function commandProgram(command: ShellCommand): string {
	if (command.program === undefined) command.program = lowerBaseName(command.words[commandProgramIndex(command)] ?? "");
	return command.program;
}

/**
 * The part of a word after its last slash or backslash, in lower case: one pass from the end, and no copy of a name
 * already in lower case (most programs are). It runs once per command of a long line.
 */
function lowerBaseName(word: string): string {
	let upper = false;
	let i = word.length - 1;
	for (; i >= 0; i--) {
		const c = word.charCodeAt(i);
		if (c === 47 || c === 92) break;
		if ((c >= 65 && c <= 90) || c > 127) upper = true;
	}
	const base = i === -1 ? word : word.slice(i + 1);
	return upper ? base.toLowerCase() : base;
}

const MAX_WORDS = 256;
/** A whole unquoted word of brace alternatives, which bash expands into words: `{curl,-s,URL}`. */
const BRACES = /^\{[^{}\s'"]*,[^{}\s'"]*\}$/;
/** The operator a command ends with, as the audit's rules see it. */
const NEXT: Readonly<Record<string, string>> = { "\n": ";", ";;": ";", "|&": "|", "&&": "&&", "||": "||", "|": "|" };

/**
 * The commands in any text (a script, a code block, a line of prose, a string literal), read by the scanner the way
 * a script most likely runs ({@link AUDIT_READING}): quotes spliced (`"cu"rl`, `c''url`), backslash escapes removed
 * (`c\url`, except in Windows paths), ANSI-C quotes decoded (`$'\x63url'`), `$IFS` splitting words, `$@` and `$*`
 * empty, and a word of brace alternatives expanded. `$(…)`, `<(…)` and backticks stay whole, as words; `#` at a
 * word start ends the line; a quote that never ends takes the rest. Linear in the text; words are capped in count
 * and length.
 */
export function findCommands(text: string): ShellCommand[] {
	return findCommandsInRange(text, 0, text.length).commands;
}

/**
 * The commands of `text` that start in `[from, until)`, reading from `from` (which must be where a command starts),
 * and the first command that starts at or after `until` (`after`, which the next range starts from).
 */
export function findCommandsInRange(
	text: string,
	from: number,
	until: number,
): { commands: ShellCommand[]; after?: ShellCommand } {
	const scanner = new ShellScanner(text, AUDIT_READING, from);
	const commands: ShellCommand[] = [];
	let after: ShellCommand | undefined;
	// The command being read: its words gather in one array reused for every command (`count` of them), and each
	// command gets a copy of its exact size (a long line has hundreds of thousands of commands; a growing array per
	// command was most of the garbage).
	const words: string[] = [];
	let count = 0;
	let redirects: ShellCommand["redirects"] = [];
	let start = from;
	let redirect: string | undefined;
	const end = (op: string, at: number) => {
		if (count > 0 || redirects.length > 0) {
			// Every field is set from the start: commands then share one object shape, which keeps the rules' reads fast.
			const command = {
				words: words.slice(0, count),
				next: op,
				redirects,
				start,
				program: undefined,
				programAt: undefined,
			};
			if (start < until) commands.push(command);
			else after = command;
			count = 0;
			redirects = [];
		}
		start = at;
	};
	while (after === undefined && scanner.next()) {
		if (scanner.kind === "redirect") redirect = scanner.text;
		else if (scanner.kind === "operator") {
			redirect = undefined;
			end(NEXT[scanner.text] ?? scanner.text, scanner.end);
		} else if (redirect !== undefined) {
			redirects.push({ op: redirect, target: scanner.text });
			redirect = undefined;
		} else if (braces(text, scanner)) {
			for (const part of scanner.text.slice(1, -1).split(",")) if (count < MAX_WORDS) words[count++] = part;
		} else if (count < MAX_WORDS) words[count++] = scanner.text;
	}
	if (after === undefined) end("", text.length);
	return after ? { commands, after } : { commands };
}

function braces(text: string, scanner: ShellScanner): boolean {
	const { start, end } = scanner;
	return text.charCodeAt(start) === 123 && text.charCodeAt(end - 1) === 125 && BRACES.test(text.slice(start, end));
}

const WRAPPERS = new Set(["sudo", "doas", "env", "nohup", "time", "nice", "command", "exec", "builtin", "xargs"]);

/** The index of the command's program word, past `VAR=value` assignments and wrappers such as `sudo` and `env`. */
export function programIndex(words: readonly string[]): number {
	let i = 0;
	while (i < words.length) {
		const w = words[i] as string;
		if (w.includes("=") && /^[A-Za-z_][A-Za-z0-9_]{0,64}=/.test(w)) i++;
		else if (WRAPPERS.has(w)) {
			i++;
			while (i < words.length && (words[i] as string).startsWith("-")) i++;
		} else break;
	}
	return i;
}

/** The program a command runs, as a lowercase base name (`/usr/bin/curl` → `curl`), or "". */
export function programOf(words: readonly string[]): string {
	const word = words[programIndex(words)] ?? "";
	const slash = Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\"));
	return (slash === -1 ? word : word.slice(slash + 1)).toLowerCase();
}

/** The last path segment of a word, without quotes, a query string or a trailing slash. */
export function baseName(word: string): string {
	const query = word.search(/[?#]/);
	let w = query === -1 ? word : word.slice(0, query);
	while (w.endsWith("/")) w = w.slice(0, -1);
	const slash = Math.max(w.lastIndexOf("/"), w.lastIndexOf("\\"));
	return slash === -1 ? w : w.slice(slash + 1);
}
