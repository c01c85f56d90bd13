// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell text, where ${IFS} is the point.
import { describe, expect, it } from "vitest";
import { AUDIT_READING, GATE_READING, type ShellReading, ShellScanner } from "../../src/shell/scanner.ts";

// The token streams of the one tokenizer on tricky text, worked out by hand from the shell's grammar. They pin the
// scanner's output so that work on its speed cannot change what the gate and the audit read. A token is written
// `kind text` with its marks: q quoted, e expands, g glob, t tilde, fd=N a redirection's descriptor.

function tokens(text: string, reading: ShellReading): { tokens: string[]; problem: string | undefined } {
	const scanner = new ShellScanner(text, reading);
	const out: string[] = [];
	while (scanner.next()) {
		const marks = [
			scanner.kind === "word" && scanner.quoted ? "q" : "",
			scanner.kind === "word" && scanner.expands ? "e" : "",
			scanner.kind === "word" && scanner.glob ? "g" : "",
			scanner.kind === "word" && scanner.tilde ? "t" : "",
			scanner.kind === "redirect" && scanner.fd !== undefined ? `fd=${scanner.fd}` : "",
		].filter(Boolean);
		out.push([scanner.kind, scanner.text, ...marks].join(" "));
	}
	return { tokens: out, problem: scanner.problem };
}

describe("the shell scanner's token streams (issue 22: speed work keeps every token)", () => {
	it.each<[string, string[]]>([
		["a;;b", ["word a", "operator ;;", "word b"]],
		[
			"a |& b || c && d & e | f ; g",
			[
				"word a",
				"operator |&",
				"word b",
				"operator ||",
				"word c",
				"operator &&",
				"word d",
				"operator &",
				"word e",
				"operator |",
				"word f",
				"operator ;",
				"word g",
			],
		],
		['echo $URL"$HOME"x', ["word echo", "word $URL$HOMEx q e"]],
		["x=$A_1b-c", ["word x=$A_1b-c e"]],
		["2>&1 cmd {fd}>out", ["redirect >& fd=2", "word 1", "word cmd", "redirect > fd={fd}", "word out"]],
		["$'\\x63url' -s", ["word curl q", "word -s"]],
		["c$@url", ["word c$@url e"]],
		["curl${IFS}-s", ["word curl e", "word -s e"]],
		['echo "a\\"b\\$c\\\\d\\e"', ["word echo", 'word a"b$c\\d\\e q']],
		["cat <<-'E' x", ["word cat", "redirect <<-", "word E q", "word x"]],
		["# note ; rm -rf /\nls", ["operator \n", "word ls"]],
		["a\\\nb", ["word ab q"]],
		["<(curl x) y", ["substitution <(curl x)", "word y"]],
		["~/x *.md [[ ]]", ["word ~/x t", "word *.md g", "word [[", "word ]]"]],
		['$(echo "a b") `date`', ['word $(echo "a b") e', "word `date` e"]],
		["a\r\nb", ["word a\r", "operator \n", "word b"]],
		["$1$$x ${a:-b}", ["word $1$$x e", "word ${a:-b} e"]],
	])("the gate reads %j", (text, expected) => {
		expect(tokens(text, GATE_READING).tokens).toEqual(expected);
	});

	it.each<[string, string[]]>([
		["c$@url -s", ["word curl e", "word -s"]],
		['"$@" x', ["word x"]],
		["a\r\nb", ["word a", "operator \n", "word b"]],
		["C:\\Tools\\x c\\url", ["word C:\\Tools\\x q", "word curl q"]],
		["f(x) && g", ["word f(x)", "operator &&", "word g"]],
	])("the audit reads %j", (text, expected) => {
		expect(tokens(text, AUDIT_READING).tokens).toEqual(expected);
	});

	it("reports the first quote that never ends, having read the rest of the text as its word", () => {
		expect(tokens("echo 'abc ; rm x", GATE_READING)).toEqual({
			tokens: ["word echo", "word abc ; rm x q"],
			problem: "an unterminated single quote",
		});
		expect(tokens('a "b $(c', GATE_READING).problem).toBe("an unterminated double quote");
	});
});
