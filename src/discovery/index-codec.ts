import {
	type FileSignature,
	type FrontmatterValue,
	MAX_YAML_DEPTH,
	SKILL_CODES,
	type SkillCode,
	type SkillProperties,
} from "../skill/index.ts";
import { type CachedFile, RootCache } from "./cache.ts";
import { type DiscoveryDiagnostic, type DiscoveryOnlyCode, discoveryDiagnostic } from "./codes.ts";
import { compareNames, type DirEntry } from "./walk.ts";
import { SNAPSHOT_CODES, type WalkSnapshot } from "./walk-snapshot.ts";

// The persistent index is a value read back: everything in it is checked as strictly as input before it stands in
// for a listing or a read, and anything that would not come back exactly as it went in is not written at all.

/** Bumped whenever the layout below changes. */
const FORMAT = 1;
/** No string in a listing or a skill's frontmatter result is longer (the frontmatter cap is far below). */
const MAX_STRING_UNITS = 1 << 20;
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
const KINDS: Readonly<Record<string, DirEntry["kind"]>> = { f: "file", d: "dir", l: "link", o: "other" };
const KIND_LETTERS: Readonly<Record<DirEntry["kind"], string>> = { file: "f", dir: "d", link: "l", other: "o" };

type DirRow = [string, number, number, number, number, number, string];
type DiagnosticRow = [string, string, string, number | null, number | null, string | null, string];
type FileRow = [string, number, number, number, number, number, number | null, number | null, unknown, DiagnosticRow[]];

/** Why an index file was not used (a sentence for the diagnostic). */
export class IndexFormatError extends Error {}

/**
 * The saved form of one root's cache: its non-racy listings and reads, paths relative to the root. Entries that
 * could not come back exactly as they are (values JSON cannot hold, fields this format does not know) are left
 * out, so they are read again next time.
 */
export function encodeRootCache(cache: RootCache, fileKey: string): string {
	const dirs: DirRow[] = [];
	for (const [path, dir] of cache.dirs) {
		const rel = relativeTo(cache.path, path);
		if (dir.racy || rel === undefined) continue;
		dirs.push([rel, ...signatureRow(dir.signature), encodeEntries(dir.entries)]);
	}
	const files: FileRow[] = [];
	for (const [path, file] of cache.files) {
		const rel = relativeTo(cache.path, path);
		if (file.racy || rel === undefined || rel === "" || !savable(path, file)) continue;
		const diagnostics = file.own.map(diagnosticRow);
		files.push([
			rel,
			...signatureRow(file.signature),
			file.bodyOffset ?? null,
			file.bodyLine ?? null,
			file.properties,
			diagnostics,
		]);
	}
	return JSON.stringify({ format: FORMAT, key: fileKey, dirs, files, walk: encodeSnapshot(cache) });
}

/**
 * Reads a saved root cache back for the root `path` (named by `key` in memory, `fileKey` in the file); throws
 * {@link IndexFormatError} when the text is not one.
 */
export function decodeRootCache(text: string, fileKey: string, key: string, path: string): RootCache {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new IndexFormatError("it is not valid JSON");
	}
	const root = record(value, "the index");
	if (root.format !== FORMAT) throw new IndexFormatError(`it is not a format-${FORMAT} discovery index`);
	if (root.key !== fileKey) throw new IndexFormatError("it was written for another root or other settings");
	const cache = new RootCache(key, path);
	const listings = new Map<string, DirEntry[]>();
	for (const row of list(root.dirs, "dirs")) decodeDir(row, path, cache, listings);
	for (const row of list(root.files, "files")) decodeFile(row, path, cache);
	if (root.walk !== null) cache.walk = decodeSnapshot(root.walk, path);
	return cache;
}

function signatureRow(signature: FileSignature): [number, number, number, number, number] {
	return [signature.dev, signature.ino, signature.size, signature.mtimeMs, signature.ctimeMs];
}

function encodeEntries(entries: readonly DirEntry[]): string {
	return entries.map((entry) => KIND_LETTERS[entry.kind] + entry.name).join("/");
}

function diagnosticRow(d: DiscoveryDiagnostic): DiagnosticRow {
	return [d.code, d.severity, d.message, d.line ?? null, d.column ?? null, d.field ?? null, d.hint ?? ""];
}

/** The path of `path` below `root` with `/` separators ("" for the root), or undefined when it is not below it. */
function relativeTo(root: string, path: string): string | undefined {
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

// --- the last walk ---

type SnapshotRow = [string, number, number, boolean, boolean, boolean, string[][], string[][], unknown[][]];

/** The last walk's snapshot with paths below the root, or null when there is none or a path is not below it. */
function encodeSnapshot(cache: RootCache): SnapshotRow | null {
	const snapshot = cache.walk;
	if (!snapshot?.real.startsWith("/")) return null;
	const diagnostics: string[][] = [];
	for (const d of snapshot.diagnostics) {
		const rel = relativeTo(cache.path, d.file);
		if (rel === undefined) return null;
		diagnostics.push([d.code, d.message, rel]);
	}
	const probes: unknown[][] = [];
	for (const [path, signature] of snapshot.probes) {
		const rel = relativeTo(cache.path, path);
		if (rel === undefined || rel === "") return null;
		probes.push([rel, ...signatureRow(signature)]);
	}
	const { counts, bounds } = snapshot;
	const skills = snapshot.skills.map((skill) => [skill.rel, skill.fileName]);
	return [
		snapshot.real,
		counts.dirs,
		counts.entries,
		bounds.depth,
		bounds.dirs,
		bounds.entries,
		diagnostics,
		skills,
		probes,
	];
}

function decodeSnapshot(value: unknown, root: string): WalkSnapshot {
	const cells = tuple(value, 9, "the last walk");
	const real = text(cells[0], "the root's real path");
	if (real !== "/" && !(real.startsWith("/") && safeRelative(real.slice(1))))
		throw new IndexFormatError("the root's real path is not a plain absolute path");
	const counts = { dirs: count(cells[1], "a folder count"), entries: count(cells[2], "an entry count") };
	const [depth, dirs, entries] = [cells[3], cells[4], cells[5]];
	if (typeof depth !== "boolean" || typeof dirs !== "boolean" || typeof entries !== "boolean")
		throw new IndexFormatError("a walk bound is not true or false");
	const diagnostics = list(cells[6], "walk diagnostics").map((row) => {
		const [code, message, file] = tuple(row, 3, "a walk diagnostic");
		if (typeof code !== "string" || !SNAPSHOT_CODES.has(code))
			throw new IndexFormatError("a walk diagnostic has a code a kept walk cannot have");
		return discoveryDiagnostic(code as DiscoveryOnlyCode, text(message, "a message"), pathBelow(root, file));
	});
	const skills = list(cells[7], "walk skills").map((row) => {
		const [rel, fileName] = tuple(row, 2, "a walk skill");
		const name = text(fileName, "a skill file name");
		if (name.length !== 8 || name.toLowerCase() !== "skill.md")
			throw new IndexFormatError(`'${name}' is not a skill file`);
		const dir = text(rel, "a skill folder");
		if (dir !== "" && !safeRelative(dir))
			throw new IndexFormatError(`the skill folder ${JSON.stringify(dir)} leaves its root`);
		return { rel: dir, fileName: name };
	});
	const probes = new Map<string, FileSignature>();
	for (const row of list(cells[8], "walk probes")) {
		const probe = tuple(row, 6, "a probe");
		const path = pathBelow(root, probe[0]);
		if (path === root) throw new IndexFormatError("a probe is the root");
		probes.set(path, decodeSignature(probe));
	}
	return { real, counts, bounds: { depth, dirs, entries }, diagnostics, skills, probes };
}

// --- what may be written ---

/** True when `file` comes back from its saved form exactly as it is. */
function savable(path: string, file: CachedFile): boolean {
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

function savableDiagnostic(d: DiscoveryDiagnostic, file: string): boolean {
	const keys = Object.keys(d);
	const expected = CANONICAL_KEYS.filter((key) => Object.hasOwn(d, key));
	if (keys.length !== expected.length || keys.some((key, i) => key !== expected[i])) return false;
	const info = Object.hasOwn(SKILL_CODES, d.code) ? SKILL_CODES[d.code as SkillCode] : undefined;
	return (
		info !== undefined &&
		d.severity === info.lenient &&
		d.file === file &&
		typeof d.hint === "string" &&
		(d.line === undefined) === (d.column === undefined)
	);
}

// --- reading back ---

/**
 * Reads one folder entry into `cache`. Listings are shared between folders that hold the same entries (ten thousand
 * skill folders list the same three names): the walk only reads them.
 */
function decodeDir(row: unknown, root: string, cache: RootCache, listings: Map<string, DirEntry[]>): void {
	const cells = tuple(row, 7, "a folder entry");
	const path = pathBelow(root, cells[0]);
	const names = text(cells[6], "a folder listing");
	let entries = listings.get(names);
	if (!entries) {
		entries = decodeListing(names, path);
		listings.set(names, entries);
	}
	cache.dirs.set(path, { signature: decodeSignature(cells), entries, racy: false });
}

function decodeListing(names: string, path: string): DirEntry[] {
	const entries: DirEntry[] = [];
	if (names === "") return entries;
	for (const part of names.split("/")) {
		const kind = KINDS[part.charAt(0)];
		const name = part.slice(1);
		if (!kind || name === "" || name === "." || name === ".." || name.includes("\0"))
			throw new IndexFormatError(`a folder listing of ${path} names an impossible entry`);
		const previous = entries[entries.length - 1];
		if (previous && compareNames(previous.name, name) >= 0)
			throw new IndexFormatError(`the folder listing of ${path} is not in name order`);
		entries.push(Object.freeze({ name, kind }));
	}
	return Object.freeze(entries) as DirEntry[];
}

function decodeFile(row: unknown, root: string, cache: RootCache): void {
	const cells = tuple(row, 10, "a file entry");
	const path = pathBelow(root, cells[0]);
	const slash = path.lastIndexOf("/");
	if (path === root || path.length - slash !== 9 || path.slice(slash + 1).toLowerCase() !== "skill.md")
		throw new IndexFormatError(`a file entry is not a SKILL.md: ${path}`);
	const signature = decodeSignature(cells);
	const bodyOffset = cells[6] === null ? undefined : count(cells[6], "a body offset");
	const bodyLine = cells[7] === null ? undefined : count(cells[7], "a body line");
	if ((bodyOffset === undefined) !== (bodyLine === undefined) || (bodyOffset ?? 0) > signature.size || bodyLine === 0)
		throw new IndexFormatError(`the body of ${path} is placed where it cannot be`);
	const properties = cells[8] === null ? null : decodeProperties(cells[8]);
	const rows = list(cells[9], "diagnostics");
	const own = rows.length === 0 ? [] : rows.map((item) => decodeDiagnostic(item, path));
	const dir = slash === 0 ? "/" : path.slice(0, slash);
	cache.files.set(path, { signature, dir, properties, own, bodyOffset, bodyLine, size: signature.size, racy: false });
}

function decodeSignature(cells: unknown[]): FileSignature {
	const mtimeMs = cells[4];
	const ctimeMs = cells[5];
	if (typeof mtimeMs !== "number" || typeof ctimeMs !== "number" || !Number.isFinite(mtimeMs + ctimeMs))
		throw new IndexFormatError("a time is not a number");
	const dev = count(cells[1], "a device");
	const ino = count(cells[2], "an inode");
	return { dev, ino, size: count(cells[3], "a size"), mtimeMs, ctimeMs };
}

function decodeDiagnostic(row: unknown, file: string): DiscoveryDiagnostic {
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
	if ((line === null) !== (column === null)) throw new IndexFormatError(`a diagnostic of ${file} is half placed`);
	if (line !== null) {
		diagnostic.line = positive(line, "a line");
		diagnostic.column = positive(column, "a column");
	}
	if (field !== null) diagnostic.field = text(field, "a field name");
	diagnostic.hint = text(hint, "a hint");
	return diagnostic;
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
	const out: Record<string, string> = Object.create(null);
	for (const [key, item] of Object.entries(record(value, name))) out[safeKey(key, name)] = text(item, name);
	return out;
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
function decodeProperties(value: unknown): SkillProperties {
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
	if (Array.isArray(value)) return value.map((item) => decodeData(item, name, depth + 1));
	const out: Record<string, FrontmatterValue> = Object.create(null);
	for (const [key, item] of Object.entries(record(value, name)))
		out[safeKey(key, name)] = decodeData(item, name, depth + 1);
	return out;
}

// --- shapes ---

function record(value: unknown, name: string): Record<string, unknown> {
	if (value === null || typeof value !== "object" || Array.isArray(value))
		throw new IndexFormatError(`${name} is not an object`);
	return value as Record<string, unknown>;
}

function list(value: unknown, name: string): unknown[] {
	if (!Array.isArray(value)) throw new IndexFormatError(`${name} is not a list`);
	return value;
}

function tuple(value: unknown, length: number, name: string): unknown[] {
	const cells = list(value, name);
	if (cells.length !== length) throw new IndexFormatError(`${name} has ${cells.length} fields, not ${length}`);
	return cells;
}

function text(value: unknown, name: string): string {
	if (typeof value !== "string" || value.length > MAX_STRING_UNITS) throw new IndexFormatError(`${name} is not text`);
	return value;
}

function count(value: unknown, name: string): number {
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

function pathBelow(root: string, value: unknown): string {
	const rel = text(value, "a path");
	if (rel === "") return root;
	if (!safeRelative(rel)) throw new IndexFormatError(`the path ${JSON.stringify(rel)} leaves its root`);
	// The root is an absolute, normalized path and `rel` has no empty, `.` or `..` segment: this is join().
	return root.endsWith("/") ? root + rel : `${root}/${rel}`;
}
