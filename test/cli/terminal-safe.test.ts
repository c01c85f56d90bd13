import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../src/cli/chat-repl.ts";

describe("terminalSafe", () => {
	it.each([
		["plain text\nwith\ttabs", "plain text\nwith\ttabs"],
		["\u001b[2J\u001b[Hcleared", "cleared"],
		["red \u001b[31mtext\u001b[0m", "red text"],
		["clip \u001b]52;c;ZXZpbA==\u0007board", "clip board"],
		["title \u001b]0;owned\u001b\\done", "title done"],
		["bell\u0007 back\bspace \r return", "bell backspace  return"],
		["c1 \u009b31m csi", "c1 31m csi"],
		["ünïcödé ✓", "ünïcödé ✓"],
	])("%j → %j", (input, expected) => {
		expect(terminalSafe(input)).toBe(expected);
	});
});
