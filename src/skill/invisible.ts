/**
 * Characters a reader cannot see but a model still reads: the Unicode tag block (U+E0000–E007F, used to smuggle
 * hidden instructions), bidirectional controls (which reorder what a person sees), and zero-width and other
 * invisible format characters. Catalog fields are shown to a model and a person alike, so they are removed there
 * and reported by validation (`field.invisible-chars`).
 */
const INVISIBLE_SOURCE =
	"[\\u{E0000}-\\u{E007F}\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFEFF\\uFFA0\\u{1D173}-\\u{1D17A}\\u{E0100}-\\u{E01EF}]";

const INVISIBLE = new RegExp(INVISIBLE_SOURCE, "u");
const INVISIBLE_ALL = new RegExp(INVISIBLE_SOURCE, "gu");

/** True when `text` holds a character of {@link stripInvisible}'s set. */
export function hasInvisibleChars(text: string): boolean {
	return INVISIBLE.test(text);
}

/**
 * The invisible characters in `text`, summarised by kind with counts and the first code point of each, e.g.
 * `15 Unicode tag characters (U+E0049 first), 1 zero-width or other invisible character (U+200B first)`.
 */
export function describeInvisibleChars(text: string): string {
	const kinds = new Map<string, { count: number; first: string }>();
	for (const match of text.matchAll(INVISIBLE_ALL)) {
		const point = match[0].codePointAt(0) ?? 0;
		const kind =
			point >= 0xe0000
				? "Unicode tag or variation character"
				: BIDI.test(match[0])
					? "bidi control"
					: "zero-width or other invisible character";
		const seen = kinds.get(kind) ?? { count: 0, first: `U+${point.toString(16).toUpperCase().padStart(4, "0")}` };
		seen.count++;
		kinds.set(kind, seen);
	}
	return [...kinds]
		.map(([kind, { count, first }]) => `${count} ${kind}${count === 1 ? "" : "s"} (${first} first)`)
		.join(", ");
}

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** `text` without tag characters, bidi controls, zero-width and other invisible format characters. */
export function stripInvisible(text: string): string {
	return INVISIBLE.test(text) ? text.replace(INVISIBLE_ALL, "") : text;
}
