import type { Profile } from "./codes.ts";
import { codePointsOver, type Finding } from "./diagnostics.ts";
import {
	EXTENSION_FIELDS,
	EXTENSION_SETS,
	type ExtensionSet,
	extensionFieldType,
	type FieldType,
	SPEC_FIELDS,
} from "./fields.ts";
import { describeInvisibleChars, hasInvisibleChars } from "./invisible.ts";
import { checkSkillName, isNonAsciiName, normalizeSkillName } from "./names.ts";
import type { FrontmatterField } from "./parsed-yaml.ts";
import type { SkillProperties } from "./properties.ts";
import { readExtensionFields, readOptionalSpecFields } from "./validate-fields.ts";

/** Spec §description: 1-1024 characters. */
export const MAX_DESCRIPTION_CODE_POINTS = 1024;

/** Options for {@link validateFrontmatter}. */
export interface ValidateOptions {
	/** `strict` (default) follows the spec and the reference validator; `lenient` warns and loads. */
	profile?: Profile;
	/** The skill directory's base name, for the name match (and the lenient fallback). */
	dirName?: string;
	/** Extra top-level fields that strict validation accepts. */
	allowFields?: readonly string[];
	/** Extension sets that strict validation accepts (lenient understands all of them). */
	allowExtensions?: readonly ExtensionSet[];
}

/** The outcome of {@link validateFrontmatter}: properties when a name and description could be read. */
export interface FrontmatterValidation {
	properties: SkillProperties | null;
	/** Offsets index the YAML text the fields came from. */
	findings: Finding[];
}

/**
 * Checks parsed frontmatter fields against a validation profile and reads them into {@link SkillProperties}.
 * Strict agrees with the reference validator; lenient downgrades what a client can live with to warnings, maps
 * WorkBuddy `title`/`summary` onto missing `name`/`description`, and falls back to the directory name.
 */
export function validateFrontmatter(
	fields: ReadonlyMap<string, FrontmatterField>,
	options: ValidateOptions = {},
): FrontmatterValidation {
	const profile = options.profile ?? "strict";
	const findings: Finding[] = [];
	const known = knownFields(profile, options);
	checkUnknownFields(fields, known, findings);
	const name = readName(fields, profile, options.dirName, findings);
	const description = readDescription(fields, profile, findings);
	checkInvisible(fields, findings);
	const properties: SkillProperties = {
		name: name?.id ?? "",
		description: description ?? "",
		extra: Object.create(null),
	};
	if (name?.declared !== undefined && name.declared !== name.id) properties.declaredName = name.declared;
	readOptionalSpecFields(fields, properties, findings);
	readExtensionFields(fields, known, profile, properties, findings);
	const complete = name !== undefined && description !== undefined;
	return { properties: complete ? properties : null, findings };
}

// The lenient table without `allowFields`, built once: discovery validates every skill with it.
let lenientKnown: ReadonlyMap<string, FieldType | null> | undefined;

/** The field names a profile accepts, each with its type when it is an extension field. Never mutated by callers. */
function knownFields(profile: Profile, options: ValidateOptions): ReadonlyMap<string, FieldType | null> {
	if (profile === "lenient" && (options.allowFields ?? []).length === 0) {
		lenientKnown ??= buildKnownFields(profile, {});
		return lenientKnown;
	}
	return buildKnownFields(profile, options);
}

function buildKnownFields(profile: Profile, options: ValidateOptions): Map<string, FieldType | null> {
	const known = new Map<string, FieldType | null>(SPEC_FIELDS.map((field) => [field, null]));
	const sets = profile === "lenient" ? EXTENSION_SETS : (options.allowExtensions ?? []);
	for (const set of sets) {
		for (const [field, type] of Object.entries(EXTENSION_FIELDS[set])) known.set(field, type);
	}
	for (const field of options.allowFields ?? []) {
		if (!known.has(field)) known.set(field, extensionFieldType(field) ?? null);
	}
	return known;
}

function checkUnknownFields(
	fields: ReadonlyMap<string, FrontmatterField>,
	known: ReadonlyMap<string, unknown>,
	out: Finding[],
) {
	for (const field of fields.values()) {
		if (known.has(field.key)) continue;
		out.push({
			code: "field.unknown",
			message: `Unexpected field in frontmatter: '${field.key}'`,
			at: field.keyOffset,
			field: field.key,
		});
	}
}

interface ResolvedName {
	id: string;
	declared?: string;
}

function readName(
	fields: ReadonlyMap<string, FrontmatterField>,
	profile: Profile,
	dirName: string | undefined,
	out: Finding[],
): ResolvedName | undefined {
	const title = profile === "lenient" && !fields.has("name") ? fields.get("title") : undefined;
	if (title?.text !== undefined && dirName !== undefined) return titleAsName(title, title.text, dirName, out);
	const field = fields.get("name");
	const declared = readRequiredText(field, "name", out);
	if (declared === undefined) return fallbackName(undefined, profile, dirName, out);
	const name = normalizeSkillName(declared);
	const problems = checkSkillName(name, dirName);
	const at = field?.valueOffset;
	for (const problem of problems) out.push({ ...problem, at, field: "name" });
	const unusable = problems.some((p) => p.code !== "name.dir-mismatch");
	if (unusable) return fallbackName(name, profile, dirName, out, at);
	if (isNonAsciiName(name)) {
		out.push({ code: "name.non-ascii", message: `Skill name '${name}' uses letters outside a-z`, at, field: "name" });
	}
	return declared.trim() === name ? { id: name } : { id: name, declared: declared.trim() };
}

/**
 * Lenient only: a WorkBuddy `title` without a `name`. A title is display text, so it names the skill only when it
 * is already a valid name equal to the directory's; otherwise the directory name is the id and the title is kept.
 */
function titleAsName(field: FrontmatterField, title: string, dirName: string, out: Finding[]): ResolvedName {
	const name = normalizeSkillName(title);
	const usable = name !== "" && checkSkillName(name, dirName).length === 0;
	const message = usable
		? `'title' is used as the name`
		: `'title' is the display title; the directory name '${dirName}' is the name`;
	out.push({ code: "field.mapped", message, at: field.keyOffset, field: "title" });
	return usable ? { id: name } : { id: dirName, declared: title.trim() };
}

/** Lenient only: when the declared name cannot be the id, the directory name is. */
function fallbackName(
	declared: string | undefined,
	profile: Profile,
	dirName: string | undefined,
	out: Finding[],
	at?: number,
): ResolvedName | undefined {
	if (profile === "strict") return declared === undefined ? undefined : { id: declared };
	if (dirName === undefined) return declared === undefined ? undefined : { id: declared };
	out.push({
		code: "name.fallback",
		message: `Using the directory name '${dirName}' as the skill's name`,
		at: at ?? 0,
		field: "name",
	});
	return declared === undefined ? { id: dirName } : { id: dirName, declared };
}

function readDescription(
	fields: ReadonlyMap<string, FrontmatterField>,
	profile: Profile,
	out: Finding[],
): string | undefined {
	const field = fields.get("description") ?? mappedField(fields, "summary", "description", profile, out);
	const text = readRequiredText(field, "description", out);
	if (text === undefined || !field) return undefined;
	const length = codePointsOver(text, MAX_DESCRIPTION_CODE_POINTS);
	if (length !== undefined) {
		out.push({
			code: "description.too-long",
			message: `Description exceeds ${MAX_DESCRIPTION_CODE_POINTS} character limit (${length} chars)`,
			at: field.valueOffset,
			field: "description",
		});
	}
	return text.trim();
}

/** The fields a catalog shows: invisible characters in them are hidden from a person but not from a model. */
const SHOWN_FIELDS = ["name", "description", "title", "summary"];

function checkInvisible(fields: ReadonlyMap<string, FrontmatterField>, out: Finding[]): void {
	for (const key of SHOWN_FIELDS) {
		const field = fields.get(key);
		if (field?.text === undefined) continue;
		if (!hasInvisibleChars(field.text)) continue;
		out.push({
			code: "field.invisible-chars",
			message: `'${key}' contains invisible characters: ${describeInvisibleChars(field.text)}; catalogs remove them`,
			at: field.valueOffset,
			field: key,
		});
	}
}

/** Lenient only: a WorkBuddy field standing in for a missing spec field. */
function mappedField(
	fields: ReadonlyMap<string, FrontmatterField>,
	from: string,
	to: string,
	profile: Profile,
	out: Finding[],
): FrontmatterField | undefined {
	const field = profile === "lenient" ? fields.get(from) : undefined;
	if (!field) return undefined;
	out.push({ code: "field.mapped", message: `'${from}' is used as the ${to}`, at: field.keyOffset, field: from });
	return field;
}

/** The raw text of a required string field, or undefined with a finding when it is missing, empty or a collection. */
function readRequiredText(
	field: FrontmatterField | undefined,
	name: "name" | "description",
	out: Finding[],
): string | undefined {
	if (!field) {
		out.push({
			code: `${name}.missing`,
			message: `Missing required field in frontmatter: ${name}`,
			at: 0,
			field: name,
		});
		return undefined;
	}
	const message = `Field '${name}' must be a non-empty string`;
	if (field.text === undefined) {
		out.push({ code: `${name}.not-string`, message, at: field.valueOffset, field: name });
		return undefined;
	}
	if (field.text.trim() === "") {
		out.push({ code: `${name}.empty`, message, at: field.valueOffset, field: name });
		return undefined;
	}
	return field.text;
}
