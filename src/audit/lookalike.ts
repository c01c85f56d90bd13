// Look-alike names: a word that mixes Latin letters with Cyrillic, Greek or Armenian ones (`аpi.github.com` with a
// Cyrillic а) reads as a trusted name and resolves, installs or runs as another. Real text in those scripts writes
// whole words in one script, so a mix inside one run of letters is the signal. Punycode hosts (`xn--`) are the same
// trick in ASCII form, worth a look (P1). One pass over the unit, only when it holds such letters.

import type { Report } from "./chars.ts";
import { urlsIn } from "./chars.ts";
import { scannedAscii } from "./prose-anchors.ts";
import type { Unit } from "./text.ts";

// Cyrillic, Greek (and Coptic), Armenian, Cherokee: the scripts with letters shaped like Latin ones.
const CONFUSABLE = /[\u0370-\u03ff\u0400-\u052f\u0531-\u058f\u13a0-\u13ff]/;
const isLatin = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isScript = (c: number) =>
	(c >= 0x370 && c <= 0x3ff) ||
	(c >= 0x400 && c <= 0x52f) ||
	(c >= 0x531 && c <= 0x58f) ||
	(c >= 0x13a0 && c <= 0x13ff);
// The letters of those scripts drawn like Latin ones. A word mixing Latin with other letters of the script (`APIшка`,
// `10μs`) is a loan word or a unit; one made of Latin and only these is a disguise.
const HOMOGLYPHS = new Set([..."аеорсухіјѕԁһԛԝАВЕКМНОРСТХІЈЅοαρνιτυκΑΒΕΖΗΙΚΜΝΟΡΤΥΧօսհոԁ"].map((c) => c.charCodeAt(0)));

/** Mixed-script words (P0 in code and in URL hosts, P1 in prose) and punycode hosts (P1). */
export function lookalikeHits(unit: Unit, report: Report): void {
	const text = unit.text;
	if (text.includes("xn--"))
		for (const url of urlsIn(text))
			if (/(^|\.)xn--/.test(url.host))
				report({ rule: "lookalike-name", unit, start: url.start, end: url.end, severity: "P1" });
	if (scannedAscii(text) || !CONFUSABLE.test(text)) return;
	const hosts = urlsIn(text);
	let start = -1;
	let latin = 0;
	let other = false;
	let foreign = false;
	for (let i = 0; i <= text.length; i++) {
		const c = i < text.length ? text.charCodeAt(i) : 0x20;
		if (isLatin(c) || isScript(c)) {
			if (start === -1) start = i;
			if (isLatin(c)) latin++;
			else if (HOMOGLYPHS.has(c)) other = true;
			else foreign = true;
			continue;
		}
		if (start !== -1 && latin >= 2 && other && !foreign) {
			const inHost = hosts.some((u) => start >= u.start && i <= u.end);
			const code = unit.context === "script" || unit.context === "step" || unit.context === "data";
			report({ rule: "lookalike-name", unit, start, end: i, severity: inHost || code ? "P0" : "P1" });
			return;
		}
		start = -1;
		latin = 0;
		other = false;
		foreign = false;
	}
}
