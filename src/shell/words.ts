// The gate's view of a command line: its tokens, read by the scanner as bash would, or why the line cannot be read.

import { GATE_READING, ShellScanner } from "./scanner.ts";

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
	/** As written. */
	text: string;
}

export type ShellToken = ShellWord | ShellOperator | ShellRedirect | ShellSubstitution;

/** The tokens, or where the line cannot be read (an unterminated quote or substitution). */
export type Tokenized = { ok: true; tokens: ShellToken[] } | { ok: false; reason: string };

/** Splits a command line into tokens as bash would; a quote or substitution that never ends makes it unreadable. */
export function tokenizeShell(line: string): Tokenized {
	const scanner = new ShellScanner(line, GATE_READING);
	const tokens: ShellToken[] = [];
	while (scanner.next()) tokens.push(tokenOf(scanner));
	return scanner.problem === undefined ? { ok: true, tokens } : { ok: false, reason: scanner.problem };
}

function tokenOf(scanner: ShellScanner): ShellToken {
	const { kind, text } = scanner;
	if (kind === "operator") return { kind, op: text };
	if (kind === "substitution") return { kind, text };
	if (kind === "redirect") return scanner.fd === undefined ? { kind, op: text } : { kind, op: text, fd: scanner.fd };
	const { quoted, expands, glob, tilde, assignment } = scanner;
	return { kind, text, quoted, expands, glob, tilde, assignment };
}
