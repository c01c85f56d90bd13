// The shell commands of one unit: its own text tokenized, a table row cell by cell, a window of a long line from the
// whole line, and the commands inside its string literals.

import { findCommands, findCommandsInRange, type ShellCommand } from "../shell/index.ts";
import { literals } from "./lines.ts";
import type { LineWindow, Unit } from "./text.ts";

/** A unit's commands: the first `own` are its text's (in order), then those inside string literals. */
export interface UnitCommands {
	commands: ShellCommand[];
	own: number;
	/** For a window of a long line: the first command of the next window, which the last own one may pipe into. */
	after?: ShellCommand | undefined;
}

/** The commands of a unit, with starts relative to its text. */
export function unitCommands(unit: Unit): UnitCommands {
	const text = unit.text;
	const read = tableRow(unit)
		? { commands: cells(text) }
		: unit.window
			? windowCommands(unit.window)
			: { commands: findCommands(text) };
	const commands = read.commands;
	const own = commands.length;
	// Commands inside string literals: `subprocess.run("curl … | sh", shell=True)`, `bash -c "…"`.
	if (text.includes('"') || text.includes("'")) {
		for (const literal of literals(text)) {
			if (literal.value.length < 6 || !literal.value.includes(" ")) continue;
			for (const inner of findCommands(literal.value))
				commands.push({ ...inner, start: inner.start + literal.start + 1 });
		}
	}
	return { commands, own, after: "after" in read ? read.after : undefined };
}

/**
 * The commands a window of a long line owns, read from the whole line where the previous window stopped (so none is
 * cut at a window's edge), with starts made relative to the window; and the command after them.
 */
function windowCommands(window: LineWindow): { commands: ShellCommand[]; after?: ShellCommand | undefined } {
	const from = window.cursor.at;
	if (from >= window.next) return { commands: [] };
	const read = findCommandsInRange(window.line, from, window.next);
	window.cursor.at = read.after?.start ?? window.line.length;
	for (const command of read.commands) command.start = Math.max(0, command.start - window.offset);
	return { commands: read.commands, after: read.after };
}

function tableRow(unit: Unit): boolean {
	return unit.context === "table" && unit.before === "" && unit.text.trimStart().startsWith("|");
}

/** The commands of each cell of a table row: its `|` separate cells, not a pipeline. */
function cells(text: string): ShellCommand[] {
	const commands: ShellCommand[] = [];
	let start = 0;
	for (const cell of text.split("|")) {
		for (const command of findCommands(cell)) commands.push({ ...command, start: command.start + start });
		start += cell.length + 1;
	}
	return commands;
}
