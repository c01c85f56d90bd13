import type { Profile } from "./codes.ts";
import { decodeRange, findNul } from "./decode.ts";
import { type Diagnostic, type Finding, LineIndex, placeFindings } from "./diagnostics.ts";
import { SkillsetError } from "./errors.ts";
import { type FenceLocation, locateFrontmatter } from "./fences.ts";
import type { FrontmatterField, FrontmatterMap } from "./parsed-yaml.ts";
import { parseFrontmatterYaml } from "./yaml.ts";

/** The SKILL.md cap: 256 KiB. */
export const DEFAULT_MAX_FILE_BYTES: number = 256 * 1024;

/** Options for parsing SKILL.md text. */
export interface ParseSkillOptions {
	/** The file name used in diagnostics. Default `SKILL.md`. */
	file?: string;
	/** `lenient` enables the colon repair and softer severities. Default `strict`. */
	profile?: Profile;
	/** Default 256 KiB. */
	maxFileBytes?: number;
	/** Default 64 KiB. */
	maxFrontmatterBytes?: number;
}

/** Frontmatter that parsed: plain data, field positions, and the index that places them in the file. */
export interface SkillFrontmatter {
	/** The fields as plain data (null-prototype objects, core-schema scalars). */
	data: FrontmatterMap;
	/** The top-level fields in order, with offsets into the YAML text and their source text. */
	fields: ReadonlyMap<string, FrontmatterField>;
	/** Places field offsets in SKILL.md. */
	index: LineIndex;
}

/** A parsed SKILL.md: the frontmatter (null when it could not be read), the body, and what went wrong. */
export interface ParsedSkill {
	frontmatter: SkillFrontmatter | null;
	/** The body after the closing fence, trimmed; undefined when only the frontmatter was read or it failed. */
	body: string | undefined;
	/** Byte offset in the file where the body starts; undefined when the fences were not found. */
	bodyOffset: number | undefined;
	/** 1-based line where the body starts. */
	bodyLine: number | undefined;
	diagnostics: Diagnostic[];
}

/** The result of parsing a prefix of SKILL.md: either parsed, or more bytes are needed to see the closing fence. */
export type ParsedFrontmatterPrefix = ParsedSkill | { needMore: true };

/**
 * Parses a whole SKILL.md (text or bytes): fences, encoding, hardened YAML, and the body. Never throws for bad
 * input: every problem is a diagnostic, and `frontmatter` is null when the frontmatter could not be read.
 */
export function parseSkillMd(source: string | Uint8Array, options: ParseSkillOptions = {}): ParsedSkill {
	const bytes = typeof source === "string" ? new TextEncoder().encode(source) : source;
	const result = parseBytes(bytes, options, true);
	if ("needMore" in result) throw new SkillsetError("internal", "a complete file never needs more bytes");
	return result;
}

/**
 * Parses the frontmatter from a prefix of SKILL.md without reading the body, for discovery. Pass `complete: true`
 * when the prefix is the whole file; otherwise the answer may be `{ needMore: true }`: read more and call again.
 */
export function parseSkillFrontmatter(
	prefix: Uint8Array,
	options: ParseSkillOptions & { complete: boolean },
): ParsedFrontmatterPrefix {
	return parseBytes(prefix, options, options.complete, false);
}

function parseBytes(bytes: Uint8Array, options: ParseSkillOptions, complete: boolean, withBody = true) {
	// Called once per SKILL.md a scan reads: no closures or option objects built per call unless something failed.
	const file = options.file ?? "SKILL.md";
	const profile = options.profile ?? "strict";
	const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
	if (complete && withBody && bytes.length > maxFileBytes) {
		const message = `SKILL.md is ${bytes.length} bytes; the cap is ${maxFileBytes}`;
		return failedParse([{ code: "file.too-large", message }], file, profile);
	}
	const nul = findNul(bytes, 0, bytes.length);
	if (nul !== -1) {
		return failedParse([{ code: "file.binary", message: `SKILL.md has a NUL byte at offset ${nul}` }], file, profile);
	}
	const fences = locateFrontmatter(bytes, { complete, maxFrontmatterBytes: options.maxFrontmatterBytes });
	if (fences.kind === "need-more") return { needMore: true as const };
	if (fences.kind === "failed") return failedParse(fences.findings, file, profile);
	return parseFenced(bytes, fences, file, profile, withBody);
}

/** The parse result of a SKILL.md that could not be parsed: only its diagnostics (a failed read builds on it). */
export function failedParse(findings: Finding[], file: string, profile: Profile): ParsedSkill {
	const diagnostics = placeFindings(findings, { file, profile });
	return { frontmatter: null, body: undefined, bodyOffset: undefined, bodyLine: undefined, diagnostics };
}

function parseFenced(
	bytes: Uint8Array,
	fences: FenceLocation,
	file: string,
	profile: Profile,
	withBody: boolean,
): ParsedSkill {
	const yamlLine = fences.openLine + 1;
	const decoded = decodeRange(bytes, fences.yamlStart, fences.yamlEnd, yamlLine);
	const yaml = parseFrontmatterYaml(decoded.text, { profile });
	const index = new LineIndex(yaml.text, yamlLine);
	// The YAML reader's findings are its own fresh array: taken as they are when nothing comes before them.
	const findings =
		fences.findings.length === 0 && decoded.findings.length === 0
			? yaml.findings
			: [...fences.findings, ...decoded.findings, ...yaml.findings];
	const bodyLine = yamlLine + countNewlines(bytes, fences.yamlStart, fences.bodyStart);
	let body: string | undefined;
	if (withBody) {
		const decodedBody = decodeRange(bytes, fences.bodyStart, bytes.length, bodyLine);
		findings.push(...decodedBody.findings.filter((f) => !findings.some((seen) => seen.code === f.code)));
		body = decodedBody.text.trim();
	}
	return {
		frontmatter: yaml.data ? { data: yaml.data, fields: yaml.fields, index } : null,
		body,
		bodyOffset: fences.bodyStart,
		bodyLine,
		diagnostics: findings.length === 0 ? [] : placeFindings(findings, { file, profile, index }),
	};
}

function countNewlines(bytes: Uint8Array, start: number, end: number): number {
	let count = 0;
	for (let i = bytes.indexOf(0x0a, start); i !== -1 && i < end; i = bytes.indexOf(0x0a, i + 1)) count++;
	return count;
}
