// Quoting forms that spell a word differently from how it runs, shared by the audit's tokenizer and the policy's
// shell analysis: ANSI-C quotes (`$'\x63url'` is `curl`) and `$IFS` used as a separator (`curl${IFS}-s`).

/** The index of the `'` that closes the ANSI-C quote whose body starts at `start`, or -1 when it never closes. */
export function ansiCEnd(text: string, start: number): number {
	for (let i = start; i < text.length; i++) {
		if (text[i] === "\\") i++;
		else if (text[i] === "'") return i;
	}
	return -1;
}

const SIMPLE: Readonly<Record<string, string>> = {
	a: "\x07",
	b: "\b",
	e: "\x1b",
	E: "\x1b",
	f: "\f",
	n: "\n",
	r: "\r",
	t: "\t",
	v: "\v",
	"\\": "\\",
	"'": "'",
	'"': '"',
	"?": "?",
};

/** The text an ANSI-C quoted body (`\x63url`, `\143url`, `\u0063url`, `\cA`) stands for, as bash decodes it. */
export function decodeAnsiC(body: string): string {
	let out = "";
	let i = 0;
	while (i < body.length) {
		const c = body[i] as string;
		if (c !== "\\" || i + 1 >= body.length) {
			out += c;
			i++;
			continue;
		}
		const e = body[i + 1] as string;
		const simple = SIMPLE[e];
		if (simple !== undefined) {
			out += simple;
			i += 2;
		} else if (/[0-7]/.test(e)) {
			const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1, i + 4))?.[0] ?? "";
			out += String.fromCharCode(Number.parseInt(digits, 8) & 0xff);
			i += 1 + digits.length;
		} else if (e === "x" || e === "u" || e === "U") {
			const max = e === "x" ? 2 : e === "u" ? 4 : 8;
			const digits = /^[0-9A-Fa-f]*/.exec(body.slice(i + 2, i + 2 + max))?.[0] ?? "";
			const code = Number.parseInt(digits, 16);
			out += digits === "" ? `\\${e}` : code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
			i += 2 + digits.length;
		} else if (e === "c" && i + 2 < body.length) {
			out += String.fromCharCode(body.charCodeAt(i + 2) & 0x1f || 0);
			i += 3;
		} else {
			out += `\\${e}`;
			i += 2;
		}
	}
	// bash ends the string at a NUL.
	const nul = out.indexOf("\0");
	return nul === -1 ? out : out.slice(0, nul);
}

/**
 * The length of an unquoted `$IFS` or `${IFS…}` expansion at `start`, or 0. With the default IFS it splits words
 * like a blank, so `curl${IFS}-s` runs `curl -s`.
 */
export function ifsLength(text: string, start: number): number {
	if (text.startsWith("$IFS", start) && !/[A-Za-z0-9_]/.test(text[start + 4] ?? "")) return 4;
	if (!text.startsWith("${IFS", start) || /[A-Za-z0-9_]/.test(text[start + 5] ?? "")) return 0;
	const close = text.indexOf("}", start + 5);
	return close === -1 || close - start > 64 ? 0 : close - start + 1;
}
