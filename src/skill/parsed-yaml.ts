import type { Finding } from "./diagnostics.ts";

// What parsing frontmatter YAML gives, whichever reader gave it: the one-pass reader (`yaml-fast.ts`, with its
// lenient repair) and the `yaml` package (`yaml.ts`) both produce exactly these values.

/** A frontmatter value: YAML core-schema scalars, lists, and null-prototype mappings. */
export type FrontmatterValue = string | number | boolean | null | FrontmatterValue[] | FrontmatterMap;

/** A mapping from the frontmatter. It has a null prototype, so no key is inherited. */
export interface FrontmatterMap {
	[key: string]: FrontmatterValue;
}

/** One top-level field, with where it is and how it was written. Offsets index the YAML text. */
export interface FrontmatterField {
	key: string;
	value: FrontmatterValue;
	/** A scalar's text as written, quotes and escapes resolved (`1.0` stays "1.0"); undefined for collections. */
	text: string | undefined;
	kind: "scalar" | "sequence" | "mapping";
	keyOffset: number;
	valueOffset: number;
	/** The entries of a mapping value, in order. */
	children?: Map<string, FrontmatterField>;
	/** The items of a list value (their `key` is the index). */
	items?: FrontmatterField[];
}

/** The outcome of parsing frontmatter YAML. `data` is null when the YAML was rejected. */
export interface ParsedYaml {
	data: FrontmatterMap | null;
	fields: Map<string, FrontmatterField>;
	/** The text the offsets refer to: the input, or its repaired form. */
	text: string;
	findings: Finding[];
}
