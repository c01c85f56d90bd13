import {
	type FileSignature,
	type FrontmatterValue,
	MAX_YAML_DEPTH,
	SKILL_CODES,
	type SkillCode,
	type SkillProperties,
} from "../skill/index.ts";
import type { CachedFile } from "./cache.ts";
import type { DiscoveryDiagnostic } from "./codes.ts";

// The values of the persistent index, checked as strictly as input when read back (the index is a value we wrote
// earlier, and anyone who could write the file could have written anything), and what may be written at all.

/** No string in a listing or a skill's frontmatter result is longer (the frontmatter cap is far below). */
const MAX_STRING_UNITS = 1 << 20;
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Why an index file was not used (a sentence for the diagnostic). */
export class IndexFormatError extends Error {}

export function signatureRow(signature: FileSignature): [number, number, number, number, number] {
	return [signature.dev, signature.ino, signature.size, signature.mtimeMs, signature.ctimeMs];
}

/** The path of `path` below `root` with `/` separators ("" for the root), or undefined when it is not below it. */
export function relativeTo(root: string, path: string): string | undefined {
	if (path === root) return "";
	const prefix = root.endsWith("/") ? root : `${root}/`;
	if (!path.startsWith(prefix)) return undefined;
	const rel = path.slice(prefix.length);
	return safeRelative(rel) ? rel : undefined;
}

/** An empty, `.` or `..` segment anywhere in a `/`-separated path. */
const UNSAFE_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

function safeRelative(rel: string): boolean {
	return rel.length <= MAX_STRING_UNITS && !UNSAFE_SEGMENT.test(rel) && !rel.includes("\0");
}

// --- what may be written ---

/** True when `file` comes back from its saved form exactly as it is. */
export function savable(path: string, file: CachedFile): boolean {
	if (file.size !== file.signature.size || (file.bodyOffset === undefined) !== (file.bodyLine === undefined))
		return false;
	if (file.properties !== null && !savableProperties(file.properties)) return false;
	return file.own.every((d) => savableDiagnostic(d, path));
}

function savableProperties(properties: SkillProperties): boolean {
	for (const [key, value] of Object.entries(properties)) {
		if (!Object.hasOwn(PROPERTY_CHECKS, key) || value === undefined) return false;
		if ((key === "extra" || key === "permissions") && !plainData(value, 0)) return false;
	}
	return Object.getPrototypeOf(properties) === Object.prototype;
}

/** Data JSON carries unchanged: finite numbers other than -0, strings, booleans, null, arrays and null-prototype maps. */
function plainData(value: unknown, depth: number): boolean {
	if (depth > MAX_YAML_DEPTH + 1) return false;
	if (value === null || typeof value === "string" || typeof value === "boolean") return true;
	if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
	if (Array.isArray(value)) return value.every((item) => plainData(item, depth + 1));
	if (typeof value !== "object" || Object.getPrototypeOf(value) !== null) return false;
	return Object.entries(value).every(([key, item]) => !FORBIDDEN_KEYS.has(key) && plainData(item, depth + 1));
}

const CANONICAL_KEYS = ["code", "severity", "message", "file", "line", "column", "field", "hint"];

/**
 * True when a diagnostic comes back exactly from a saved row: only the known fields, in their order, with a hint,
 * and a line only with a column.
 */
export function canonicalDiagnostic(d: DiscoveryDiagnostic): boolean {
	const keys = Object.keys(d);
	const expected = CANONICAL_KEYS.filter((key) => Object.hasOwn(d, key));
	if (keys.length !== expected.length || keys.some((key, i) => key !== expected[i])) return false;
	return typeof d.hint === "string" && (d.line === undefined) === (d.column === undefined);
}

function savableDiagnostic(d: DiscoveryDiagnostic, file: string): boolean {
	const info = Object.hasOwn(SKILL_CODES, d.code) ? SKILL_CODES[d.code as SkillCode] : undefined;
	return info !== undefined && d.severity === info.lenient && d.file === file && canonicalDiagnostic(d);
}

export function decodeSignature(cells: unknown[]): FileSignature {
	const [dev, ino, size, mtimeMs, ctimeMs] = checkedSignature(cells);
	return { dev, ino, size, mtimeMs, ctimeMs };
}

/** The checked signature in cells 1-5 of a row (dev, ino, size, mtimeMs, ctimeMs), without making an object. */
export function checkedSignature(cells: unknown[]): [number, number, number, number, number] {
	const mtimeMs = cells[4];
	const ctimeMs = cells[5];
	if (typeof mtimeMs !== "number" || typeof ctimeMs !== "number" || !Number.isFinite(mtimeMs + ctimeMs))
		throw new IndexFormatError("a time is not a number");
	return [count(cells[1], "a device"), count(cells[2], "an inode"), count(cells[3], "a size"), mtimeMs, ctimeMs];
}

export function decodeDiagnostic(row: unknown, file: string): DiscoveryDiagnostic {
	const [code, severity, message, line, column, field, hint] = tuple(row, 7, "a diagnostic");
	const info =
		typeof code === "string" && Object.hasOwn(SKILL_CODES, code) ? SKILL_CODES[code as SkillCode] : undefined;
	if (!info || typeof info.lenient !== "string" || severity !== info.lenient)
		throw new IndexFormatError(`a diagnostic of ${file} has an unknown code`);
	const diagnostic: DiscoveryDiagnostic = {
		code: code as SkillCode,
		severity: info.lenient as DiscoveryDiagnostic["severity"],
		message: text(message, "a message"),
		file,
	};
	return placeDiagnostic(diagnostic, line, column, field, hint);
}

/**
 * Adds a saved diagnostic's place (line and column from 1, both or neither), field and hint to `d`, in the key order
 * a fresh diagnostic has: the per-root index and the saved result read them alike.
 */
export function placeDiagnostic(
	d: DiscoveryDiagnostic,
	line: unknown,
	column: unknown,
	field: unknown,
	hint: unknown,
): DiscoveryDiagnostic {
	if ((line === null) !== (column === null)) throw new IndexFormatError(`a diagnostic of ${d.file} is half placed`);
	if (line !== null) {
		d.line = positive(line, "a line");
		d.column = positive(column, "a column");
	}
	if (field !== null) d.field = text(field, "a field name");
	d.hint = text(hint, "a hint");
	return d;
}

type Check = (value: unknown, name: string) => unknown;

const textField: Check = (value, name) => text(value, name);
const flagField: Check = (value, name) => {
	if (typeof value !== "boolean") throw new IndexFormatError(`${name} is not true or false`);
	return value;
};
const textList: Check = (value, name) => {
	for (const item of list(value, name)) text(item, name);
	return value;
};
const textMap: Check = (value, name) => {
	const map = record(value, name);
	for (const key of Object.keys(map)) text(map[safeKey(key, name)], name);
	return nullPrototype(map);
};
const dataMap: Check = (value, name) => decodeData(record(value, name), name, 1);
const manifestField: Check = (value, name) => {
	const manifest = record(value, name);
	const paths = record(manifest.paths, name);
	exactKeys(manifest, ["tools", "network", "paths"], name);
	exactKeys(paths, ["read", "write"], name);
	if (typeof manifest.network !== "boolean") textList(manifest.network, name);
	textList(manifest.tools, name);
	textList(paths.read, name);
	textList(paths.write, name);
	return manifest;
};

/** How each property is read back; the type makes a new property of the skill stage a compile error here. */
const PROPERTY_CHECKS: { readonly [K in keyof Required<SkillProperties>]: Check } = {
	name: textField,
	declaredName: textField,
	description: textField,
	license: textField,
	compatibility: textField,
	metadata: textMap,
	allowedTools: textList,
	whenToUse: textField,
	argumentHint: textField,
	disableModelInvocation: flagField,
	userInvocable: flagField,
	model: textField,
	title: textField,
	readWhen: textList,
	agentCreated: flagField,
	dependsOn: textList,
	permissions: dataMap,
	manifest: manifestField,
	extra: dataMap,
};

/**
 * Checks parsed properties in place (JSON gives plain objects and arrays, as the skill stage makes them) and
 * rebuilds the frontmatter maps with a null prototype, as the parser makes them.
 */
export function decodeProperties(value: unknown): SkillProperties {
	const properties = record(value, "properties");
	for (const key of Object.keys(properties)) {
		const check = Object.hasOwn(PROPERTY_CHECKS, key) ? PROPERTY_CHECKS[key as keyof SkillProperties] : undefined;
		if (!check) throw new IndexFormatError(`properties has an unknown field '${key}'`);
		properties[key] = check(properties[key], `properties.${key}`);
	}
	if (!("name" in properties && "description" in properties && "extra" in properties))
		throw new IndexFormatError("properties lack a name, description or extra");
	return properties as unknown as SkillProperties;
}

function decodeData(value: unknown, name: string, depth: number): FrontmatterValue {
	if (depth > MAX_YAML_DEPTH + 1) throw new IndexFormatError(`${name} is nested too deeply`);
	if (value === null || typeof value === "boolean") return value;
	if (typeof value === "string") return text(value, name);
	if (typeof value === "number") {
		if (!Number.isFinite(value) || Object.is(value, -0)) throw new IndexFormatError(`${name} holds an odd number`);
		return value;
	}
	if (Array.isArray(value)) {
		for (const item of value) decodeData(item, name, depth + 1);
		return value as FrontmatterValue[];
	}
	const map = record(value, name);
	for (const key of Object.keys(map)) map[key] = decodeData(map[safeKey(key, name)], name, depth + 1);
	return nullPrototype(map) as Record<string, FrontmatterValue>;
}

/**
 * `map` (a plain object fresh from JSON.parse, nobody else's) with a null prototype, as the frontmatter parser
 * makes its maps. Changed in place: a copy into `Object.create(null)` is a slow dictionary object, ten thousand of
 * them on every warm run.
 */
function nullPrototype(map: Record<string, unknown>): Record<string, unknown> {
	Object.setPrototypeOf(map, null);
	return map;
}

// --- shapes ---

/** The object `text` holds as JSON (`name` says what it is, for the error). */
export function parsedRecord(text: string, name: string): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new IndexFormatError("it is not valid JSON");
	}
	return record(value, name);
}

export function record(value: unknown, name: string): Record<string, unknown> {
	if (value === null || typeof value !== "object" || Array.isArray(value))
		throw new IndexFormatError(`${name} is not an object`);
	return value as Record<string, unknown>;
}

export function list(value: unknown, name: string): unknown[] {
	if (!Array.isArray(value)) throw new IndexFormatError(`${name} is not a list`);
	return value;
}

export function tuple(value: unknown, length: number, name: string): unknown[] {
	const cells = list(value, name);
	if (cells.length !== length) throw new IndexFormatError(`${name} has ${cells.length} fields, not ${length}`);
	return cells;
}

export function text(value: unknown, name: string): string {
	if (typeof value !== "string" || value.length > MAX_STRING_UNITS) throw new IndexFormatError(`${name} is not text`);
	return value;
}

export function count(value: unknown, name: string): number {
	if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
		throw new IndexFormatError(`${name} is not a count`);
	return value;
}

function positive(value: unknown, name: string): number {
	const number = count(value, name);
	if (number === 0) throw new IndexFormatError(`${name} is zero`);
	return number;
}

function safeKey(key: string, name: string): string {
	if (FORBIDDEN_KEYS.has(key)) throw new IndexFormatError(`${name} has the key '${key}'`);
	return text(key, name);
}

function exactKeys(value: Record<string, unknown>, keys: readonly string[], name: string): void {
	const own = Object.keys(value);
	if (own.length !== keys.length || own.some((key, i) => key !== keys[i]))
		throw new IndexFormatError(`${name} does not have exactly ${keys.join(", ")}`);
}

/** A root's real path read back: `/`, or an absolute path with no empty, `.` or `..` segment. */
export function realPath(value: unknown): string {
	const real = text(value, "the root's real path");
	if (real !== "/" && !(real.startsWith("/") && safeRelative(real.slice(1))))
		throw new IndexFormatError("the root's real path is not a plain absolute path");
	return real;
}

/** A skill's folder below its root read back (`""` for the root itself). */
export function skillFolder(value: unknown): string {
	const dir = text(value, "a skill folder");
	if (dir !== "" && !safeRelative(dir))
		throw new IndexFormatError(`the skill folder ${JSON.stringify(dir)} leaves its root`);
	return dir;
}

/** A skill file's name read back: SKILL.md, in any letter case. */
export function skillFileName(value: unknown): string {
	const name = text(value, "a skill file name");
	if (name.length !== 8 || name.toLowerCase() !== "skill.md")
		throw new IndexFormatError(`'${name}' is not a skill file`);
	return name;
}

export function pathBelow(root: string, value: unknown): string {
	const rel = text(value, "a path");
	if (rel === "") return root;
	if (!safeRelative(rel)) throw new IndexFormatError(`the path ${JSON.stringify(rel)} leaves its root`);
	// The root is an absolute, normalized path and `rel` has no empty, `.` or `..` segment: this is join().
	return root.endsWith("/") ? root + rel : `${root}/${rel}`;
}
