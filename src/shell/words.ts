/**
 * A small tokenizer for POSIX shell command lines: words (with quotes and escapes removed, and a note of what the
 * shell would still do to them), control operators and redirections. It does not expand anything; it records what
 * would be expanded so that an analysis can refuse to guess. Spellings that hide a word are normalised: quotes are
 * spliced (`"cu"rl`), escapes removed (`c\url`), ANSI-C quotes decoded (`$'\x63url'`) and `$IFS` splits words.
 */

import { ansiCEnd, decodeAnsiC, ifsLength } from "./quotes.ts";

/** A word as the shell would see it before expansion. */
export interface ShellWord {
	kind: "word";
	/** The text with quotes and escapes removed. */
	text: string;
	/** Quotes or backslashes were used somewhere in the word. */
	quoted: boolean;
	/** `$` or a backquote outside single quotes: parameter, arithmetic or command substitution. */
	expands: boolean;
	/** An unquoted `*`, `?`, `[` or `{`: pathname or brace expansion. */
	glob: boolean;
	/** An unquoted `~` at the start: tilde expansion. */
	tilde: boolean;
	/** `NAME=value` before any command word would be an assignment. */
	assignment: boolean;
}

/** A control operator: `;`, `&`, `&&`, `||`, `|`, `|&`, `;;`, `(`, `)` or a newline. */
export interface ShellOperator {
	kind: "operator";
	op: string;
}

/** A redirection operator with its optional file descriptor (`2>`, `{fd}>`); the target is the next word. */
export interface ShellRedirect {
	kind: "redirect";
	op: string;
	fd?: string;
}

/** Process substitution `<(…)` / `>(…)`: a command runs inside. */
export interface ShellSubstitution {
	kind: "substitution";
}

export type ShellToken = ShellWord | ShellOperator | ShellRedirect | ShellSubstitution;

/** The tokens, or where the line cannot be read (an unterminated quote or substitution). */
export type Tokenized = { ok: true; tokens: ShellToken[] } | { ok: false; reason: string };

const REDIRECTS = ["<<<", "<<-", "&>>", "<<", "<>", "<&", ">>", ">|", ">&", "&>", "<", ">"];
const OPERATORS = ["&&", "||", ";;", "|&", ";", "&", "|", "(", ")", "\n"];
const BLANK = /[ \t]/;
const WORD_END = /[ \t\n;&|()<>]/;

/** Splits a command line into tokens. */
export function tokenizeShell(line: string): Tokenized {
	const tokens: ShellToken[] = [];
	let afterIfs = false;
	let i = 0;
	while (i < line.length) {
		const char = line[i] as string;
		if (BLANK.test(char) || (char === "\\" && line[i + 1] === "\n")) {
			i += char === "\\" ? 2 : 1;
			continue;
		}
		if (char === "#") {
			while (i < line.length && line[i] !== "\n") i++;
			continue;
		}
		if ((char === "<" || char === ">") && line[i + 1] === "(") {
			const end = skipGroup(line, i + 1, "(", ")");
			if (end < 0) return { ok: false, reason: "an unterminated process substitution" };
			tokens.push({ kind: "substitution" });
			i = end;
			continue;
		}
		const redirect = REDIRECTS.find((op) => line.startsWith(op, i));
		if (redirect) {
			tokens.push({ kind: "redirect", op: redirect });
			i += redirect.length;
			continue;
		}
		const operator = OPERATORS.find((op) => line.startsWith(op, i));
		if (operator) {
			tokens.push({ kind: "operator", op: operator });
			i += operator.length;
			continue;
		}
		// With the default IFS, an unquoted `$IFS` splits words like a blank (`curl${IFS}-s`); the words on both
		// sides are marked as expanded, since IFS may have been changed.
		const ifs = char === "$" ? ifsLength(line, i) : 0;
		if (ifs > 0) {
			i += ifs;
			const previous = tokens.at(-1);
			if (previous?.kind === "word") previous.expands = true;
			afterIfs = true;
			continue;
		}
		const word = readWord(line, i);
		if ("reason" in word) return { ok: false, reason: word.reason };
		if (afterIfs) word.token.expands = true;
		afterIfs = false;
		i = word.end;
		// Digits (or `{name}`) directly before a redirection are its file descriptor, not a word.
		const fd = /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/.test(word.raw) ? word.raw : undefined;
		const next = REDIRECTS.find((op) => line.startsWith(op, i));
		if (fd !== undefined && next && !next.startsWith("&")) {
			tokens.push({ kind: "redirect", op: next, fd });
			i += next.length;
			continue;
		}
		tokens.push(word.token);
	}
	return { ok: true, tokens };
}

interface ReadWord {
	token: ShellWord;
	raw: string;
	end: number;
}

// One word: quoting, escapes and substitutions until an unquoted blank or operator.
function readWord(line: string, start: number): ReadWord | { reason: string } {
	const token: ShellWord = {
		kind: "word",
		text: "",
		quoted: false,
		expands: false,
		glob: false,
		tilde: line[start] === "~",
		assignment: false,
	};
	let i = start;
	while (i < line.length && !WORD_END.test(line[i] as string)) {
		const char = line[i] as string;
		if (char === "\\") {
			token.quoted = true;
			token.text += line[i + 1] ?? "";
			i += 2;
		} else if (char === "'") {
			const end = line.indexOf("'", i + 1);
			if (end < 0) return { reason: "an unterminated single quote" };
			token.quoted = true;
			token.text += line.slice(i + 1, end);
			i = end + 1;
		} else if (char === '"') {
			const end = readDoubleQuoted(line, i + 1, token);
			if (end < 0) return { reason: "an unterminated double quote" };
			i = end;
		} else if (char === "$" && line[i + 1] === "'") {
			// ANSI-C quoting: `$'\x63url'` is the word `curl`, quoted.
			const end = ansiCEnd(line, i + 2);
			if (end < 0) return { reason: "an unterminated ANSI-C quote" };
			token.quoted = true;
			token.text += decodeAnsiC(line.slice(i + 2, end));
			i = end + 1;
		} else if (char === "$" && line[i + 1] === '"') {
			// `$"…"` (a translated string) is a double-quoted string.
			i++;
		} else if (char === "$" && ifsLength(line, i) > 0) {
			token.expands = true;
			break;
		} else if (char === "$" || char === "`") {
			const end = skipSubstitution(line, i);
			if (end < 0) return { reason: "an unterminated substitution" };
			token.expands = true;
			token.text += line.slice(i, end);
			i = end;
		} else {
			if ("*?[{".includes(char)) token.glob = true;
			token.text += char;
			i++;
		}
	}
	token.assignment = /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(line.slice(start, i));
	// `[` and `[[` are the test commands, not globs.
	if (/^(?:\[\[?|\]\]?)$/.test(line.slice(start, i))) token.glob = false;
	return { token, raw: line.slice(start, i), end: i };
}

// Inside "…": backslash escapes only $ ` " \ and newline; $ and ` still expand. Returns the index after the quote.
function readDoubleQuoted(line: string, start: number, token: ShellWord): number {
	token.quoted = true;
	let i = start;
	while (i < line.length) {
		const char = line[i] as string;
		if (char === '"') return i + 1;
		if (char === "\\" && i + 1 < line.length) {
			const next = line[i + 1] as string;
			token.text += '$`"\\\n'.includes(next) ? next : `\\${next}`;
			i += 2;
		} else if (char === "$" || char === "`") {
			const end = skipSubstitution(line, i);
			if (end < 0) return -1;
			token.expands = true;
			token.text += line.slice(i, end);
			i = end;
		} else {
			token.text += char;
			i++;
		}
	}
	return -1;
}

// `$name`, `${…}`, `$(…)`, `$((…))`, `$'…'`, `` `…` ``: the index just after it, or -1 when it never ends.
function skipSubstitution(line: string, start: number): number {
	if (line[start] === "`") {
		for (let i = start + 1; i < line.length; i++) {
			if (line[i] === "\\") i++;
			else if (line[i] === "`") return i + 1;
		}
		return -1;
	}
	const next = line[start + 1];
	if (next === "(") return skipGroup(line, start + 1, "(", ")");
	if (next === "{") return skipGroup(line, start + 1, "{", "}");
	if (next === "'") {
		for (let i = start + 2; i < line.length; i++) {
			if (line[i] === "\\") i++;
			else if (line[i] === "'") return i + 1;
		}
		return -1;
	}
	const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(line.slice(start + 1));
	return start + 1 + (name ? name[0].length : 0);
}

// From an opening bracket to just after its match, skipping quoted text; -1 when it never closes.
function skipGroup(line: string, start: number, open: string, close: string): number {
	let depth = 0;
	for (let i = start; i < line.length; i++) {
		const char = line[i];
		if (char === "\\") i++;
		else if (char === "'") {
			i = line.indexOf("'", i + 1);
			if (i < 0) return -1;
		} else if (char === open) depth++;
		else if (char === close && --depth === 0) return i + 1;
	}
	return -1;
}
