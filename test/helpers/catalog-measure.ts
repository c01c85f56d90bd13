// Reads a markdown catalog as a model would, and measures what issue 20 asks of it: every name present, the
// described skills spread over the alphabet like all names, described entries long enough to say when to use them.

/** What a markdown catalog shows. */
export interface ReadCatalog {
	/** Skills listed with a description, in text order. */
	described: { name: string; description: string }[];
	/** Skills listed by name only. */
	named: string[];
	/** The count in the "N more skills are not listed" line, 0 without one. */
	more: number;
}

const NAMES_LINE = /^- (?:Also available|Available) — load by name or search_skills: (.*)$/;
const MORE_LINE = /^- (\d+) more skills? (?:is|are) not listed/;

/** Splits a names line into names: plain names between ", ", or JSON-quoted ones. */
export function splitNames(list: string): string[] {
	const names: string[] = [];
	let rest = list;
	while (rest.length > 0) {
		if (rest.startsWith('"')) {
			const match = /^"(?:[^"\\]|\\.)*"/.exec(rest);
			if (!match) throw new Error(`unterminated quoted name in: ${rest}`);
			names.push(JSON.parse(match[0]) as string);
			rest = rest.slice(match[0].length);
		} else {
			const end = rest.indexOf(", ");
			names.push(end < 0 ? rest : rest.slice(0, end));
			rest = end < 0 ? "" : rest.slice(end);
		}
		if (rest.startsWith(", ")) rest = rest.slice(2);
		else if (rest.length > 0) throw new Error(`names not separated by ", " at: ${rest}`);
	}
	return names;
}

/** Parses the markdown catalog text into what it shows. */
export function readMarkdownCatalog(text: string): ReadCatalog {
	const read: ReadCatalog = { described: [], named: [], more: 0 };
	for (const line of text.split("\n").filter(Boolean)) {
		const names = NAMES_LINE.exec(line);
		const more = MORE_LINE.exec(line);
		if (names) read.named.push(...splitNames(names[1] ?? ""));
		else if (more) read.more = Number(more[1]);
		else {
			const entry = /^- ([^:]+?)(?:: (.*))?$/.exec(line);
			if (!entry) throw new Error(`not a catalog line: ${line}`);
			read.described.push({ name: entry[1] ?? "", description: entry[2] ?? "" });
		}
	}
	return read;
}

/** Words of a description, without the ellipses that mark cuts. */
export function wordCount(description: string): number {
	return description.replaceAll("…", " ").split(/\s+/).filter(Boolean).length;
}

/** The median of some numbers (0 for none). */
export function median(values: readonly number[]): number {
	if (values.length === 0) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * Groups the letters into `count` contiguous ranges holding about equal shares of all names, and gives, per range,
 * the described skills' share divided by all names' share (1 is a fair spread; the issue allows at most 2).
 */
export function letterSpread(all: readonly string[], described: readonly string[], count = 5) {
	const initial = (name: string) => name.charAt(0).toLowerCase();
	const letters = [...new Set(all.map(initial))].sort();
	const perLetter = new Map(letters.map((l) => [l, all.filter((n) => initial(n) === l).length]));
	const ranges: string[][] = [[]];
	let filled = 0;
	for (const letter of letters) {
		const current = ranges.at(-1) as string[];
		if (current.length > 0 && filled >= (all.length * ranges.length) / count && ranges.length < count) {
			ranges.push([letter]);
		} else current.push(letter);
		filled += perLetter.get(letter) ?? 0;
	}
	return ranges.map((range) => {
		const inRange = (name: string) => range.includes(initial(name));
		const share = all.filter(inRange).length / all.length;
		const describedShare = described.length > 0 ? described.filter(inRange).length / described.length : 0;
		return { range: `${range[0]}–${range.at(-1)}`, share, describedShare, ratio: describedShare / share };
	});
}
