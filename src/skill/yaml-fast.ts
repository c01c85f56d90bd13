import type { FrontmatterField, FrontmatterMap, FrontmatterValue, ParsedYaml } from "./parsed-yaml.ts";

// The fast path for frontmatter: a one-pass reader for the shape nearly every SKILL.md has (top-level `key: value`
// lines, single-line quoted scalars, plain scalars that may fold over indented lines, `|`/`>` block scalars, a
// block list of scalars, a one-level map of scalars). It answers only when it can prove the hardened `yaml` path
// would give exactly the same data, fields, offsets and (no) findings; anything else — comments after values,
// tabs, flow collections, anchors, tags, escapes it does not know, odd indentation, any problem at all — is
// declined with `undefined` and goes to the full parser. test/skill/yaml-fast.test.ts checks the equivalence.

const LF = 10;
const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;

/** Most keys the fast path takes; more is unusual and goes to the full parser (which bounds them itself). */
const MAX_FAST_KEYS = 256;

// Characters the fast path never reasons about: tabs, CR and other controls, DEL and C1 controls (NEL), BOM,
// line and paragraph separators, non-characters, and unpaired surrogates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE_CHARS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|\p{Cs}/u;
// A key the fast path accepts: a plain word that the core schema cannot read as anything but a string.
const KEY = /[A-Za-z_][A-Za-z0-9_-]*/y;
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
const NON_STRING_KEYS: ReadonlySet<string> = new Set(["null", "true", "false"]);
// A plain scalar may not start with an indicator (`?`, `:` and the rest are declined even where YAML allows them),
// except a `-` followed by a non-space character on a value's first line (`name: -my-skill`, `n: -12`), which YAML
// reads as a plain scalar.
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
const HYPHEN_START = /^-[^\s]/;
// Core-schema scalars that are not strings (yaml's `schema: 'core'` tests, YAML 1.2 §10.3.2).
const CORE_NULL = /^(?:~|[Nn]ull|NULL)$/;
const CORE_TRUE = /^(?:[Tt]rue|TRUE)$/;
const CORE_FALSE = /^(?:[Ff]alse|FALSE)$/;
const CORE_INT = /^[-+]?[0-9]{1,15}$/;
const CORE_FLOAT = /^[-+]?[0-9]{1,15}\.[0-9]{0,15}$/;
// Numbers outside the two simple forms above (hex, octal, exponents, infinities, long digit runs): declined.
const OTHER_NUMBER =
	/^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;

/** Signals "not mine": the input is left to the full parser. */
class Decline extends Error {}
const DECLINE = new Decline("declined");

/** A scalar read from one line: its value, source text and where it starts. */
interface Scalar {
	value: FrontmatterValue;
	text: string;
	offset: number;
}

/**
 * Parses frontmatter of the common shape, or returns `undefined` when the text is not of that shape. A result is
 * always identical to what {@link parseFrontmatterYaml}'s full path gives for the same text.
 */
export function parseFrontmatterFast(text: string): ParsedYaml | undefined {
	if (text.length === 0 || text.charCodeAt(text.length - 1) !== LF || UNSAFE_CHARS.test(text)) return undefined;
	try {
		return new FastReader(text).document();
	} catch (error) {
		if (error instanceof Decline) return undefined;
		throw error;
	}
}

class FastReader {
	readonly #text: string;
	/** Start of the line being read. */
	#pos = 0;
	#keys = 0;

	constructor(text: string) {
		this.#text = text;
	}

	document(): ParsedYaml {
		const data: FrontmatterMap = Object.create(null);
		const fields = new Map<string, FrontmatterField>();
		const text = this.#text;
		while (this.#pos < text.length) {
			const end = this.#lineEnd(this.#pos);
			if (this.#isBlank(this.#pos, end)) {
				this.#pos = end + 1;
				continue;
			}
			// Comment lines are legal YAML, but where they end block scalars and lists is subtle: not taken here.
			if (text.charCodeAt(this.#pos) === HASH) throw DECLINE;
			const field = this.#entry();
			if (fields.has(field.key)) throw DECLINE;
			fields.set(field.key, field);
			data[field.key] = field.value;
		}
		if (fields.size === 0) throw DECLINE;
		return { data, fields, text, findings: [] };
	}

	/** One top-level `key: ...` entry, starting at column 0; leaves `#pos` at the line after it. */
	#entry(): FrontmatterField {
		const keyOffset = this.#pos;
		const end = this.#lineEnd(keyOffset);
		const valueStart = this.#key(keyOffset, end);
		const key = this.#text.slice(keyOffset, valueStart - 1);
		const start = this.#skipSpaces(valueStart, end);
		if (start === end) return this.#emptyValue(key, keyOffset, end);
		const code = this.#text.charCodeAt(start);
		if (code === 0x7c || code === 0x3e) return this.#scalarField(key, keyOffset, this.#blockScalar(start, end));
		const scalar = this.#lineScalar(start, end);
		this.#pos = end + 1;
		if (code !== 0x22 && code !== 0x27) return this.#scalarField(key, keyOffset, this.#foldPlain(scalar));
		if (this.#indentAt(this.#nextContentLine()) > 0) throw DECLINE;
		return this.#scalarField(key, keyOffset, scalar);
	}

	/** Reads `key:` at `start`; returns the offset just after the colon. */
	#key(start: number, end: number): number {
		KEY.lastIndex = start;
		if (!KEY.test(this.#text)) throw DECLINE;
		const colon = KEY.lastIndex;
		const after = this.#text.charCodeAt(colon + 1);
		if (colon >= end || this.#text.charCodeAt(colon) !== COLON || (colon + 1 < end && after !== SPACE)) throw DECLINE;
		const key = this.#text.slice(start, colon);
		if (FORBIDDEN_KEYS.has(key) || NON_STRING_KEYS.has(key.toLowerCase())) throw DECLINE;
		if (++this.#keys > MAX_FAST_KEYS) throw DECLINE;
		return colon + 1;
	}

	#scalarField(key: string, keyOffset: number, scalar: Scalar): FrontmatterField {
		return { key, value: scalar.value, text: scalar.text, kind: "scalar", keyOffset, valueOffset: scalar.offset };
	}

	/** `key:` with nothing after it: null, or the block list or map on the following lines. */
	#emptyValue(key: string, keyOffset: number, end: number): FrontmatterField {
		this.#pos = end + 1;
		const next = this.#pos;
		if (next < this.#text.length && !this.#isBlank(next, this.#lineEnd(next))) {
			const indent = this.#indentAt(next);
			if (this.#text.charCodeAt(next + indent) === DASH) return this.#sequence(key, keyOffset, indent);
			if (indent > 0) return this.#mapping(key, keyOffset, indent);
		} else {
			// A nested block after blank lines is legal YAML, but rare enough to leave to the full parser.
			const content = this.#nextContentLine();
			if (content < this.#text.length && this.#text.charCodeAt(content) === SPACE) throw DECLINE;
			if (content < this.#text.length && this.#text.charCodeAt(content) === DASH) throw DECLINE;
		}
		return { key, value: null, text: "", kind: "scalar", keyOffset, valueOffset: end };
	}

	/** A block list of single-line scalars, every `- ` at the same indentation. */
	#sequence(key: string, keyOffset: number, indent: number): FrontmatterField {
		const valueOffset = this.#pos + indent;
		const items: FrontmatterField[] = [];
		const value: FrontmatterValue[] = [];
		while (this.#pos < this.#text.length) {
			const lineStart = this.#pos;
			const end = this.#lineEnd(lineStart);
			if (this.#isBlank(lineStart, end)) break;
			if (this.#indentAt(lineStart) !== indent) break;
			const dash = lineStart + indent;
			if (this.#text.charCodeAt(dash) !== DASH || this.#text.charCodeAt(dash + 1) !== SPACE) break;
			const start = this.#skipSpaces(dash + 1, end);
			if (start === end) throw DECLINE;
			const scalar = this.#lineScalar(start, end);
			const index = String(items.length);
			items.push(this.#scalarField(index, valueOffset, scalar));
			value.push(scalar.value);
			this.#pos = end + 1;
		}
		this.#expectTopLevel();
		return { key, value, text: undefined, kind: "sequence", keyOffset, valueOffset, items };
	}

	/** A one-level map of single-line scalars, every key at the same indentation. */
	#mapping(key: string, keyOffset: number, indent: number): FrontmatterField {
		const valueOffset = this.#pos + indent;
		const value: FrontmatterMap = Object.create(null);
		const children = new Map<string, FrontmatterField>();
		while (this.#pos < this.#text.length) {
			const lineStart = this.#pos;
			const end = this.#lineEnd(lineStart);
			if (this.#isBlank(lineStart, end) || this.#indentAt(lineStart) !== indent) break;
			const childOffset = lineStart + indent;
			const valueStart = this.#key(childOffset, end);
			const childKey = this.#text.slice(childOffset, valueStart - 1);
			const start = this.#skipSpaces(valueStart, end);
			if (start === end || children.has(childKey)) throw DECLINE;
			const scalar = this.#lineScalar(start, end);
			children.set(childKey, this.#scalarField(childKey, childOffset, scalar));
			value[childKey] = scalar.value;
			this.#pos = end + 1;
		}
		this.#expectTopLevel();
		return { key, value, text: undefined, kind: "mapping", keyOffset, valueOffset, children };
	}

	/** After a nested block, the next line with content must be a top-level one. */
	#expectTopLevel(): void {
		const next = this.#nextContentLine();
		if (next < this.#text.length && this.#text.charCodeAt(next) === SPACE) throw DECLINE;
		if (next < this.#text.length && this.#text.charCodeAt(next) === DASH) throw DECLINE;
	}

	/** A scalar that ends on its line: quoted, or plain (typed by the core schema). Trailing spaces may follow. */
	#lineScalar(start: number, end: number): Scalar {
		const code = this.#text.charCodeAt(start);
		if (code === 0x22) return this.#doubleQuoted(start, end);
		if (code === 0x27) return this.#singleQuoted(start, end);
		const raw = this.#plainLine(start, end, true);
		return { value: coreValue(raw), text: raw, offset: start };
	}

	/**
	 * The trimmed text of one line of a plain scalar, declined where YAML would see a comment or a mapping. Only a
	 * value's `first` line may start with `-x`: on a continuation line that is left to the full parser.
	 */
	#plainLine(start: number, end: number, first = false): string {
		const raw = this.#text.slice(start, this.#trimEnd(start, end));
		if (INDICATOR_START.test(raw) && !(first && HYPHEN_START.test(raw))) throw DECLINE;
		if (raw.includes(": ") || raw.includes(" #") || raw.endsWith(":")) throw DECLINE;
		return raw;
	}

	/** Folds indented continuation lines into a top-level plain scalar, as YAML does. */
	#foldPlain(first: Scalar): Scalar {
		let folded = first.text;
		let lines = 1;
		for (;;) {
			let breaks = 0;
			let pos = this.#pos;
			while (pos < this.#text.length && this.#isBlank(pos, this.#lineEnd(pos))) {
				pos = this.#lineEnd(pos) + 1;
				breaks++;
			}
			if (pos >= this.#text.length || this.#text.charCodeAt(pos) !== SPACE) break;
			const end = this.#lineEnd(pos);
			const start = this.#skipSpaces(pos, end);
			const part = this.#plainLine(start, end);
			folded += breaks === 0 ? ` ${part}` : "\n".repeat(breaks) + part;
			lines++;
			this.#pos = end + 1;
		}
		if (lines === 1) return first;
		return { value: coreValue(folded), text: folded, offset: first.offset };
	}

	#doubleQuoted(start: number, end: number): Scalar {
		let value = "";
		let pos = start + 1;
		for (;;) {
			const quote = this.#text.indexOf('"', pos);
			const slash = this.#text.indexOf("\\", pos);
			if (quote === -1 || quote >= end) throw DECLINE;
			if (slash === -1 || slash > quote) {
				value += this.#text.slice(pos, quote);
				pos = quote + 1;
				break;
			}
			value += this.#text.slice(pos, slash) + this.#escape(slash);
			pos = slash + (this.#text.charCodeAt(slash + 1) === 0x75 ? 6 : 2);
		}
		this.#onlySpacesAfter(pos, end);
		return { value, text: value, offset: start };
	}

	/** The character of the escape at `slash`: only the unambiguous JSON-like ones are taken. */
	#escape(slash: number): string {
		const next = this.#text[slash + 1];
		if (next === '"' || next === "\\" || next === "/") return next;
		if (next === "n") return "\n";
		if (next === "t") return "\t";
		if (next !== "u") throw DECLINE;
		const hex = this.#text.slice(slash + 2, slash + 6);
		if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw DECLINE;
		const code = Number.parseInt(hex, 16);
		if (code >= 0xd800 && code <= 0xdfff) throw DECLINE;
		return String.fromCharCode(code);
	}

	#singleQuoted(start: number, end: number): Scalar {
		let value = "";
		let pos = start + 1;
		for (;;) {
			const quote = this.#text.indexOf("'", pos);
			if (quote === -1 || quote >= end) throw DECLINE;
			value += this.#text.slice(pos, quote);
			if (this.#text.charCodeAt(quote + 1) !== 0x27) {
				pos = quote + 1;
				break;
			}
			value += "'";
			pos = quote + 2;
		}
		this.#onlySpacesAfter(pos, end);
		return { value, text: value, offset: start };
	}

	#onlySpacesAfter(pos: number, end: number): void {
		if (this.#skipSpaces(pos, end) !== end) throw DECLINE;
	}

	/** A `|` or `>` block scalar whose header is at `start`; leaves `#pos` at the first line after it. */
	#blockScalar(start: number, end: number): Scalar {
		const literal = this.#text.charCodeAt(start) === 0x7c;
		const chomp = this.#text[start + 1];
		const headerEnd = chomp === "-" || chomp === "+" ? start + 2 : start + 1;
		this.#onlySpacesAfter(headerEnd, end);
		const lines = this.#blockLines(end + 1);
		let value = "";
		let blanks = 0;
		for (const [index, line] of lines.content.entries()) {
			if (line === undefined) {
				blanks++;
				continue;
			}
			if (!literal && line.charCodeAt(0) === SPACE) throw DECLINE;
			if (index > 0) value += literal ? "\n".repeat(blanks + 1) : blanks === 0 ? " " : "\n".repeat(blanks);
			value += line;
			blanks = 0;
		}
		if (chomp === "+") value += "\n".repeat(1 + lines.trailing);
		else if (chomp !== "-") value += "\n";
		return { value, text: value, offset: start };
	}

	/** The lines of a block scalar body (undefined for blank lines), and the blank lines after the last one. */
	#blockLines(from: number): { content: (string | undefined)[]; trailing: number } {
		const first = from < this.#text.length ? this.#indentAt(from) : 0;
		if (first === 0 || this.#isBlank(from, this.#lineEnd(from))) throw DECLINE;
		const content: (string | undefined)[] = [];
		let trailing = 0;
		let pos = from;
		while (pos < this.#text.length) {
			const end = this.#lineEnd(pos);
			const indent = this.#indentAt(pos);
			if (pos + indent === end) {
				// A whitespace-only line longer than the indentation is content in YAML; not taken here.
				if (indent > first) throw DECLINE;
				trailing++;
			} else if (indent >= first) {
				for (; trailing > 0; trailing--) content.push(undefined);
				content.push(this.#text.slice(pos + first, end));
			} else if (indent > 0) throw DECLINE;
			else break;
			pos = end + 1;
		}
		this.#pos = pos;
		return { content, trailing };
	}

	#lineEnd(pos: number): number {
		const end = this.#text.indexOf("\n", pos);
		return end === -1 ? this.#text.length : end;
	}

	#indentAt(pos: number): number {
		let at = pos;
		while (this.#text.charCodeAt(at) === SPACE) at++;
		return at - pos;
	}

	#skipSpaces(pos: number, end: number): number {
		let at = pos;
		while (at < end && this.#text.charCodeAt(at) === SPACE) at++;
		return at;
	}

	#trimEnd(start: number, end: number): number {
		let at = end;
		while (at > start && this.#text.charCodeAt(at - 1) === SPACE) at--;
		return at;
	}

	#isBlank(start: number, end: number): boolean {
		return this.#skipSpaces(start, end) === end;
	}

	/** Start of the next line at or after `#pos` that is not blank (or the end of the text). */
	#nextContentLine(): number {
		let pos = this.#pos;
		while (pos < this.#text.length) {
			const end = this.#lineEnd(pos);
			if (!this.#isBlank(pos, end)) return pos;
			pos = end + 1;
		}
		return pos;
	}
}

/** What the core schema makes of a plain scalar, or a decline for the number forms not taken here. */
function coreValue(raw: string): FrontmatterValue {
	if (CORE_NULL.test(raw)) return null;
	if (CORE_TRUE.test(raw)) return true;
	if (CORE_FALSE.test(raw)) return false;
	if (CORE_INT.test(raw)) return Number.parseInt(raw, 10);
	if (CORE_FLOAT.test(raw)) return Number.parseFloat(raw);
	if (OTHER_NUMBER.test(raw)) throw DECLINE;
	return raw;
}
