import type { ParsedYaml } from "./parsed-yaml.ts";
import { parseFrontmatterFast } from "./yaml-fast.ts";
import { repairColonValues, repairFindings } from "./yaml-repair.ts";

// A top-level line the colon repair may touch and still be answered here: a plain key, then a one-line value with
// no YAML punctuation at all, so the full parser is sure to fail on it (a nested mapping in a compact one).
const SIMPLE_COLON_LINE = /^[A-Za-z_][A-Za-z0-9_-]*: +[^-?:,\s[\]{}&*!|>'"%@`#\\][^\t[\]{}&*!|>'"%@`#\\]*$/;
// Fewer colons than this cannot reach the full parser's key bound (MAX_YAML_KEYS in yaml.ts).
const MAX_REPAIR_COLONS = 1000;

/**
 * The lenient colon repair (see `yaml-repair.ts`) without the `yaml` package, for the plainest case: every repaired
 * line is a top-level one-line `key: value` whose value has `: ` and no YAML punctuation, and the repaired text is
 * of the fast shape. The full path would fail on the original, repair it and parse the repaired text: this gives
 * that result. `undefined` for anything else.
 */
export function parseRepairedFast(text: string): ParsedYaml | undefined {
	let colons = 0;
	for (let i = text.indexOf(":"); i !== -1; i = text.indexOf(":", i + 1)) {
		if (++colons >= MAX_REPAIR_COLONS) return undefined;
	}
	const repair = repairColonValues(text);
	if (!repair) return undefined;
	const before = text.split("\n");
	const after = repair.text.split("\n");
	const repaired = new Set(repair.lines);
	for (const [index, line] of before.entries()) {
		// An unchanged line must stay as it was: a folded continuation (now blank) is left to the full parser.
		if (repaired.has(index) ? !SIMPLE_COLON_LINE.test(line) : line !== after[index]) return undefined;
	}
	const parsed = parseFrontmatterFast(repair.text);
	if (!parsed || repair.lines.some((index) => hasKeyLike(before[index] ?? "", parsed))) return undefined;
	parsed.findings.push(...repairFindings(repair));
	return parsed;
}

/**
 * Whether a word the full parser would read as a key inside the broken value (`a: Note: x` has `Note`) is also a
 * key of the document: the parser's error recovery then reports a duplicate key, which is not repaired.
 */
function hasKeyLike(line: string, parsed: ParsedYaml): boolean {
	const value = line.slice(line.indexOf(": ") + 2);
	const parts = value.split(/:(?: |$)/);
	const keys = new Set<string>();
	for (const field of parsed.fields.values()) {
		keys.add(field.key);
		for (const child of field.children?.keys() ?? []) keys.add(child);
	}
	return parts.slice(0, -1).some((part) => keys.has(part.trim()));
}
