// The one tokenizer for shell text. It reads a command line, or any text that may hold commands, into words (with
// quotes and escapes removed, and a note of what the shell would still do to them), control operators, redirections
// and process substitutions. Spellings that hide a word are normalised: quotes spliced (`"cu"rl`), escapes removed
// (`c\url`), ANSI-C quotes decoded (`$'\x63url'`), `$IFS` splitting words. It expands nothing; it records what would
// be expanded, so that the gate can refuse to guess. It never fails: a quote or substitution that never ends takes
// the rest of the text and is reported as `problem`. Linear in the text.

import { ansiCEnd, decodeAnsiC, groupEnd, ifsLength, substitutionEnd } from "./quotes.ts";

/**
 * How to read what only the running shell decides. The gate reads as bash does and marks anything only known when
 * the command runs; the audit, reading any text for what a script most likely runs, guesses instead.
 */
export interface ShellReading {
	/** `$@` and `$*` read as nothing, as in a script run without arguments: `c$@url` is `curl`. */
	readonly positionalEmpty: boolean;
	/** A carriage return separates words, as in a script saved with CRLF line ends. */
	readonly carriageReturnBlank: boolean;
	/** A backslash before a letter or digit stays in a Windows path (`C:\Tools\x`, `$env:TEMP\x`). */
	readonly windowsPaths: boolean;
	/** `(` and `)` are part of words (code and prose use them far more than subshells), not operators. */
	readonly parenthesesInWords: boolean;
	/** The characters a word keeps (the rest is read and dropped), which bounds the work on hostile text. */
	readonly maxWordChars: number;
}

/** The gate's reading: bash's own. */
export const GATE_READING: ShellReading = {
	positionalEmpty: false,
	carriageReturnBlank: false,
	windowsPaths: false,
	parenthesesInWords: false,
	maxWordChars: Number.POSITIVE_INFINITY,
};

/** The audit's reading of any text: the likely reading of what only the run decides, in bounded work. */
export const AUDIT_READING: ShellReading = {
	positionalEmpty: true,
	carriageReturnBlank: true,
	windowsPaths: true,
	parenthesesInWords: true,
	maxWordChars: 2048,
};

/** What the scanner read last. */
export type ShellTokenKind = "word" | "operator" | "redirect" | "substitution";

const REDIRECTS = ["<<<", "<<-", "&>>", "<<", "<>", "<&", ">>", ">|", ">&", "&>", "<", ">"];
/** Character classes: a word goes on over ORDINARY, stops at an END, and looks closer at anything else. */
const ORDINARY = 0;
const END = 1;
const CLASSES = new WeakMap<ShellReading, Uint8Array>();
/** Marks a backslash before a letter or digit until the word is complete (NULs never reach the scanner). */
const ESCAPE = "\0";
/** Words where a backslash before a letter is a Windows path separator (`C:\x`, `.\x`, `$env:TEMP\x`). */
const WINDOWS_PATH = /^(?:[A-Za-z]:\\|\.{1,2}\\|%\w+%|\\\\|\$(?:env:)?\{?\w+\}?\\)|\$env:/i;
const ASSIGNMENT = /[A-Za-z_][A-Za-z0-9_]*\+?=/y;
const DESCRIPTOR = /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/;

// The first of `ops` that `s` has at `at` (a loop, not `find`: this runs once per operator of long texts).
function startingAt(ops: readonly string[], s: string, at: number): string | undefined {
	for (const op of ops) if (s.startsWith(op, at)) return op;
	return undefined;
}

// The control operators of two characters (`&&`, `||`, `|&`, `;;`), by character codes: this runs once per operator.
function operatorAt(s: string, at: number): string {
	const c = s.charCodeAt(at);
	const d = s.charCodeAt(at + 1);
	if (c === 38) return d === 38 ? "&&" : "&";
	if (c === 124) return d === 124 ? "||" : d === 38 ? "|&" : "|";
	if (c === 59) return d === 59 ? ";;" : ";";
	return s[at] as string;
}

/** A double quote, a backslash, `$` or a backquote: the characters that end a plain run inside double quotes. */
const specialInDoubleQuotes = (c: number) => c === 34 || c === 92 || c === 36 || c === 96;

/** `[`, `[[`, `]` or `]]`: the test commands and their ends, not globs. */
function testWord(s: string, start: number, end: number): boolean {
	const c = s.charCodeAt(start);
	if (c !== 91 && c !== 93) return false;
	return end - start === 1 || (end - start === 2 && s.charCodeAt(start + 1) === c);
}

function classes(reading: ShellReading): Uint8Array {
	let table = CLASSES.get(reading);
	if (table) return table;
	table = new Uint8Array(128);
	for (const c of " \t\n;&|<>") table[c.charCodeAt(0)] = END;
	for (const c of "\\'\"$`*?[{") table[c.charCodeAt(0)] = 2;
	if (!reading.parenthesesInWords) table[40] = table[41] = END;
	if (reading.carriageReturnBlank) table[13] = END;
	CLASSES.set(reading, table);
	return table;
}

/**
 * Reads shell text token by token (`next()`); the token's details are in the fields until the next call. One
 * scanner per text; `from` is where reading starts (where a command starts).
 */
export class ShellScanner {
	kind: ShellTokenKind = "operator";
	/** Where the token starts and ends in the text. */
	start = 0;
	end = 0;
	/** A word's text (quotes and escapes removed, substitutions as written), an operator, or a substitution. */
	text = "";
	/** A redirection's file descriptor (`2>`, `{fd}>`). */
	fd: string | undefined = undefined;
	/** Quotes or backslashes were used somewhere in the word. */
	quoted = false;
	/** `$` or a backquote outside single quotes: parameter, arithmetic or command substitution. */
	expands = false;
	/** An unquoted `*`, `?`, `[` or `{`: pathname or brace expansion. */
	glob = false;
	/** An unquoted `~` at the start: tilde expansion. */
	tilde = false;
	/** The first quote or substitution that never ends (it took the rest of the text), or undefined. */
	problem: string | undefined = undefined;
	readonly #source: string;
	readonly #reading: ShellReading;
	readonly #classes: Uint8Array;
	#at: number;
	#afterIfs = false;
	#started = false;
	#escapes = false;

	/** `NAME=value`: an assignment if it comes before any command word (read from the word's spelling when asked). */
	get assignment(): boolean {
		ASSIGNMENT.lastIndex = this.start;
		return this.kind === "word" && ASSIGNMENT.test(this.#source);
	}

	constructor(source: string, reading: ShellReading = GATE_READING, from = 0) {
		this.#source = source;
		this.#reading = reading;
		this.#classes = classes(reading);
		this.#at = from;
	}

	/** Reads the next token; false at the end of the text. */
	next(): boolean {
		const s = this.#source;
		while (this.#at < s.length) {
			const at = this.#at;
			// Character codes, not one-character strings: this runs once per token of texts of millions of them.
			const c = s.charCodeAt(at);
			if (c === 32 || c === 9 || (c === 13 && this.#reading.carriageReturnBlank)) {
				this.#at += 1;
			} else if (c === 92 && s.charCodeAt(at + 1) === 10) {
				this.#at += 2;
			} else if (c === 35) {
				const end = s.indexOf("\n", at);
				this.#at = end < 0 ? s.length : end;
			} else if ((c === 60 || c === 62) && s.charCodeAt(at + 1) === 40) {
				return this.#substitution(at);
			} else if (c === 36 && ifsLength(s, at) > 0) {
				// With the default IFS, an unquoted `$IFS` splits words like a blank (`curl${IFS}-s`); the words on both
				// sides are marked as expanded, since IFS may have been changed.
				this.#at += ifsLength(s, at);
				this.#afterIfs = true;
			} else if (c < 128 && this.#classes[c] === END) {
				// Every character that ends a word (blanks aside) starts an operator or a redirection.
				const redirect = c === 60 || c === 62 || c === 38 ? startingAt(REDIRECTS, s, at) : undefined;
				if (redirect) return this.#operator("redirect", redirect, at);
				return this.#operator("operator", operatorAt(s, at), at);
			} else if (this.#word(at)) return true;
		}
		return false;
	}

	#operator(kind: "operator" | "redirect", op: string, at: number): true {
		this.kind = kind;
		this.text = op;
		this.fd = undefined;
		this.start = at;
		this.end = this.#at = at + op.length;
		return true;
	}

	// `<(…)` or `>(…)`: a command runs inside.
	#substitution(at: number): true {
		const s = this.#source;
		let end = groupEnd(s, at + 1, "(", ")");
		if (end < 0) end = this.#unterminated("an unterminated process substitution");
		this.kind = "substitution";
		this.text = s.slice(at, Math.min(end, at + this.#reading.maxWordChars));
		this.start = at;
		this.end = this.#at = end;
		return true;
	}

	#unterminated(problem: string): number {
		this.problem ??= problem;
		return this.#source.length;
	}

	#add(piece: string): void {
		this.#started = true;
		if (this.text.length < this.#reading.maxWordChars) this.text += piece;
	}

	// One word: quoting, escapes and substitutions until an unquoted blank or operator. False when it reads as
	// nothing at all (only `$@` in the audit's reading).
	#word(start: number): boolean {
		const s = this.#source;
		const max = this.#reading.maxWordChars;
		const classes = this.#classes;
		this.text = "";
		this.quoted = this.expands = this.glob = this.#started = this.#escapes = false;
		this.tilde = s.charCodeAt(start) === 126;
		let i = start;
		while (i < s.length) {
			const code = s.charCodeAt(i);
			const kind = code < 128 ? (classes[code] as number) : ORDINARY;
			if (kind === ORDINARY) {
				let j = i + 1;
				while (j < s.length && (s.charCodeAt(j) >= 128 || classes[s.charCodeAt(j)] === ORDINARY)) j++;
				this.#add(s.slice(i, Math.min(j, i + max)));
				i = j;
			} else if (kind === END) break;
			else if (code === 92) i = this.#escape(i);
			else if (code === 39) {
				let end = s.indexOf("'", i + 1);
				if (end < 0) end = this.#unterminated("an unterminated single quote");
				this.quoted = true;
				this.#add(s.slice(i + 1, Math.min(end, i + 1 + max)));
				i = end + 1;
			} else if (code === 34) i = this.#doubleQuoted(i);
			else if (code === 36 || code === 96) {
				const end = this.#dollar(i);
				if (end < 0) break;
				i = end;
			} else {
				this.glob = true;
				this.#add(s[i] as string);
				i++;
			}
		}
		return this.#endWord(start, Math.min(i, s.length));
	}

	// A backslash escapes the next character; a backslash and a newline are nothing (the line goes on), and so is one
	// at the very end (run from a file, the line would go on into the next). In a Windows path it may be a
	// separator instead, decided when the word is complete.
	#escape(i: number): number {
		const next = this.#source[i + 1];
		this.quoted = true;
		if (next === undefined || next === "\n") this.#started = true;
		else if (this.#reading.windowsPaths && /[A-Za-z0-9]/.test(next)) {
			this.#add(ESCAPE + next);
			this.#escapes = true;
		} else this.#add(next);
		return i + 2;
	}

	// `$…` or a backquote in a word: the index after it, or -1 when the word ends at it (`$IFS`).
	#dollar(i: number): number {
		const s = this.#source;
		const next = s[i + 1];
		if (s[i] === "$" && next === "'") {
			// ANSI-C quoting: `$'\x63url'` is the word `curl`, quoted.
			let end = ansiCEnd(s, i + 2);
			if (end < 0) end = this.#unterminated("an unterminated ANSI-C quote");
			this.quoted = true;
			this.#add(decodeAnsiC(s.slice(i + 2, Math.min(end, i + 2 + this.#reading.maxWordChars))));
			return end + 1;
		}
		// `$"…"` (a translated string) is a double-quoted string.
		if (s[i] === "$" && next === '"') return i + 1;
		if (s[i] === "$" && ifsLength(s, i) > 0) {
			this.expands = true;
			return -1;
		}
		this.expands = true;
		const positional = s[i] === "$" ? this.#positional(i) : 0;
		if (positional > 0) return i + positional;
		let end = substitutionEnd(s, i);
		if (end < 0) end = this.#unterminated("an unterminated substitution");
		this.#add(s.slice(i, Math.min(end, i + this.#reading.maxWordChars)));
		return end;
	}

	// The length of `$@`, `$*`, `${@}` or `${*}` at `i` when the reading takes them as nothing, else 0.
	#positional(i: number): number {
		if (!this.#reading.positionalEmpty) return 0;
		const s = this.#source;
		if (s[i + 1] === "@" || s[i + 1] === "*") return 2;
		return s[i + 1] === "{" && (s.startsWith("@}", i + 2) || s.startsWith("*}", i + 2)) ? 4 : 0;
	}

	// Inside "…": a backslash escapes only $ ` " \ (and a newline, which it removes); $ and ` still expand. Returns
	// the index after the closing quote. `"$@"` alone is no word at all in the audit's reading.
	#doubleQuoted(start: number): number {
		const s = this.#source;
		const max = this.#reading.maxWordChars;
		this.quoted = true;
		let out = "";
		let positional = false;
		let i = start + 1;
		while (i < s.length && s[i] !== '"') {
			const c = s[i] as string;
			if (out.length >= max) {
				const end = s.indexOf('"', i);
				i = end < 0 ? s.length : end;
			} else if (c === "\\" && i + 1 < s.length) {
				const next = s[i + 1] as string;
				if (next !== "\n") out += '$`"\\'.includes(next) ? next : `\\${next}`;
				i += 2;
			} else if (c === "$" && this.#positional(i) > 0) {
				this.expands = positional = true;
				i += this.#positional(i);
			} else if (c === "$" || c === "`") {
				let end = substitutionEnd(s, i);
				if (end < 0) end = this.#unterminated("an unterminated double quote");
				this.expands = true;
				out += s.slice(i, Math.min(end, i + max));
				i = end;
			} else {
				let j = i + 1;
				while (j < s.length && !specialInDoubleQuotes(s.charCodeAt(j))) j++;
				out += s.slice(i, Math.min(j, i + max));
				i = j;
			}
		}
		if (i >= s.length) this.#unterminated("an unterminated double quote");
		if (out !== "" || !positional) this.#add(out);
		return i + 1;
	}

	// Completes the word read from `start` to `end`: what its raw spelling says, and whether it is a redirection's
	// descriptor (`2>`) rather than a word.
	#endWord(start: number, end: number): boolean {
		const s = this.#source;
		this.#at = this.end = end;
		this.start = start;
		// `[` and `[[` are the test commands, not globs.
		if (testWord(s, start, end)) this.glob = false;
		if (this.#escapes) {
			const windows = WINDOWS_PATH.test(this.text.replaceAll(ESCAPE, "\\"));
			this.text = this.text.replaceAll(ESCAPE, windows ? "\\" : "");
		}
		if (this.#afterIfs) this.expands = true;
		this.#afterIfs = false;
		// Digits (or `{name}`) directly before a redirection are its file descriptor, not a word.
		const after = s.charCodeAt(end);
		const redirect = after === 60 || after === 62 ? startingAt(REDIRECTS, s, end) : undefined;
		if (redirect && DESCRIPTOR.test(s.slice(start, end))) {
			this.#operator("redirect", redirect, end);
			this.fd = s.slice(start, end);
			this.start = start;
			return true;
		}
		// Only a blank, an escaped newline or `$` can lead to `$IFS` (most words end before another word).
		const ifs = after === 32 || after === 9 || after === 13 || after === 92 || after === 36;
		if (ifs && this.#ifsFollows(end)) this.expands = true;
		this.kind = "word";
		return this.#started;
	}

	// Whether `$IFS` comes next after blanks: it joins this word to the next, and may have been changed.
	#ifsFollows(from: number): boolean {
		const s = this.#source;
		let i = from;
		for (;;) {
			const c = s.charCodeAt(i);
			if (c === 32 || c === 9 || (c === 13 && this.#reading.carriageReturnBlank)) i++;
			else if (c === 92 && s.charCodeAt(i + 1) === 10) i += 2;
			else return c === 36 && ifsLength(s, i) > 0;
		}
	}
}
