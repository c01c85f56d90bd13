import type { Finding } from "./diagnostics.ts";

/** A frontmatter text with unquoted `: ` values quoted, and the 0-based lines that were changed. */
export interface RepairedYaml {
	text: string;
	lines: number[];
}

// `key: value` (optionally as a `- key: value` list item) where the key is a plain word.
const KEY_VALUE = /^(\s*(?:-\s+)?)([A-Za-z0-9_][\w.-]*):[ \t]+(\S.*)$/;
// Values that already have YAML meaning: quoted, flow, block scalar, anchor, alias, tag, comment, reserved.
const SPECIAL_START = /^["'[{|>&*!#%@`]/;

/**
 * The client guide's fallback for skills written for lenient clients: a plain value that contains `: ` (which
 * YAML reads as a nested mapping) is wrapped in double quotes, folding its continuation lines into it. Lines keep
 * their numbers (folded lines become blank), so positions stay true. Returns null when no line qualifies.
 */
export function repairColonValues(text: string): RepairedYaml | null {
	const lines = text.split("\n");
	const repaired: number[] = [];
	for (let i = 0; i < lines.length; i++) {
		const match = KEY_VALUE.exec(lines[i] ?? "");
		if (!match) continue;
		const [, prefix = "", key = "", rawValue = ""] = match;
		const value = stripComment(rawValue).trim();
		if (SPECIAL_START.test(value) || !(value.includes(": ") || value.endsWith(":"))) continue;
		const indent = prefix.length;
		const parts = [value];
		let next = i + 1;
		while (next < lines.length && isContinuation(lines[next] ?? "", indent)) {
			parts.push(stripComment(lines[next] ?? "").trim());
			lines[next] = "";
			next++;
		}
		lines[i] = `${prefix}${key}: ${JSON.stringify(parts.join(" "))}`;
		repaired.push(i);
		i = next - 1;
	}
	return repaired.length === 0 ? null : { text: lines.join("\n"), lines: repaired };
}

function isContinuation(line: string, keyIndent: number): boolean {
	if (line.trim() === "" || line.trimStart().startsWith("#")) return false;
	return line.length - line.trimStart().length > keyIndent;
}

/** Drops a ` #` comment from a plain scalar, as YAML would. */
function stripComment(value: string): string {
	const at = value.search(/\s#/);
	return at === -1 ? value : value.slice(0, at);
}

/** The `yaml.repaired` findings for a repair, one per changed line, placed in the repaired text. */
export function repairFindings(repair: RepairedYaml): Finding[] {
	const starts = [0];
	for (let i = repair.text.indexOf("\n"); i !== -1; i = repair.text.indexOf("\n", i + 1)) starts.push(i + 1);
	return repair.lines.map((line) => ({
		code: "yaml.repaired",
		message: "A value containing ': ' was quoted to make the YAML valid",
		at: starts[line] ?? 0,
	}));
}
