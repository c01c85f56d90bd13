import { Buffer } from "node:buffer";
import type { Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { decodeRange } from "./decode.ts";
import { type Diagnostic, type Finding, placeFindings } from "./diagnostics.ts";
import { DEFAULT_MAX_FRONTMATTER_BYTES } from "./fences.ts";
import { type FileTask, runAsync, runSync } from "./file-task.ts";
import {
	DEFAULT_MAX_FILE_BYTES,
	type ParsedSkill,
	type ParseSkillOptions,
	parseSkillFrontmatter,
	parseSkillMd,
} from "./parse-skill.ts";
import { type SkillValidation, type ValidateSkillOptions, validateParsedSkill } from "./validate-skill.ts";

/** The one spelling of the skill file that every client finds. */
export const SKILL_FILE_NAME = "SKILL.md";

const FIRST_CHUNK_BYTES = 4096;
// Room beyond the frontmatter cap for a BOM, the fence lines and blank lines before the opening fence.
const FENCE_SLACK_BYTES = 4096;

/** Which directory entry is the skill file: exactly `SKILL.md`, else `skill.md`, else another case, by name. */
export function pickSkillFileName(names: Iterable<string>): { name: string; exact: boolean } | undefined {
	const candidates = [...names].filter((name) => name.toLowerCase() === "skill.md");
	if (candidates.includes(SKILL_FILE_NAME)) return { name: SKILL_FILE_NAME, exact: true };
	if (candidates.includes("skill.md")) return { name: "skill.md", exact: false };
	const [first] = candidates.sort();
	return first === undefined ? undefined : { name: first, exact: false };
}

/** What identifies a file's version on disk: if none of these changed, its content is taken as unchanged. */
export interface FileSignature {
	dev: number;
	ino: number;
	size: number;
	mtimeMs: number;
	ctimeMs: number;
}

/** A SKILL.md read from disk: the parse result, its size in bytes, and its signature (absent when unreadable). */
export interface ReadSkill extends ParsedSkill {
	size: number;
	signature?: FileSignature;
}

/**
 * Reads only as many bytes of SKILL.md as the frontmatter needs (in growing chunks, bounded by the frontmatter
 * cap) and parses them. The body is left on disk: `bodyOffset` says where it starts for {@link readSkillBody}.
 */
export function readSkillFrontmatter(file: string, options: ParseSkillOptions = {}): Promise<ReadSkill> {
	return runAsync(frontmatterTask(file, options));
}

// The first chunk of every synchronous read goes here: a synchronous read finishes (and nothing keeps a view of
// the bytes) before the next one starts, so one buffer serves them all and discovery allocates none per file.
const SYNC_SCRATCH: Uint8Array = Buffer.allocUnsafeSlow(FIRST_CHUNK_BYTES);

/** {@link readSkillFrontmatter} with synchronous I/O: several times faster for many files, but blocking. */
export function readSkillFrontmatterSync(file: string, options: ParseSkillOptions = {}): ReadSkill {
	return runSync(frontmatterTask(file, options, SYNC_SCRATCH));
}

function* frontmatterTask(file: string, options: ParseSkillOptions, scratch?: Uint8Array): FileTask<ReadSkill> {
	const opts = readOptions(options, file);
	return yield* withFile(file, opts, function* (fd, { size }) {
		const limit = Math.min(size, (options.maxFrontmatterBytes ?? DEFAULT_MAX_FRONTMATTER_BYTES) + FENCE_SLACK_BYTES);
		const first = Math.min(FIRST_CHUNK_BYTES, Math.max(size, 1));
		let buffer = scratch ? scratch.subarray(0, first) : new Uint8Array(first);
		let filled = 0;
		const { profile, maxFileBytes, maxFrontmatterBytes } = opts;
		const prefix = { file: opts.file, profile, maxFileBytes, maxFrontmatterBytes, complete: false };
		for (;;) {
			const length = buffer.length - filled;
			const bytesRead = (yield { op: "read", fd, buffer, offset: filled, length, position: filled }) as number;
			filled += bytesRead;
			prefix.complete = bytesRead === 0 || filled >= size;
			const parsed = parseSkillFrontmatter(buffer.subarray(0, filled), prefix);
			if (!("needMore" in parsed)) return withSize(parsed, size);
			if (filled >= limit) return failure(opts, size, frontmatterTooLarge(opts));
			if (filled === buffer.length) buffer = grow(buffer, Math.min(buffer.length * 2, limit));
		}
	});
}

/** The body of SKILL.md, trimmed, read from where {@link readSkillFrontmatter} said it starts. */
export interface ReadBody {
	body: string | undefined;
	diagnostics: Diagnostic[];
}

/** Reads the body of SKILL.md from where {@link readSkillFrontmatter} said it starts, trimmed. */
export function readSkillBody(
	file: string,
	location: { bodyOffset: number; bodyLine: number },
	options: ParseSkillOptions = {},
): Promise<ReadBody> {
	return runAsync(bodyTask(file, location, options));
}

/** {@link readSkillBody} with synchronous I/O. */
export function readSkillBodySync(
	file: string,
	location: { bodyOffset: number; bodyLine: number },
	options: ParseSkillOptions = {},
): ReadBody {
	return runSync(bodyTask(file, location, options));
}

function* bodyTask(
	file: string,
	location: { bodyOffset: number; bodyLine: number },
	options: ParseSkillOptions,
): FileTask<ReadBody> {
	const opts = readOptions(options, file);
	const read = yield* withFile(file, opts, function* (fd, { size }) {
		const bytes = new Uint8Array(Math.max(0, size - location.bodyOffset));
		const length = bytes.length;
		const bytesRead = (yield {
			op: "read",
			fd,
			buffer: bytes,
			offset: 0,
			length,
			position: location.bodyOffset,
		}) as number;
		const decoded = decodeRange(bytes, 0, bytesRead, location.bodyLine);
		const diagnostics = placeFindings(decoded.findings, { file: opts.file, profile: opts.profile ?? "strict" });
		return { body: decoded.text.trim(), diagnostics };
	});
	return { body: read.body, diagnostics: read.diagnostics };
}

/** Reads and parses a whole SKILL.md file. */
export function readSkillMd(file: string, options: ParseSkillOptions = {}): Promise<ReadSkill> {
	return runAsync(wholeTask(file, options));
}

/** {@link readSkillMd} with synchronous I/O. */
export function readSkillMdSync(file: string, options: ParseSkillOptions = {}): ReadSkill {
	return runSync(wholeTask(file, options));
}

function* wholeTask(file: string, options: ParseSkillOptions): FileTask<ReadSkill> {
	const opts = readOptions(options, file);
	return yield* withFile(file, opts, function* (fd, { size }) {
		const bytes = new Uint8Array(size);
		const bytesRead = (yield { op: "read", fd, buffer: bytes, offset: 0, length: size, position: 0 }) as number;
		return withSize(parseSkillMd(bytes.subarray(0, bytesRead), opts), size);
	});
}

/** A skill directory or SKILL.md path, validated. `file` is the SKILL.md that was read, or null. */
export interface SkillPathValidation extends SkillValidation {
	path: string;
	file: string | null;
}

/**
 * Validates a skill directory, or a SKILL.md file path (any case), like the reference CLI. The directory's base
 * name is the one the `name` must match. Never throws for bad input.
 */
export async function validateSkillPath(
	path: string,
	options: ValidateSkillOptions = {},
): Promise<SkillPathValidation> {
	const profile = options.profile ?? "strict";
	const located = await locateSkillFile(path);
	if ("finding" in located) {
		const diagnostics = placeFindings([located.finding], { file: path, profile });
		return {
			path,
			file: null,
			valid: false,
			profile,
			properties: null,
			frontmatter: null,
			body: undefined,
			diagnostics,
		};
	}
	const read = await readSkillMd(located.file, { ...options, file: located.file });
	const validation = validateParsedSkill(read, { ...options, file: located.file, dirName: located.dirName });
	if (!located.exact) {
		const finding: Finding = {
			code: "entry.case",
			message: `The skill file is named '${basename(located.file)}', not '${SKILL_FILE_NAME}'`,
		};
		validation.diagnostics.unshift(...placeFindings([finding], { file: located.file, profile }));
	}
	return { path, file: located.file, ...validation };
}

type Located = { file: string; dirName: string; exact: boolean } | { finding: Finding };

async function locateSkillFile(path: string): Promise<Located> {
	const info = await stat(path).catch((error: unknown) => error as NodeJS.ErrnoException);
	if (info instanceof Error) {
		if (info.code === "ENOENT" || info.code === "ENOTDIR") {
			return { finding: { code: "path.not-found", message: `Path does not exist: ${path}` } };
		}
		return { finding: { code: "file.unreadable", message: `Cannot read ${path}: ${info.code ?? info.message}` } };
	}
	if (!info.isDirectory()) {
		if (basename(path).toLowerCase() !== "skill.md") {
			return { finding: { code: "path.not-directory", message: `Not a directory: ${path}` } };
		}
		const dirName = basename(resolve(dirname(path)));
		return { file: path, dirName, exact: basename(path) === SKILL_FILE_NAME };
	}
	const names = await readdir(path).catch((error: unknown) => error as NodeJS.ErrnoException);
	if (names instanceof Error) {
		return { finding: { code: "file.unreadable", message: `Cannot list ${path}: ${names.code ?? names.message}` } };
	}
	const picked = pickSkillFileName(names);
	if (!picked) return { finding: { code: "file.missing", message: "Missing required file: SKILL.md" } };
	return { file: join(path, picked.name), dirName: basename(resolve(path)), exact: picked.exact };
}

/** Opens `file`, checks it is a regular file within the size cap, and runs `read`; I/O errors become diagnostics. */
function* withFile<T extends { diagnostics: Diagnostic[] }>(
	file: string,
	options: ParseSkillOptions & { file: string },
	read: (fd: number, signature: FileSignature) => FileTask<T>,
): FileTask<(T & { signature: FileSignature }) | ReadSkill> {
	let fd: number | undefined;
	try {
		fd = (yield { op: "open", path: file }) as number;
		const info = (yield { op: "fstat", fd }) as Stats;
		if (!info.isFile()) return failure(options, 0, [unreadable(`${file} is not a regular file`)]);
		const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
		if (info.size > maxFileBytes) {
			const message = `SKILL.md is ${info.size} bytes; the cap is ${maxFileBytes}`;
			return failure(options, info.size, [{ code: "file.too-large", message }]);
		}
		const signature = { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
		// The read's own fresh result, given its signature: no copy (a spread costs microseconds per file on Node 20).
		return Object.assign(yield* read(fd, signature), { signature });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code ?? String(error);
		return failure(options, 0, [unreadable(`Cannot read ${file}: ${code}`)]);
	} finally {
		if (fd !== undefined) yield { op: "close", fd };
	}
}

// On Node 20 an object spread with more properties costs microseconds; these run once or twice per file read.

/** The parse options of a read of `file`, field by field (every one: an option added later fails to compile here). */
function readOptions(options: ParseSkillOptions, file: string): ParseSkillOptions & { file: string } {
	const { profile, maxFileBytes, maxFrontmatterBytes } = options;
	return { file: options.file ?? file, profile, maxFileBytes, maxFrontmatterBytes } satisfies Record<
		keyof ParseSkillOptions,
		unknown
	>;
}

/** A parse result with the file's size, in the same key order as a spread would give. */
function withSize(parsed: ParsedSkill, size: number): ReadSkill {
	const { frontmatter, body, bodyOffset, bodyLine, diagnostics } = parsed;
	return { frontmatter, body, bodyOffset, bodyLine, diagnostics, size };
}

function failure(options: ParseSkillOptions & { file: string }, size: number, findings: Finding[]): ReadSkill {
	const diagnostics = placeFindings(findings, { file: options.file, profile: options.profile ?? "strict" });
	return { frontmatter: null, body: undefined, bodyOffset: undefined, bodyLine: undefined, diagnostics, size };
}

function unreadable(message: string): Finding {
	return { code: "file.unreadable", message };
}

function frontmatterTooLarge(options: ParseSkillOptions): Finding[] {
	const max = options.maxFrontmatterBytes ?? DEFAULT_MAX_FRONTMATTER_BYTES;
	return [
		{
			code: "frontmatter.too-large",
			message: `The frontmatter is larger than ${max} bytes`,
			at: { line: 1, column: 1 },
		},
	];
}

function grow(buffer: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
	const larger = new Uint8Array(length);
	larger.set(buffer);
	return larger;
}
