// The `shell/` stage: reading shell command lines the way the shell would run them, for the gate (`policy/`) and the
// static audit (`audit/`). Later stages import only from this file.

export type { ShellAnalysis, Transfer } from "./analyze.ts";
export { analyzeShell, shellWriteTargets } from "./analyze.ts";
export type { ShellCommand } from "./commands.ts";
export {
	baseName,
	commandProgram,
	commandProgramIndex,
	findCommands,
	findCommandsInRange,
	programIndex,
	programOf,
} from "./commands.ts";
export { CLOSERS, INTERPRETERS, PREFIXES, WRAPPERS } from "./tables.ts";
export type { ShellToken, ShellWord, Tokenized } from "./words.ts";
export { tokenizeShell } from "./words.ts";
