import { addWrite, commandModel, type Effects, isPlain, type Transfer } from "./effects.ts";
import { type ShellWord, tokenizeShell } from "./words.ts";

/** What a shell command line would do to files and the network, as far as it can be told without running it. */
export interface ShellAnalysis {
	/** Paths it writes, as written (relative ones are relative to where the command starts). */
	writes: string[];
	/** Why its writes cannot be known fully; absent when every write is accounted for. */
	unaccountable?: string;
	/** Programs in it that reach the network (`curl`, `git push`, ...). */
	network: string[];
	/** Copies, moves, links and installs with plain operands: sources and target as written. */
	transfers: Transfer[];
}

export type { Transfer } from "./effects.ts";

/**
 * Reads a command line with a real tokenizer and accounts for what it writes: plain redirections, `tee`, and the
 * operands of commands that create, change or remove files. Anything that hides a write — redirection forms beyond
 * `>`/`>>`, quoting in paths, variables, substitutions, globs, `~`, `cd` before a write, wrappers and interpreters,
 * options that write, archive extraction — makes the whole line unaccountable. Analysis is not a sandbox.
 */
export function analyzeShell(command: string): ShellAnalysis {
	const tokenized = tokenizeShell(command);
	if (!tokenized.ok) return { writes: [], unaccountable: tokenized.reason, network: [], transfers: [] };
	const effects: Effects = { writes: [], reasons: [], network: [], cwdMoved: false };
	let words: ShellWord[] = [];
	const tokens = tokenized.tokens;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i];
		if (token === undefined) break;
		if (token.kind === "word") words.push(token);
		else if (token.kind === "substitution") effects.reasons.push("a process substitution");
		else if (token.kind === "redirect") {
			const target = tokens[i + 1];
			if (target?.kind !== "word") effects.reasons.push(`a redirection without a target`);
			else redirection(token.op, token.fd, target, effects);
			i++;
		} else {
			commandModel(words, effects);
			words = [];
		}
	}
	commandModel(words, effects);
	const reason = effects.reasons[0];
	return {
		writes: effects.writes,
		...(reason !== undefined ? { unaccountable: reason } : {}),
		network: [...new Set(effects.network)],
		transfers: effects.transfers ?? [],
	};
}

/** The paths an ordinary shell command would write (see {@link analyzeShell}). */
export function shellWriteTargets(command: string): string[] {
	return analyzeShell(command).writes;
}

// `>`, `>>` (stdout or stderr), `<` and descriptor copies like `2>&1` are accountable; the rest is not.
function redirection(op: string, fd: string | undefined, target: ShellWord, effects: Effects): void {
	if (fd !== undefined && !/^[0-2]$/.test(fd)) {
		effects.reasons.push(`a redirection of file descriptor ${fd}`);
		return;
	}
	if ((op === ">&" || op === "<&") && /^(?:\d|-)$/.test(target.text) && isPlain(target)) return;
	if (op === "<") {
		if (!isPlain(target)) effects.reasons.push("a quoted or expanded redirection target");
		return;
	}
	if (op !== ">" && op !== ">>") {
		effects.reasons.push(`the redirection ${op}`);
		return;
	}
	addWrite(target, effects);
}
