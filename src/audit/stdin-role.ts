// What an interpreter at the end of a pipe does with its standard input. `curl … | bash` runs what was fetched;
// `curl … | python3 -m json.tool` and `curl … | python3 -c "…json.load(sys.stdin)…"` only read it as data, and are
// how documentation pretty-prints an API answer; `curl … | python3 ingest.py` hands it to a script the audit cannot
// tie to the pipe. Whatever is not plainly data or a named script counts as the program, so an unknown form stays P0.

import { commandProgram, commandProgramIndex, type ShellCommand } from "../shell/index.ts";

/** `program`: stdin is run; `script`: stdin goes to a named script; `data`: stdin is only read. */
export type StdinRole = "program" | "script" | "data";

interface Family {
	/** Short options whose code is the next word (or the rest of the word). */
	inline: string;
	/** Long options (lower case) that do the same. */
	long: readonly string[];
	/** Short options that take the next word as their value (so it is not the script). */
	valued: string;
	/** Short options that read the program from stdin whatever follows. */
	stdin: string;
}

const SHELL: Family = { inline: "c", long: ["--command"], valued: "oO", stdin: "s" };
const FAMILIES: readonly [RegExp, Family][] = [
	[/^(?:sh|bash|zsh|dash|ksh|fish)$/, SHELL],
	[/^python[0-9.]*$/, { inline: "c", long: [], valued: "WXQ", stdin: "" }],
	[/^(?:node|nodejs|bun)$/, { inline: "ep", long: ["--eval", "--print"], valued: "r", stdin: "" }],
	[/^perl[0-9.]*$/, { inline: "eE", long: [], valued: "IM", stdin: "" }],
	[/^ruby[0-9.]*$/, { inline: "e", long: [], valued: "Ir", stdin: "" }],
	[/^php[0-9.]*$/, { inline: "r", long: [], valued: "cd", stdin: "" }],
	[/^(?:pwsh|powershell)$/, { inline: "c", long: ["-command", "-c"], valued: "", stdin: "" }],
];

// Modules that only read their input: the standard library's JSON pretty-printer.
const DATA_MODULES = new Set(["json.tool", "json"]);

// Inline code that runs its input after all: exec/eval of stdin, unpickling it, `$(cat)`, a shell or interpreter
// inside, or a variable whose code the audit cannot see (`bash -c "$STEP"`).
const RUNS_INPUT =
	/\b(exec|execfile|eval|compile|source|Function|runInThisContext|runInNewContext|system|popen|subprocess|spawn|spawnSync|execSync|child_process|Invoke-Expression|iex|sh|bash|zsh|python[0-9.]*|node|perl|ruby|php|pickle|marshal|runpy|importlib|__import__)\b|\$[({A-Za-z_]|`\s{0,3}cat\b|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0|^\s{0,3}\.\s/i;

/** The role of stdin for the command a fetch is piped into (an interpreter of the audit's list). */
export function stdinRole(command: ShellCommand): StdinRole {
	const program = commandProgram(command);
	const family = FAMILIES.find(([pattern]) => pattern.test(program))?.[1];
	if (!family) return "program";
	const words = command.words.slice(commandProgramIndex(command) + 1);
	for (let i = 0; i < words.length; i++) {
		const word = words[i] ?? "";
		if (word === "-" || word === "--") return word === "-" ? "program" : operandRole(words[i + 1]);
		const lower = word.toLowerCase();
		if (family.long.includes(lower)) return inlineRole(words[i + 1]);
		if (lower.startsWith("--")) continue;
		if (word[0] !== "-" || word.length === 1) return operandRole(word);
		if (program.startsWith("python") && word.startsWith("-m")) {
			const module = word.length > 2 ? word.slice(2) : (words[i + 1] ?? "");
			return DATA_MODULES.has(module) ? "data" : "script";
		}
		for (let k = 1; k < word.length; k++) {
			const letter = word[k] ?? "";
			if (family.stdin.includes(letter)) return "program";
			if (family.inline.includes(letter)) return inlineRole(k + 1 < word.length ? word.slice(k + 1) : words[i + 1]);
			if (family.valued.includes(letter)) {
				if (k + 1 === word.length) i++;
				break;
			}
		}
	}
	return "program";
}

function inlineRole(code: string | undefined): StdinRole {
	return code === undefined || code === "-" || RUNS_INPUT.test(code) ? "program" : "data";
}

function operandRole(word: string | undefined): StdinRole {
	return word === undefined || word === "-" || word === "/dev/stdin" ? "program" : "script";
}
