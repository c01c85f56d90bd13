// Quoting and substitution forms, for the scanner: where each one ends, and the ones that spell a word differently
// from how it runs: ANSI-C quotes (`$'\x63url'` is `curl`) and `$IFS` used as a separator (`curl${IFS}-s`).

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

/**
 * The index just after the substitution at `start`: `$name`, `${…}`, `$(…)`, `$((…))`, `$'…'` or `` `…` ``; -1 when
 * it never ends.
 */
export function substitutionEnd(text: string, start: number): number {
	if (text[start] === "`") {
		for (let i = start + 1; i < text.length; i++) {
			if (text[i] === "\\") i++;
			else if (text[i] === "`") return i + 1;
		}
		return -1;
	}
	const next = text[start + 1];
	if (next === "(") return groupEnd(text, start + 1, "(", ")");
	if (next === "{") return groupEnd(text, start + 1, "{", "}");
	if (next === "'") {
		for (let i = start + 2; i < text.length; i++) {
			if (text[i] === "\\") i++;
			else if (text[i] === "'") return i + 1;
		}
		return -1;
	}
	return start + 1 + nameLength(text, start + 1);
}

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The length of the parameter name at `at`: a name of up to 256 letters, digits and `_` (not starting with a digit),
 * or one digit or special parameter (`@*#?$!-`). A loop over character codes: it runs once per `$name` of a text.
 */
function nameLength(text: string, at: number): number {
	const c = text.charCodeAt(at);
	if (isLetter(c)) {
		const limit = Math.min(text.length, at + 256);
		let i = at + 1;
		while (i < limit && (isLetter(text.charCodeAt(i)) || isDigit(text.charCodeAt(i)))) i++;
		return i - at;
	}
	return isDigit(c) || (at < text.length && "@*#?$!-".includes(text[at] as string)) ? 1 : 0;
}

/** From an opening bracket to just after its match, skipping quoted text; -1 when it never closes. */
export function groupEnd(text: string, start: number, open: string, close: string): number {
	let depth = 0;
	for (let i = start; i < text.length; i++) {
		const char = text[i];
		if (char === "\\") i++;
		else if (char === "'") {
			i = text.indexOf("'", i + 1);
			if (i < 0) return -1;
		} else if (char === open) depth++;
		else if (char === close && --depth === 0) return i + 1;
	}
	return -1;
}
