import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { terminalJsonChunks } from "../../src/cli/terminal-text.ts";

// The `--json` output's bytes, checked against a reference written here from the rules rather than from the writer:
// the text JSON.stringify gives with an indent of two, then every UTF-16 unit of DEL, a C1 control, or a format or
// line/paragraph separator character (bidi overrides, zero-width, BOM, tag characters) written as a lowercase `\u`
// escape. C0 controls and lone surrogates are escaped by JSON.stringify itself.

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.cjs");
const FORMAT = /^[\p{Cf}\p{Zl}\p{Zp}]$/u;

function escapeUnits(char: string): string {
	let out = "";
	for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
	return out;
}

function reference(value: unknown): string {
	let out = "";
	for (const char of JSON.stringify(value, null, 2)) {
		const code = char.codePointAt(0) ?? 0;
		out += (code >= 0x7f && code <= 0x9f) || FORMAT.test(char) ? escapeUnits(char) : char;
	}
	return out;
}

/** The characters of `text` that must never reach a terminal raw (a JSON text's own newlines aside). */
function rawUnsafe(text: string): string[] {
	return [...text].filter((char) => {
		const code = char.codePointAt(0) ?? 0;
		if (char === "\n") return false;
		return code < 0x20 || (code >= 0x7f && code <= 0x9f) || FORMAT.test(char) || /^\p{Cs}$/u.test(char);
	});
}

/** Every character an attacker could put in a name, a description or a message to act on a terminal. */
const HOSTILE = [
	"\u001b[2J\u001b]52;c;aGk=\u0007",
	"\u0000\u0001\u0008\u000b\u000c\r\u001f",
	"\u007f\u0080\u0085\u009b31m\u009f",
	"line\u2028para\u2029",
	"lone \ud800 high, lone \udc00 low, pair \ud83d\ude00",
	"\ufeffbom \ufffe \uffff",
	"\u202eevil\u202c \u2066iso\u2069 \u200b\u200c\u200d \u00ad \u061c",
	"tag \u{e0041}\u{e007f} émoji 👩‍💻 中文",
	'quote " back \\ slash / tab \t nl \n',
];

function hostileReport(members: number): unknown {
	return {
		cwd: `/tmp/${HOSTILE[0]}`,
		counts: { selected: members, note: HOSTILE[2] },
		selected: Array.from({ length: members }, (_, i) => ({
			name: `skill-${i}${HOSTILE[i % HOSTILE.length]}`,
			description: HOSTILE.join(i % 2 === 0 ? "" : " "),
			modelInvocable: i % 3 === 0,
			diagnostics:
				i % 4 === 0 ? [] : [{ code: "name.invalid", message: HOSTILE[(i + 3) % HOSTILE.length], at: { line: i } }],
		})),
		rejected: [{ file: `/x/${HOSTILE[6]}`, diagnostics: [{ message: HOSTILE[4] }] }],
		timings: { totalMs: 1.5 },
	};
}

describe("--json output bytes (issue 23)", () => {
	it("are the reference's bytes on hostile text, in one piece or many, in members written whole or batched", () => {
		for (const members of [0, 1, 5, 127, 128, 129, 1000]) {
			const report = hostileReport(members);
			const text = [...terminalJsonChunks(report, 2)].join("");
			expect(Buffer.from(text, "utf8").equals(Buffer.from(reference(report), "utf8"))).toBe(true);
			expect(JSON.parse(text)).toEqual(report);
		}
	});

	it("never holds a raw control, separator, bidi, BOM or lone surrogate character", () => {
		const text = [...terminalJsonChunks(hostileReport(300), 2)].join("");
		expect(rawUnsafe(text)).toEqual([]);
	});

	it("is plain ASCII text written as it is (the common case) and other text kept as it is", () => {
		const plain = { selected: [{ name: "a", description: "b ~ } { ] [" }], list: ["x"] };
		expect([...terminalJsonChunks(plain, 2)].join("")).toBe(JSON.stringify(plain, null, 2));
		// One such character alone in otherwise plain text is still escaped.
		for (const char of ["\u007f", "\u0085", "\u009b", "\u00ad", "\u202e", "\u2028", "\ufeff", "\u{e0041}", "\ud800"]) {
			const alone = { selected: [{ name: "plain", description: `before ${char} after` }] };
			expect([...terminalJsonChunks(alone, 2)].join("")).toBe(reference(alone));
		}
		const words = { text: "émoji 👩‍💻 中文 ünïcödé" };
		expect([...terminalJsonChunks(words, 2)].join("")).toBe(reference(words));
		expect([...terminalJsonChunks(words, 2)].join("")).toContain("💻 中文 ünïcödé");
	});

	describe("through the built CLI, written to a file", () => {
		const base = mkdtempSync(join(tmpdir(), "skillset-json-bytes-"));
		afterAll(() => rmSync(base, { recursive: true, force: true }));

		it("equals the reference for the data it holds, with hostile names and descriptions", () => {
			const root = join(base, "root");
			for (const [i, text] of HOSTILE.entries()) {
				const dir = join(root, `skill-${i}`);
				mkdirSync(dir, { recursive: true });
				const name = i % 2 === 0 ? `skill-${i}` : `skill-${i}${text.replace(/[\n\r\0]/g, "")}`;
				const description = text.replace(/[\n\r]/g, " ");
				writeFileSync(
					join(dir, "SKILL.md"),
					`---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\nBody\n`,
				);
			}
			const outFile = join(base, "out.json");
			const fd = openSync(outFile, "w");
			try {
				const run = spawnSync(
					process.execPath,
					[BIN, "scan", root, "--no-default-roots", "--root", root, "--json", "--exit-zero"],
					{
						cwd: base,
						env: { ...process.env, SKILLSET_NO_CACHE: "1" },
						stdio: ["ignore", fd, "pipe"],
						timeout: 60_000,
					},
				);
				expect(run.status).toBe(0);
			} finally {
				closeSync(fd);
			}
			const bytes = readFileSync(outFile);
			const data = JSON.parse(bytes.toString("utf8"));
			expect(data.selected.length + data.rejected.length).toBeGreaterThan(0);
			expect(bytes.equals(Buffer.from(`${reference(data)}\n`, "utf8"))).toBe(true);
			const text = bytes.toString("utf8");
			expect(rawUnsafe(text)).toEqual([]);
			// The hostile text did reach the output, escaped.
			for (const escaped of ["\\u001b", "\\u009b", "\\u202e", "\\u2028", "\\ufeff"]) expect(text).toContain(escaped);
		}, 90_000);
	});
});
