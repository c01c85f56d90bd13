import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type { Document, DocumentOptions, ParseOptions, SchemaOptions, YAMLError, YAMLMap } from "yaml";
import type { Profile } from "./codes.ts";
import type { Finding } from "./diagnostics.ts";
import type { FrontmatterField, FrontmatterMap, FrontmatterValue, ParsedYaml } from "./parsed-yaml.ts";
import { parseFrontmatterFast } from "./yaml-fast.ts";
import { parseRepairedFast } from "./yaml-fast-repair.ts";
import { MAX_YAML_DEPTH, MAX_YAML_KEYS } from "./yaml-limits.ts";
import { repairColonValues, repairFindings } from "./yaml-repair.ts";

/** Options for {@link parseFrontmatterYaml}. */
export interface ParseYamlOptions {
	/**
	 * `lenient` tries the colon repair when the YAML does not parse; `strict` (default) reports flow collections,
	 * which the reference validator rejects.
	 */
	profile?: Profile;
}

let yamlModule: typeof Yaml | undefined;

/** The `yaml` package, loaded on first use: frontmatter the fast path answers never needs it, nor does start-up. */
function yaml(): typeof Yaml {
	yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
	return yamlModule;
}

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
	version: "1.2",
	schema: "core",
	merge: false,
	uniqueKeys: true,
	stringKeys: true,
	resolveKnownTags: false,
	logLevel: "silent",
	prettyErrors: false,
	strict: true,
};

/**
 * Parses frontmatter YAML the hardened way: a lexer pre-scan bounds nesting and key count before the parser runs,
 * then one document only, core schema, no merge keys, no aliases or anchors, no tags or directives, unique keys,
 * warnings as errors, `__proto__`/`constructor`/`prototype` rejected, and null-prototype results. Frontmatter of
 * the common shape is answered by a one-pass reader that gives exactly the same result (`yaml-fast.ts`); the `yaml`
 * package is loaded only for the rest.
 */
export function parseFrontmatterYaml(text: string, options: ParseYamlOptions = {}): ParsedYaml {
	const fast = parseFrontmatterFast(text) ?? (options.profile === "lenient" ? parseRepairedFast(text) : undefined);
	return fast ?? parseFrontmatterYamlFull(text, options);
}

/** The full, hardened path of {@link parseFrontmatterYaml}, without the fast path (which must agree with it). */
export function parseFrontmatterYamlFull(text: string, options: ParseYamlOptions = {}): ParsedYaml {
	const failed = (findings: Finding[]): ParsedYaml => ({ data: null, fields: new Map(), text, findings });
	const prescan = prescanYaml(text);
	if (prescan.length > 0) return failed(prescan);
	const strict = options.profile !== "lenient";
	const first = parseOnce(text, strict);
	if (first.data !== null || strict || !first.repairable) return parsedOf(first);
	const repair = repairColonValues(text);
	if (!repair) return parsedOf(first);
	const second = parsedOf(parseOnce(repair.text, strict));
	if (second.data === null) return parsedOf(first);
	second.findings.push(...repairFindings(repair));
	return second;
}

/** The result without the internal `repairable` flag, so callers see exactly a {@link ParsedYaml}. */
function parsedOf(once: ParseOnce): ParsedYaml {
	return { data: once.data, fields: once.fields, text: once.text, findings: once.findings };
}

/** Rejects input whose flow nesting or key count would make the parser itself the danger. */
function prescanYaml(text: string): Finding[] {
	let depth = 0;
	let keys = 0;
	let offset = 0;
	const { CST, Lexer } = yaml();
	for (const token of new Lexer().lex(text)) {
		const type = CST.tokenType(token);
		if (type === "flow-map-start" || type === "flow-seq-start") {
			depth++;
			if (depth > MAX_YAML_DEPTH) {
				return [{ code: "yaml.too-deep", message: `Nesting deeper than ${MAX_YAML_DEPTH} levels`, at: offset }];
			}
		} else if (type === "flow-map-end" || type === "flow-seq-end") depth--;
		else if (type === "map-value-ind" && ++keys > MAX_YAML_KEYS) {
			return [{ code: "yaml.too-many-keys", message: `More than ${MAX_YAML_KEYS} keys`, at: offset }];
		}
		offset += token.length;
	}
	return [];
}

interface ParseOnce extends ParsedYaml {
	/** True when the only problems are syntax errors that the colon repair might fix. */
	repairable: boolean;
}

function parseOnce(text: string, reportFlow: boolean): ParseOnce {
	const result: ParseOnce = { data: null, fields: new Map(), text, findings: [], repairable: false };
	const documents = yaml().parseAllDocuments(text, YAML_OPTIONS);
	if (documents.length > 1) {
		const second = documents[1]?.range[0] ?? 0;
		result.findings.push({ code: "yaml.multiple-documents", message: "More than one YAML document", at: second });
		return result;
	}
	const document = documents[0];
	if (!document) {
		result.findings.push({ code: "frontmatter.not-mapping", message: "The frontmatter is empty", at: 0 });
		return result;
	}
	result.findings.push(...documentProblems(document));
	if (result.findings.length > 0) {
		result.repairable = result.findings.every((f) => f.code === "yaml.invalid");
		return result;
	}
	const contents = document.contents;
	if (!yaml().isMap(contents)) {
		const at = contents?.range[0] ?? 0;
		result.findings.push({
			code: "frontmatter.not-mapping",
			message: "SKILL.md frontmatter must be a YAML mapping",
			at,
		});
		return result;
	}
	const converter = new Converter(reportFlow);
	const data = converter.map(contents, 1);
	result.findings.push(...converter.findings);
	if (converter.fatal) return result;
	result.data = data;
	result.fields = childFields(contents, data);
	return result;
}

function documentProblems(document: Document.Parsed): Finding[] {
	// Syntax errors cascade: after the first, the parser's later complaints are mostly echoes of it.
	const findings = [...document.errors, ...document.warnings]
		.map(yamlErrorFinding)
		.filter(
			(finding, index, all) =>
				finding.code !== "yaml.invalid" || all.findIndex((f) => f.code === "yaml.invalid") === index,
		);
	const { directives } = document;
	const customTags = Object.keys(directives.tags).filter((handle) => handle !== "!!" && handle !== "!");
	if (directives.yaml.explicit || customTags.length > 0) {
		findings.push({ code: "yaml.directive", message: "YAML directives (%YAML, %TAG) are not allowed", at: 0 });
	}
	return findings;
}

function yamlErrorFinding(error: YAMLError): Finding {
	const at = error.pos[0];
	const message = error.message.split("\n")[0] ?? error.message;
	if (error.code === "DUPLICATE_KEY") return { code: "yaml.duplicate-key", message: "Map keys must be unique", at };
	if (error.code === "TAG_RESOLVE_FAILED") return { code: "yaml.tag", message, at };
	return { code: "yaml.invalid", message: `Invalid YAML in frontmatter: ${message}`, at };
}

/** Copies YAML nodes into plain null-prototype data, reporting what the hardened profile forbids. */
class Converter {
	readonly findings: Finding[] = [];
	readonly #reportFlow: boolean;
	fatal = false;

	constructor(reportFlow: boolean) {
		this.#reportFlow = reportFlow;
	}

	value(node: unknown, depth: number): FrontmatterValue {
		if (!node) return null;
		if (depth > MAX_YAML_DEPTH) return this.#reject("yaml.too-deep", `Nesting deeper than ${MAX_YAML_DEPTH}`, node);
		if (yaml().isAlias(node)) return this.#reject("yaml.alias", `Alias *${node.source} is not allowed`, node);
		if (yaml().isNode(node)) {
			if (node.anchor) this.#reject("yaml.alias", `Anchor &${node.anchor} is not allowed`, node);
			if (node.tag) this.#reject("yaml.tag", `Tag ${node.tag} is not allowed`, node);
		}
		if (yaml().isMap(node)) return this.map(node, depth);
		if (yaml().isSeq(node)) {
			this.#flow(node);
			return node.items.map((item) => this.value(item, depth + 1));
		}
		if (yaml().isScalar(node)) return scalarValue(node.value, node.source);
		return this.#reject("yaml.invalid", "Unsupported YAML node", node);
	}

	map(node: YAMLMap, depth: number): FrontmatterMap {
		this.#flow(node);
		const out: FrontmatterMap = Object.create(null);
		for (const pair of node.items) {
			const key = yaml().isScalar(pair.key) ? String(pair.key.value ?? "") : "";
			if (FORBIDDEN_KEYS.has(key)) {
				this.#reject("yaml.forbidden-key", `The key '${key}' is not allowed`, pair.key);
				continue;
			}
			out[key] = this.value(pair.value, depth + 1);
		}
		return out;
	}

	#flow(node: { flow?: boolean; range?: [number, number, number] | null }): void {
		if (!node.flow || !this.#reportFlow) return;
		this.findings.push({
			code: "yaml.flow-style",
			message: "Flow collections ([...] and {...}) are not allowed by the reference validator",
			at: node.range?.[0] ?? 0,
		});
	}

	#reject(code: Finding["code"], message: string, node: unknown): null {
		const at = yaml().isNode(node) || yaml().isAlias(node) ? (node.range?.[0] ?? 0) : 0;
		this.findings.push({ code, message, at });
		this.fatal = true;
		return null;
	}
}

function scalarValue(value: unknown, source: string | undefined): FrontmatterValue {
	const type = typeof value;
	if (value === null || type === "string" || type === "boolean" || type === "number") return value as FrontmatterValue;
	return source ?? String(value);
}

function childFields(map: YAMLMap, data: FrontmatterMap): Map<string, FrontmatterField> {
	const fields = new Map<string, FrontmatterField>();
	for (const pair of map.items) {
		if (!yaml().isScalar(pair.key)) continue;
		const key = String(pair.key.value ?? "");
		if (!Object.hasOwn(data, key)) continue;
		fields.set(key, describeNode(key, pair.key.range?.[0] ?? 0, pair.value, data[key] ?? null));
	}
	return fields;
}

function describeNode(key: string, keyOffset: number, node: unknown, value: FrontmatterValue): FrontmatterField {
	const valueOffset = yaml().isNode(node) ? (node.range?.[0] ?? keyOffset) : keyOffset;
	const field: FrontmatterField = { key, value, text: undefined, kind: "scalar", keyOffset, valueOffset };
	if (yaml().isMap(node) && value !== null && typeof value === "object" && !Array.isArray(value)) {
		field.kind = "mapping";
		field.children = childFields(node, value);
	} else if (yaml().isSeq(node) && Array.isArray(value)) {
		field.kind = "sequence";
		field.items = node.items.map((item, index) => describeNode(String(index), valueOffset, item, value[index] ?? null));
	} else {
		field.text = yaml().isScalar(node) ? (node.source ?? String(node.value ?? "")) : "";
	}
	return field;
}
