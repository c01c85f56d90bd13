// A small, linear shell tokenizer for the audit: enough to see commands, their words, the operators between them
// (`|`, `&&`, `;`) and redirections, without regular expressions that could backtrack on long lines.

import { ansiCEnd, decodeAnsiC, ifsLength } from "./quotes.ts";

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
	if (command.program === undefined) {
		const word = command.words[commandProgramIndex(command)] ?? "";
		const slash = Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\"));
		command.program = (slash === -1 ? word : word.slice(slash + 1)).toLowerCase();
	}
	return command.program;
}

const MAX_WORDS = 256;
/** Character codes that end a run of ordinary word characters. */
const SPECIAL = new Uint8Array(128);
for (const c of "'\"\\$<>` \t\r\n#;|&") SPECIAL[c.charCodeAt(0)] = 1;
const MAX_WORD = 2048;
/** Marks a backslash before a letter or digit until the word is complete (NULs never reach the tokenizer). */
const ESCAPE = "\0";
/** Words where a backslash before a letter is a Windows path separator (`C:\x`, `.\x`, `$env:TEMP\x`). */
const WINDOWS_PATH = /^(?:[A-Za-z]:\\|\.{1,2}\\|%\w+%|\\\\|\$(?:env:)?\{?\w+\}?\\)|\$env:/i;
/** A whole unquoted word of brace alternatives, which bash expands into words: `{curl,-s,URL}`. */
const BRACES = /^\{[^{}\s'"]*,[^{}\s'"]*\}$/;

/**
 * Splits `text` into commands, with each word normalised to what the shell would run: quotes spliced (`"cu"rl`,
 * `c''url`), backslash escapes removed (`c\url`, except in Windows paths), ANSI-C quotes decoded (`$'\x63url'`),
 * `$IFS` splitting words, `$@` and `$*` empty, and a word of brace alternatives expanded. `$(…)`, `<(…)` and
 * backticks stay inside their word, `#` at a word start ends the line. Linear in the text; words are capped in count
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
	const commands: ShellCommand[] = [];
	let after: ShellCommand | undefined;
	// Every field is set from the start: commands then share one object shape, which keeps the rules' reads fast.
	const command = (start: number): ShellCommand => ({
		words: [],
		next: "",
		redirects: [],
		start,
		program: undefined,
		programAt: undefined,
	});
	let current = command(from);
	let word = "";
	let inWord = false;
	let wordStart = 0;
	let escaped = false;
	let pendingRedirect: string | undefined;
	const endWord = (at: number) => {
		if (!inWord) return;
		if (escaped) word = word.replaceAll(ESCAPE, WINDOWS_PATH.test(word.replaceAll(ESCAPE, "\\")) ? "\\" : "");
		if (pendingRedirect !== undefined) current.redirects.push({ op: pendingRedirect, target: word });
		else if (text[wordStart] === "{" && text[at - 1] === "}" && BRACES.test(text.slice(wordStart, at))) {
			for (const part of word.slice(1, -1).split(",")) if (current.words.length < MAX_WORDS) current.words.push(part);
		} else if (current.words.length < MAX_WORDS) current.words.push(word);
		pendingRedirect = undefined;
		word = "";
		inWord = false;
		escaped = false;
	};
	const endCommand = (op: string, at: number, wordEnd: number) => {
		endWord(wordEnd);
		current.next = op;
		if (current.words.length > 0 || current.redirects.length > 0) {
			if (current.start < until) commands.push(current);
			else after = current;
		}
		current = command(at);
	};
	const push = (s: string, at: number) => {
		if (!inWord) wordStart = at;
		inWord = true;
		if (word.length < MAX_WORD) word += s;
	};
	let i = from;
	while (i < text.length && after === undefined) {
		// A run of ordinary characters joins the word in one slice (checked first: it is the common case).
		if (ordinary(text, i)) {
			let j = i + 1;
			while (j < text.length && ordinary(text, j)) j++;
			push(text.slice(i, j), i);
			i = j;
			continue;
		}
		const c = text[i] as string;
		if (c === "'") {
			const end = text.indexOf(c, i + 1);
			const stop = end === -1 ? text.length : end;
			push(text.slice(i + 1, Math.min(stop, i + 1 + MAX_WORD)), i);
			i = stop + 1;
			continue;
		}
		if (c === '"') {
			i = doubleQuoted(text, i, push);
			continue;
		}
		if (c === "\\") {
			// A backslash escapes the next character; before a letter it may be a Windows path separator instead,
			// which is decided once the word is complete.
			const next = text[i + 1];
			if (next === undefined) push(c, i);
			else if (/[A-Za-z0-9]/.test(next)) {
				push(ESCAPE + next, i);
				escaped = true;
			} else push(next, i);
			i += 2;
			continue;
		}
		if (c === "$") {
			const end = dollar(text, i, push, () => endWord(i));
			if (end > i) {
				i = end;
				continue;
			}
		}
		if ((c === "$" || c === "<") && text[i + 1] === "(") {
			i = group(text, i, push);
			continue;
		}
		if (c === "`") {
			const end = text.indexOf("`", i + 1);
			const stop = end === -1 ? text.length : end + 1;
			push(text.slice(i, Math.min(stop, i + MAX_WORD)), i);
			i = stop;
			continue;
		}
		if (c === " " || c === "\t" || c === "\r") {
			endWord(i);
			i++;
			continue;
		}
		if (c === "#" && !inWord) {
			const end = text.indexOf("\n", i);
			i = end === -1 ? text.length : end;
			continue;
		}
		if (c === "\n" || c === ";") {
			endCommand(";", i + 1, i);
			i++;
			continue;
		}
		if (c === "|" || c === "&") {
			const two = text.slice(i, i + 2);
			if (c === "&" && text[i + 1] === ">") {
				endWord(i);
				i = redirect(text, i, (op) => {
					pendingRedirect = op;
				});
				continue;
			}
			const op = two === "||" || two === "&&" || two === "|&" ? two : c;
			endCommand(op === "|&" ? "|" : op, i + op.length, i);
			i += op.length;
			continue;
		}
		if (c === ">" || c === "<") {
			// A word of digits right before the operator is a descriptor number (2>), not an argument.
			if (inWord && /^\d+$/.test(word)) {
				word = "";
				inWord = false;
			} else endWord(i);
			i = redirect(text, i, (op) => {
				pendingRedirect = op;
			});
			continue;
		}
		push(c, i);
		i++;
	}
	if (after === undefined) endCommand("", text.length, text.length);
	return after ? { commands, after } : { commands };
}

/** A character that is part of a word as it is (no quote, escape, expansion, blank or operator). */
function ordinary(text: string, i: number): boolean {
	const code = text.charCodeAt(i);
	return code > 127 || SPECIAL[code] === 0;
}

/** `"…"`: backslash escapes only `$`, `` ` ``, `"`, `\` and newline; returns the index after the closing quote. */
function doubleQuoted(text: string, start: number, push: (s: string, at: number) => void): number {
	let out = "";
	let positional = false;
	let i = start + 1;
	for (; i < text.length && text[i] !== '"' && out.length < MAX_WORD; i++) {
		const c = text[i] as string;
		if (c === "\\" && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1] as string)) out += text[++i];
		else if (c === "$" && (text[i + 1] === "@" || text[i + 1] === "*")) {
			positional = true;
			i++;
		} else out += c;
	}
	if (out.length >= MAX_WORD) {
		const end = text.indexOf('"', i);
		i = end === -1 ? text.length : end;
	}
	// `"$@"` with no arguments is no word at all: `"$@" curl …` runs curl.
	if (out !== "" || !positional) push(out, start);
	return i + 1;
}

/**
 * The forms of `$` that change how a word reads: `$'…'` (decoded), `$"…"` (a plain double quote), `$IFS` (ends the
 * word), `$@` and `$*` (empty). Returns the index after the form, or `start` when `$` starts something else.
 */
function dollar(text: string, start: number, push: (s: string, at: number) => void, split: () => void): number {
	const next = text[start + 1];
	if (next === "'") {
		const end = ansiCEnd(text, start + 2);
		const stop = end === -1 ? text.length : end;
		push(decodeAnsiC(text.slice(start + 2, Math.min(stop, start + 2 + MAX_WORD))), start);
		return stop + 1;
	}
	if (next === '"') return start + 1;
	if (next === "@" || next === "*") return start + 2;
	if (text[start + 1] === "{" && (text.startsWith("@}", start + 2) || text.startsWith("*}", start + 2)))
		return start + 4;
	const ifs = ifsLength(text, start);
	if (ifs > 0) split();
	return start + ifs;
}

/** Consumes a redirection operator at `i` and reports it; returns the index after it. */
function redirect(text: string, i: number, report: (op: string) => void): number {
	let j = i;
	while (j < text.length && j - i < 3 && (text[j] === ">" || text[j] === "<" || text[j] === "&" || text[j] === "|"))
		j++;
	report(text.slice(i, j));
	while (j < text.length && (text[j] === " " || text[j] === "\t")) j++;
	return j;
}

/** Consumes `$(…)` or `<(…)` with nested parentheses into the current word; returns the index after it. */
function group(text: string, i: number, push: (s: string, at: number) => void): number {
	let depth = 0;
	let j = i + 1;
	for (; j < text.length; j++) {
		if (text[j] === "(") depth++;
		else if (text[j] === ")") {
			depth--;
			if (depth === 0) break;
		}
	}
	const stop = Math.min(j + 1, text.length);
	push(text.slice(i, Math.min(stop, i + MAX_WORD)), i);
	return stop;
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
