// A small, linear shell tokenizer for the audit: enough to see commands, their words, the operators between them
// (`|`, `&&`, `;`) and redirections, without regular expressions that could backtrack on long lines.

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
}

/** The program a command runs ({@link programOf}), computed once per command. */
export function commandProgram(command: ShellCommand): string {
	if (command.program === undefined) command.program = programOf(command.words);
	return command.program;
}

const MAX_WORDS = 256;
const SPECIAL = new Set(["'", '"', "\\", "$", "<", ">", "`", " ", "\t", "\r", "\n", "#", ";", "|", "&"]);
const MAX_WORD = 2048;

/**
 * Splits `text` into commands. Quotes group words, `$(…)`, `<(…)` and backticks stay inside their word, `#` at a
 * word start ends the line. Linear in the text; words are capped in count and length.
 */
export function tokenizeShell(text: string): ShellCommand[] {
	const commands: ShellCommand[] = [];
	let current: ShellCommand = { words: [], next: "", redirects: [], start: 0 };
	let word = "";
	let inWord = false;
	let pendingRedirect: string | undefined;
	const endWord = () => {
		if (!inWord) return;
		if (pendingRedirect !== undefined) current.redirects.push({ op: pendingRedirect, target: word });
		else if (current.words.length < MAX_WORDS) current.words.push(word);
		pendingRedirect = undefined;
		word = "";
		inWord = false;
	};
	const endCommand = (op: string, at: number) => {
		endWord();
		current.next = op;
		if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
		current = { words: [], next: "", redirects: [], start: at };
	};
	const push = (s: string) => {
		inWord = true;
		if (word.length < MAX_WORD) word += s;
	};
	let i = 0;
	while (i < text.length) {
		const c = text[i] as string;
		if (c === "'" || c === '"') {
			const end = text.indexOf(c, i + 1);
			const stop = end === -1 ? text.length : end;
			push(text.slice(i + 1, Math.min(stop, i + 1 + MAX_WORD)));
			inWord = true;
			i = stop + 1;
			continue;
		}
		// A backslash escapes shell syntax; before a letter it is a Windows path separator (`$env:TEMP\a.ps1`).
		if (c === "\\" && i + 1 < text.length && !/[A-Za-z0-9]/.test(text[i + 1] as string)) {
			push(text[i + 1] as string);
			i += 2;
			continue;
		}
		if ((c === "$" || c === "<") && text[i + 1] === "(") {
			i = group(text, i, push);
			continue;
		}
		if (c === "`") {
			const end = text.indexOf("`", i + 1);
			const stop = end === -1 ? text.length : end + 1;
			push(text.slice(i, Math.min(stop, i + MAX_WORD)));
			i = stop;
			continue;
		}
		if (c === " " || c === "\t" || c === "\r") {
			endWord();
			i++;
			continue;
		}
		if (c === "#" && !inWord) {
			const end = text.indexOf("\n", i);
			i = end === -1 ? text.length : end;
			continue;
		}
		if (c === "\n" || c === ";") {
			endCommand(";", i + 1);
			i++;
			continue;
		}
		if (c === "|" || c === "&") {
			const two = text.slice(i, i + 2);
			if (c === "&" && text[i + 1] === ">") {
				endWord();
				i = redirect(text, i, (op) => {
					pendingRedirect = op;
				});
				continue;
			}
			const op = two === "||" || two === "&&" || two === "|&" ? two : c;
			endCommand(op === "|&" ? "|" : op, i + op.length);
			i += op.length;
			continue;
		}
		if (c === ">" || c === "<") {
			// A word of digits right before the operator is a descriptor number (2>), not an argument.
			if (inWord && /^\d+$/.test(word)) {
				word = "";
				inWord = false;
			} else endWord();
			i = redirect(text, i, (op) => {
				pendingRedirect = op;
			});
			continue;
		}
		// A run of ordinary characters joins the word in one slice.
		let j = i + 1;
		while (j < text.length && !SPECIAL.has(text[j] as string)) j++;
		push(text.slice(i, j));
		i = j;
	}
	endCommand("", text.length);
	return commands;
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
function group(text: string, i: number, push: (s: string) => void): number {
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
	push(text.slice(i, Math.min(stop, i + MAX_WORD)));
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
