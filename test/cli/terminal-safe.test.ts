import { describe, expect, it } from "vitest";
import { renderPermissionRequest } from "../../src/cli/permission-prompt.ts";
import {
	characterCount,
	exactText,
	terminalJson,
	terminalJsonChunks,
	terminalSafe,
} from "../../src/cli/terminal-text.ts";

const plain = { red: String, yellow: String, blue: String, dim: String, bold: String };

describe("terminalSafe: running text with every control character made visible (issue 18)", () => {
	it.each([
		["plain text\nwith\ttabs", "plain text\nwith\ttabs"],
		["\u001b[2J\u001b[Hcleared", "\\x1b[2J\\x1b[Hcleared"],
		["red \u001b[31mtext\u001b[0m", "red \\x1b[31mtext\\x1b[0m"],
		["clip \u001b]52;c;ZXZpbA==\u0007board", "clip \\x1b]52;c;ZXZpbA==\\x07board"],
		["title \u001b]0;owned\u001b\\done", "title \\x1b]0;owned\\x1b\\done"],
		["bell\u0007 back\bspace \r return", "bell\\x07 back\\x08space \\r return"],
		["c1 \u009b31m csi", "c1 \\u009b31m csi"],
		["bidi \u202eevil\u202c", "bidi \\u{202e}evil\\u{202c}"],
		["tag \u{e0041}", "tag \\u{e0041}"],
		["line\u2028sep", "line\\u{2028}sep"],
		["ünïcödé ✓ 👩‍💻", "ünïcödé ✓ 👩‍💻"],
	])("%j → %j", (input, expected) => {
		expect(terminalSafe(input)).toBe(expected);
	});

	it("leaves no escape, carriage return or C1 character in any output", () => {
		let all = "";
		for (let code = 0; code < 0x100; code++) all += String.fromCharCode(code);
		const safe = terminalSafe(all);
		expect([...safe].filter((char) => /\p{Cc}/u.test(char) && char !== "\n" && char !== "\t")).toEqual([]);
	});
});

describe("exactText: one line, nothing hidden, nothing ambiguous", () => {
	it.each([
		["ls src", "ls src"],
		["a\nb\tc", "a\\nb\\tc"],
		["back\\slash", "back\\\\slash"],
		["esc \u001b[1A", "esc \\x1b[1A"],
		["zwsp\u200bjoin\u200d", "zwsp\\u{200b}join\\u{200d}"],
	])("%j → %j", (input, expected) => {
		expect(exactText(input)).toBe(expected);
	});

	it("keeps two different strings apart", () => {
		expect(exactText("\\x1b")).not.toBe(exactText("\u001b"));
		expect(characterCount("👩‍💻a")).toBe(4);
	});
});

describe("terminalJson", () => {
	it("escapes C1, DEL, bidi and tag characters and keeps the data", () => {
		const data = { text: "a\u009b2J\u007f\u202e\u{e0041}b" };
		const json = terminalJson(data);
		expect(json).toBe('{"text":"a\\u009b2J\\u007f\\u202e\\udb40\\udc41b"}');
		expect(JSON.parse(json)).toEqual(data);
	});

	it("in pieces, joins to exactly the same text, for every kind of member JSON.stringify treats apart", () => {
		const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: [1, { b: "c" }] });
		const data = {
			text: "a\u009b2J\u202e\u{e0041}b\nline",
			empty: { list: [], object: {} },
			skipped: undefined,
			fn: () => 1,
			list: [undefined, () => 1, null, 0, "", [[]], { deep: { deeper: [1, 2] } }],
			when: new Date(0),
			custom: { toJSON: () => ({ replaced: true }) },
			bare,
			top: [],
		};
		expect([...terminalJsonChunks(data, 2)].join("")).toBe(terminalJson(data, 2));
		expect([...terminalJsonChunks([], 2)].join("")).toBe("[]");
		expect([...terminalJsonChunks("x\u202e", 2)].join("")).toBe(terminalJson("x\u202e", 2));
	});

	it("writes a large report in several pieces, none of them the whole", () => {
		const data = { selected: Array.from({ length: 5000 }, (_, i) => ({ name: `skill-${i}`, tags: ["\u202e", i] })) };
		const pieces = [...terminalJsonChunks(data, 2)];
		expect(pieces.length).toBeGreaterThan(3);
		expect(pieces.join("")).toBe(terminalJson(data, 2));
	});

	it("writes long lists in batches indented where they stand, at any indent and depth", () => {
		const members = Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? undefined : { i, list: [i, "\u200b"] }));
		const data = [members, { inner: members }, members.slice(0, 129)];
		for (const indent of [1, 2, 4]) {
			expect([...terminalJsonChunks(data, indent)].join("")).toBe(terminalJson(data, indent));
			expect([...terminalJsonChunks({ members }, indent)].join("")).toBe(terminalJson({ members }, indent));
		}
	});
});

describe("renderPermissionRequest", () => {
	it("shows the exact command on one line with its length, and the reason and pattern made visible", () => {
		const command = "echo PWNED > x # \u001b[1A\u001b[2K\rls src";
		const text = renderPermissionRequest(
			{
				tool: "run_shell",
				args: { command },
				rule: "needs-approval",
				reason: `run_shell ${command}`,
				pattern: `run_shell(${command})`,
				grantable: true,
			},
			plain,
		);
		expect(text.includes("\u001b") || text.includes("\r")).toBe(false);
		expect(text).toContain(`command (${characterCount(command)} characters):`);
		expect(text).toContain("    echo PWNED > x # \\x1b[1A\\x1b[2K\\rls src\n");
		expect(text).toContain("[a]lways allows exactly this call again: run_shell(echo PWNED > x # \\x1b[1A");
	});

	it("cuts a very long value in the middle and says how much", () => {
		const command = `ls ${" ".repeat(10_000)}; rm -rf ~`;
		const text = renderPermissionRequest(
			{ tool: "run_shell", args: { command }, rule: "r", reason: "r", pattern: "p", grantable: false },
			plain,
		);
		expect(text).toContain(`command (${command.length} characters):`);
		expect(text).toMatch(/\[\d+ characters not shown\]/);
		expect(text).toContain("; rm -rf ~");
	});
});
