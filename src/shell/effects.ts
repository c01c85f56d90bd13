import {
	CLOSERS,
	COMPOUND,
	INTERPRETERS,
	LINKERS,
	NETWORK,
	OPAQUE,
	PREFIXES,
	READERS,
	STATE,
	SYSTEM_PROGRAM,
	VALUED,
	WRAPPERS,
	WRITERS,
} from "./tables.ts";
import type { ShellWord } from "./words.ts";

/** What the commands of one line do, gathered as the line is read. */
export interface Effects {
	writes: string[];
	/** Why the writes cannot be known fully (the first one is reported). */
	reasons: string[];
	network: string[];
	/** A `cd`, `pushd` or `popd` ran: relative paths after it point somewhere unknown. */
	cwdMoved: boolean;
	/** A command that can create or move links ran: later writes may go through a link made on the way. */
	linksMade?: boolean;
	/** Copies, moves and links with plain operands: what each puts where (its target is in `writes` too). */
	transfers?: Transfer[];
}

/** A copy, move, link or install: its sources, and the target they land at or inside (as written). */
export interface Transfer {
	program: string;
	sources: string[];
	target: string;
	/** Sources keep their path under the target (`cp --parents`, `rsync -R`), not only their name. */
	keepsPaths?: boolean;
}

/** A word the shell passes through unchanged. */
export function isPlain(word: ShellWord): boolean {
	return !word.quoted && !word.expands && !word.glob && !word.tilde;
}

/** Records a write target, or why it cannot be known. */
export function addWrite(word: ShellWord, effects: Effects): void {
	if (!isPlain(word)) effects.reasons.push(`the path ${word.text} is quoted or expanded`);
	else if (effects.cwdMoved && !word.text.startsWith("/")) effects.reasons.push(`a write to ${word.text} after cd`);
	else if (effects.linksMade) effects.reasons.push(`a write to ${word.text} after a command that can create links`);
	else if (!["/dev/null", "/dev/stdout", "/dev/stderr"].includes(word.text)) effects.writes.push(word.text);
}

/** Accounts for one simple command: its words after redirections were taken out. */
export function commandModel(all: ShellWord[], effects: Effects): void {
	let words = all;
	while (words[0] && !words[0].quoted && PREFIXES.has(words[0].text)) words = words.slice(1);
	if (words[0] && !words[0].quoted && CLOSERS.has(words[0].text)) words = words.slice(1);
	const start = words.findIndex((word) => !word.assignment);
	if (start < 0) {
		if (words.length > 0) effects.reasons.push("a variable assignment");
		return;
	}
	if (start > 0) effects.reasons.push("a variable assignment before a command");
	const [first, ...args] = words.slice(start);
	if (!first) return;
	if (!isPlain(first)) effects.reasons.push(`the command name ${first.text} is quoted or expanded`);
	if (COMPOUND.has(first.text)) effects.reasons.push(`a ${first.text} construct`);
	if (STATE.has(first.text)) effects.reasons.push(`${first.text} changes what later commands run`);
	for (const word of args) {
		if (word.expands) effects.reasons.push(`the variable or substitution in ${word.text}`);
		else if (word.glob || word.tilde) effects.reasons.push(`the glob or ~ in ${word.text}`);
	}
	// A program given by a path outside the system folders is the project's own, whatever its name.
	const name =
		!first.text.includes("/") || SYSTEM_PROGRAM.test(first.text) ? (first.text.split("/").at(-1) ?? "") : first.text;
	const network = NETWORK[name];
	const sub = args.find((word) => !word.text.startsWith("-"))?.text ?? "";
	if (network === "*" || network?.includes(sub)) effects.network.push(network === "*" ? name : `${name} ${sub}`);
	if (name === "rsync" && args.some((word) => /^[^/]*:/.test(word.text))) effects.network.push("rsync");
	modelProgram(name, args, effects);
	if (LINKERS.has(name)) effects.linksMade = true;
}

function modelProgram(name: string, args: ShellWord[], effects: Effects): void {
	const texts = args.map((word) => word.text);
	if (name === "cd" || name === "pushd" || name === "popd") effects.cwdMoved = true;
	else if (WRAPPERS.has(name)) effects.reasons.push(`${name} runs another command`);
	else if (OPAQUE[name]) effects.reasons.push(OPAQUE[name] as string);
	else if (interpreterRunsInline(name, texts)) effects.reasons.push(`${name} runs inline code or a script from stdin`);
	else if (name === "find") findActions(texts, effects);
	else if (name === "git") gitCommand(texts, effects);
	else if (name === "sed") sedCommand(args, effects);
	else if (name === "sort" && texts.some((t) => /^-[^-]*o|^--output/.test(t))) effects.reasons.push("sort -o");
	else if (name === "uniq" || name === "xxd") lastOfTwo(args, effects);
	else if (WRITERS[name]) writerOperands(name, args, effects);
	else if (name === "curl") curlOptions(texts, effects);
	else if (!READERS.has(name)) genericOptions(name, texts, effects);
}

function interpreterRunsInline(name: string, texts: string[]): boolean {
	const entry = INTERPRETERS.find(([pattern]) => pattern.test(name));
	if (!entry) return false;
	const [, letters, long] = entry;
	const inline = texts.some(
		(t) =>
			long.includes(t.toLowerCase()) ||
			long.some((l) => t.startsWith(`${l}=`)) ||
			(/^-[^-]/.test(t) && [...t.slice(1)].some((c) => letters.includes(c))),
	);
	const operand = texts.some((t) => !t.startsWith("-"));
	return inline || !operand || texts.includes("-");
}

const FIND_ACTIONS = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];

function findActions(texts: string[], effects: Effects): void {
	const action = texts.find((t) => FIND_ACTIONS.includes(t));
	if (action) effects.reasons.push(`find ${action}`);
}

// Subcommands that only read; `add`, `commit`, `tag` and `branch` write only inside `.git`.
const GIT_READ = new Set(
	"status diff log show blame rev-parse ls-files ls-tree cat-file describe shortlog grep whatchanged help version show-ref rev-list".split(
		" ",
	),
);
const GIT_INTERNAL = new Set(["add", "commit", "tag", "branch", "fetch", "push", "notes"]);
// Where those write: objects, refs and the index, never the hooks or config (which decide what runs later).
const GIT_INTERNAL_WRITE = ".git/objects";

function gitCommand(texts: string[], effects: Effects): void {
	let i = 0;
	for (; i < texts.length && (texts[i] ?? "").startsWith("-"); i++) {
		const option = texts[i] as string;
		if (/^(?:-c|--config-env|-C|--git-dir|--work-tree|--exec-path|--namespace|--super-prefix)(?:=|$)/.test(option)) {
			effects.reasons.push(`git ${option} changes what git runs or where it writes`);
			return;
		}
	}
	const sub = texts[i] ?? "";
	const rest = texts.slice(i + 1);
	if (rest.some((t) => /^(?:--output|-o$|--open-files-in-pager|-O)/.test(t))) {
		effects.reasons.push(`git ${sub} with an option that writes or runs a program`);
	} else if (GIT_INTERNAL.has(sub)) effects.writes.push(GIT_INTERNAL_WRITE);
	else if (!GIT_READ.has(sub)) effects.reasons.push(`git ${sub || "(no subcommand)"} writes files or may be an alias`);
}

function sedCommand(args: ShellWord[], effects: Effects): void {
	const texts = args.map((word) => word.text);
	if (texts.some((t) => /^-[^-]*i|^--in-place/.test(t))) {
		// Still unaccountable (the script and backups are not modelled), but the files it names are written: a plain
		// path into a skill folder meets the hard rule and is denied outright instead of asked.
		for (const word of sedFiles(args)) addWrite(word, effects);
		effects.reasons.push("sed -i edits files in place");
		return;
	}
	const scripts: string[] = [];
	for (let i = 0; i < texts.length; i++) {
		const text = texts[i] as string;
		if (text === "-e" || text === "--expression") scripts.push(texts[++i] ?? "");
		else if (text.startsWith("--expression=")) scripts.push(text.slice("--expression=".length));
		else if (text === "-f" || text.startsWith("--file")) effects.reasons.push("a sed script from a file");
	}
	if (scripts.length === 0) {
		const first = texts.find((t) => !t.startsWith("-"));
		if (first !== undefined) scripts.push(first);
	}
	if (scripts.some((script) => !safeSedScript(script))) effects.reasons.push("a sed script that may write or run");
}

/** The file operands of a sed command: every non-option word after the script (or all, when `-e`/`-f` give it). */
function sedFiles(args: ShellWord[]): ShellWord[] {
	const operands: ShellWord[] = [];
	let scriptGiven = false;
	for (let i = 0; i < args.length; i++) {
		const text = (args[i] as ShellWord).text;
		if (text === "-e" || text === "--expression" || text === "-f" || text === "--file" || text === "-l") {
			if (text !== "-l") scriptGiven = true;
			i++;
		} else if (text.startsWith("--expression=") || text.startsWith("--file=")) scriptGiven = true;
		else if (!text.startsWith("-") || text === "-") operands.push(args[i] as ShellWord);
	}
	return scriptGiven ? operands : operands.slice(1);
}

// Addresses, then p/d/q/n/= or s///flags or y///: no `w`, `W`, `e`, `r` and no `s///w` or `s///e`.
const SED_ADDRESS = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`;
const SED_COMMAND = String.raw`(?:[pdqQnNgGhHxlz=]|s/(?:[^/\\]|\\.)*/(?:[^/\\]|\\.)*/[gpiIm0-9]*|y/(?:[^/\\]|\\.)*/(?:[^/\\]|\\.)*/)`;
const SED_SAFE = new RegExp(`^\\s*(?:${SED_ADDRESS}(?:,${SED_ADDRESS})?\\s*!?\\s*)?${SED_COMMAND}?\\s*$`);

function safeSedScript(script: string): boolean {
	return script.split(/[;\n]/).every((part) => SED_SAFE.test(part));
}

function lastOfTwo(args: ShellWord[], effects: Effects): void {
	const operands = args.filter((word) => !word.text.startsWith("-") || word.text === "-");
	if (operands.length >= 2) addWrite(operands.at(-1) as ShellWord, effects);
}

const TRANSFERS = new Set(["cp", "mv", "ln", "link", "install", "rsync"]);

function writerOperands(name: string, args: ShellWord[], effects: Effects): void {
	const valued = (VALUED[name] ?? "").split(" ");
	const operands: ShellWord[] = [];
	let onlyOperands = false;
	for (let i = 0; i < args.length; i++) {
		const word = args[i] as ShellWord;
		const text = word.text;
		if (!onlyOperands && text === "--") onlyOperands = true;
		else if (!onlyOperands && /^(?:-t|--target-directory)/.test(text) && name !== "truncate" && name !== "touch") {
			effects.reasons.push(`${name} ${text} writes into a folder given as an option`);
			return;
		} else if (!onlyOperands && text.startsWith("-") && text !== "-") {
			if (valued.includes(text)) i++;
		} else operands.push(word);
	}
	const mode = /^[0-7]{3,4}$|^[ugoa]*[-+=][rwxXst]*(?:,[ugoa]*[-+=][rwxXst]*)*$/;
	const owner = /^[\w.-]*:[\w.-]*$|^[\w.-]+$/;
	let targets = operands;
	if (name === "chmod") targets = operands.filter((word, i) => i > 0 || !mode.test(word.text));
	if (name === "chown" || name === "chgrp") targets = operands.filter((word, i) => i > 0 || !owner.test(word.text));
	// `install -d` creates every operand as a folder; otherwise install copies to the last one.
	const folders = name === "install" && args.some((word) => /^-[^-]*d|^--directory$/.test(word.text));
	if (WRITERS[name] === "last" && !folders) targets = operands.length > 1 ? operands.slice(-1) : [];
	if (name === "rsync" && targets.some((word) => /^[^/]*:/.test(word.text))) targets = [];
	for (const word of targets) addWrite(word, effects);
	if (TRANSFERS.has(name) && !folders && operands.length > 1 && targets.length > 0 && operands.every(isPlain)) {
		const texts = operands.map((word) => word.text);
		const options = args.map((word) => word.text).filter((text) => text.startsWith("-"));
		const keepsPaths =
			(name === "cp" && options.includes("--parents")) ||
			(name === "rsync" && options.some((text) => text === "--relative" || /^-[^-]*R/.test(text)));
		const transfer = { program: name, sources: texts.slice(0, -1), target: texts.at(-1) as string };
		effects.transfers = [...(effects.transfers ?? []), keepsPaths ? { ...transfer, keepsPaths } : transfer];
	}
	// `mv` and `rsync --remove-source-files` also change their sources, which `all` already covers for mv.
}

function curlOptions(texts: string[], effects: Effects): void {
	const writes = /^(?:-[^-]*[oODcK]|--output|--remote-name|--dump-header|--cookie-jar|--trace|--stderr|--config)/;
	const option = texts.find((t) => writes.test(t));
	if (option) effects.reasons.push(`curl ${option} writes a file`);
}

// For programs with no model: the common options that name a file or folder to write.
function genericOptions(name: string, texts: string[], effects: Effects): void {
	const option = texts.find((t) =>
		/^(?:-o|--output|--out-file|--outfile|--out-dir|--outdir|--output-dir|--target-directory|--in-place)(?:=|$)|^-o./.test(
			t,
		),
	);
	if (option) effects.reasons.push(`${name} ${option} writes a file`);
}
