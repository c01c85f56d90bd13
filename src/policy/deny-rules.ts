import { CLOSERS, INTERPRETERS, PREFIXES, type ShellWord, tokenizeShell, WRAPPERS } from "../shell/index.ts";
import { type CallSubject, matchesPattern, parseToolPattern } from "./patterns.ts";

/** A word of a command that runs, or a stand-in for words that are only known when it runs (xargs, `{}`). */
type RunWord = ShellWord | { kind: "unknown" };

/** The simple commands a line runs, wrappers and `sh -c` strings opened; `unknown` when some cannot be known. */
interface Runs {
	commands: RunWord[][];
	unknown?: string;
}

const MAX_DEPTH = 8;
/** Words looked at in all, wrappers' candidate commands included: a line past it counts as unknown. */
const MAX_WORDS_VISITED = 200_000;

/** How deep the analysis is, and the words it may still look at (shared by the whole line). */
interface Level {
	depth: number;
	budget: { left: number };
}

const deeper = (level: Level): Level => ({ depth: level.depth + 1, budget: level.budget });
const SHELLS = /^(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|busybox)$/;
/** Wrappers whose operands include a command line as one string (`trap 'cmd' EXIT`, `su -c 'cmd'`, `watch 'cmd'`). */
const STRING_RUNNERS = new Set(["eval", "trap", "su", "runuser", "watch", "script", "flock", "env", "parallel"]);
/** Package runners that run the command named by their operands. */
const RUNNERS = new Set(["npx", "bunx", "pnpx", "uvx", "pipx"]);
const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/**
 * True when a `deny` pattern covers the call. For a command, the pattern's program and subcommand are matched
 * against what the shell would run, however it is spelled: by any path (`/usr/bin/git`), quoted or escaped, with
 * options before the subcommand (`git -C repo push`), after assignments, inside chains, groups, subshells and
 * substitutions, behind wrappers (`env`, `command`, `timeout`, `xargs`, `find -exec`, `sh -c '…'`, `eval`). A line
 * whose programs cannot all be known (a name from a variable or substitution, code from a file, stdin or an
 * interpreter's `-c`, a line the tokenizer cannot read) is covered by every deny rule for its tool.
 */
export function matchesDenyRule(pattern: string, call: CallSubject): boolean {
	if (matchesPattern(pattern, call)) return true;
	const { tool, spec } = parseToolPattern(pattern);
	if (call.command === undefined || (tool !== "*" && tool !== call.tool)) return false;
	const rule = parseRule(spec ?? "*");
	if (rule === undefined) return false;
	const runs = commandsRun(call.command, { depth: 0, budget: { left: MAX_WORDS_VISITED } });
	if (runs.unknown !== undefined) return true;
	return runs.commands.some((words) => commandMatches(words, rule));
}

interface Rule {
	words: string[];
	prefix: boolean;
}

// `git push:*` → program and subcommand words, as the shell would split them.
function parseRule(spec: string): Rule | undefined {
	const prefix = spec.endsWith(":*");
	const tokenized = tokenizeShell(prefix ? spec.slice(0, -2) : spec);
	if (!tokenized.ok || tokenized.tokens.some((token) => token.kind !== "word")) return undefined;
	const words = (tokenized.tokens as ShellWord[]).map((word) => word.text);
	return words.length > 0 ? { words, prefix } : undefined;
}

/** The simple commands a command line runs (see {@link matchesDenyRule}). */
function commandsRun(line: string, level: Level): Runs {
	if (level.depth > MAX_DEPTH) return { commands: [], unknown: "commands nested too deep" };
	const tokenized = tokenizeShell(line);
	if (!tokenized.ok) return { commands: [], unknown: tokenized.reason };
	const runs: Runs = { commands: [] };
	let words: ShellWord[] = [];
	let target = false;
	for (const token of tokenized.tokens) {
		if (token.kind === "substitution") merge(runs, { commands: [], unknown: "a process substitution" });
		else if (token.kind === "redirect") target = true;
		else if (token.kind === "word") {
			// A redirection's target is no argument, but a substitution in it still runs.
			if (!target) words.push(token);
			target = false;
			if (token.expands) merge(runs, substitutions(token.text, level));
		} else if (token.kind === "operator") {
			target = false;
			merge(runs, simpleCommand(words, level));
			words = [];
		}
	}
	merge(runs, simpleCommand(words, level));
	return runs;
}

function merge(into: Runs, from: Runs): void {
	into.commands.push(...from.commands);
	if (from.unknown !== undefined && into.unknown === undefined) into.unknown = from.unknown;
}

// The commands of `$(…)` and `` `…` `` inside a word.
function substitutions(text: string, level: Level): Runs {
	const runs: Runs = { commands: [] };
	for (let i = 0; i < text.length; i++) {
		if (text[i] === "`") {
			const end = text.indexOf("`", i + 1);
			if (end < 0) return { commands: [], unknown: "an unterminated substitution" };
			merge(runs, commandsRun(text.slice(i + 1, end), deeper(level)));
			i = end;
		} else if (text.startsWith("$(", i) && !text.startsWith("$((", i)) {
			const end = closingParen(text, i + 1);
			if (end < 0) return { commands: [], unknown: "an unterminated substitution" };
			merge(runs, commandsRun(text.slice(i + 2, end), deeper(level)));
			i = end;
		}
	}
	return runs;
}

function closingParen(text: string, open: number): number {
	let level = 0;
	for (let i = open; i < text.length; i++) {
		if (text[i] === "(") level++;
		else if (text[i] === ")" && --level === 0) return i;
	}
	return -1;
}

// One simple command: what it runs itself, and what its wrapper or shell runs in turn.
function simpleCommand(all: RunWord[], level: Level): Runs {
	if (level.budget.left < all.length) return { commands: [], unknown: "a line too long to analyse" };
	level.budget.left -= all.length + 1;
	let words = all;
	while (words[0]?.kind === "word" && !words[0].quoted && (PREFIXES.has(words[0].text) || CLOSERS.has(words[0].text)))
		words = words.slice(1);
	const start = words.findIndex((word) => !(word.kind === "word" && word.assignment));
	if (start < 0) return { commands: [] };
	words = words.slice(start);
	const first = words[0] as RunWord;
	if (first.kind === "unknown" || first.expands || first.glob)
		return { commands: [], unknown: "a command name that is only known when it runs" };
	const runs: Runs = { commands: [words] };
	merge(runs, innerCommands(programName(first.text), words.slice(1), level));
	return runs;
}

function innerCommands(name: string, args: RunWord[], level: Level): Runs {
	const texts = args.map((word) => (word.kind === "word" ? word.text : ""));
	if (SHELLS.test(name)) return shellCommand(args, level);
	if (name === "source" || name === ".") return { commands: [], unknown: `${name} runs a file's commands` };
	if (name === "alias") return { commands: [], unknown: "an alias" };
	const interpreter = INTERPRETERS.find(([pattern]) => pattern.test(name));
	if (interpreter && runsInline(interpreter, texts)) return { commands: [], unknown: `${name} runs inline code` };
	if (name === "find") return findActions(args, level);
	if (!WRAPPERS.has(name) && !RUNNERS.has(name)) return { commands: [] };
	if (args.some((word) => word.kind === "unknown" || word.expands))
		return { commands: [], unknown: `${name} runs a command only known when it runs` };
	const runs: Runs = { commands: [] };
	// Every place the wrapped command could start (options and their values are not told apart: any could be).
	const extra: RunWord[] = name === "xargs" ? [{ kind: "unknown" }] : [];
	for (const [i, word] of args.entries()) {
		if (runs.unknown !== undefined) return runs;
		if (word.kind === "word" && !word.text.startsWith("-"))
			merge(runs, simpleCommand([...args.slice(i), ...extra], deeper(level)));
	}
	if (STRING_RUNNERS.has(name)) {
		const line = name === "eval" ? texts.join(" ") : undefined;
		for (const text of line !== undefined ? [line] : texts.filter((t) => /[\s;&|]/.test(t)))
			merge(runs, commandsRun(text, deeper(level)));
	}
	return runs;
}

// `sh -c 'line'` runs the line; a shell reading a script file or stdin runs what nobody here can see.
function shellCommand(args: RunWord[], level: Level): Runs {
	let inline = false;
	for (const word of args) {
		if (word.kind === "unknown" || word.expands)
			return { commands: [], unknown: "a shell runs a command line only known when it runs" };
		if (word.text === "--") continue;
		if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word.text) || word.text === "--command") inline = true;
		else if (!word.text.startsWith("-") && !word.text.startsWith("+"))
			return inline ? commandsRun(word.text, deeper(level)) : { commands: [], unknown: "a shell runs a script file" };
	}
	return { commands: [], unknown: "a shell reads commands from stdin" };
}

function runsInline(entry: (typeof INTERPRETERS)[number], texts: string[]): boolean {
	const [, letters, long] = entry;
	const inline = texts.some(
		(t) =>
			long.includes(t.toLowerCase()) ||
			long.some((l) => t.startsWith(`${l}=`)) ||
			(/^-[^-]/.test(t) && [...t.slice(1)].some((c) => letters.includes(c))),
	);
	return inline || !texts.some((t) => !t.startsWith("-")) || texts.includes("-");
}

// `find … -exec cmd {} ;`: the command between the action and `;` or `+`, with `{}` standing for any word.
function findActions(args: RunWord[], level: Level): Runs {
	const runs: Runs = { commands: [] };
	for (let i = 0; i < args.length; i++) {
		const word = args[i] as RunWord;
		if (word.kind !== "word" || !EXEC_ACTIONS.has(word.text)) continue;
		let end = i + 1;
		while (end < args.length && !isActionEnd(args[end] as RunWord)) end++;
		const command = args
			.slice(i + 1, end)
			.map((w): RunWord => (w.kind === "word" && w.text === "{}" ? { kind: "unknown" } : w));
		merge(runs, simpleCommand(command, deeper(level)));
		i = end;
	}
	return runs;
}

function isWord(word: RunWord | undefined, text: string): boolean {
	return word?.kind === "word" && word.text === text;
}

function isActionEnd(word: RunWord): boolean {
	return word.kind === "word" && (word.text === ";" || word.text === "+");
}

// The program a name runs: its last path segment, compared without regard to case (case-insensitive file systems).
function programName(text: string): string {
	return (text.split("/").at(-1) ?? "").toLowerCase();
}

/** Whether a simple command could be the rule's program followed by its subcommand words. */
function commandMatches(words: RunWord[], rule: Rule): boolean {
	const [first, ...args] = words;
	if (first?.kind !== "word" || programName(first.text) !== programName(rule.words[0] as string)) return false;
	const subs = rule.words.slice(1);
	const gitAlias = programName(first.text) === "git";
	const memo = new Map<number, boolean>();
	// Options are skipped, each with or without a value; a word only known when it runs could be anything.
	const from = (i: number, j: number): boolean => {
		const key = i * (subs.length + 1) + j;
		const known = memo.get(key);
		if (known !== undefined) return known;
		let result: boolean;
		const word = args[i];
		if (j === subs.length) result = rule.prefix || i === args.length;
		else if (word === undefined) result = false;
		else if (word.kind === "unknown" || word.expands || word.glob) result = true;
		else if (gitAlias && /^alias\./i.test(word.text) && isWord(args[i - 1], "-c")) result = true;
		else if (word.text.startsWith("-") && word.text !== "-")
			result = from(i + 1, j) || (!word.text.includes("=") && from(i + 2, j));
		else result = word.text === subs[j] && from(i + 1, j + 1);
		memo.set(key, result);
		return result;
	};
	return from(0, 0);
}
