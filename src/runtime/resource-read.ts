import { isUtf8 } from "node:buffer";
import { dirname } from "node:path";
import type { Tokenizer } from "../catalog/index.ts";
import type { IndexedSkill } from "../discovery/index.ts";
import { checkRelativePath } from "./contain.ts";
import { type ContainedRead, readContainedAsync } from "./contain-async.ts";
import type { ContainCode, ContainError } from "./contain-errors.ts";
import { sha256 } from "./integrity.ts";
import type { IntegrityOptions } from "./load-skill.ts";
import { mediaTypeOf } from "./media-type.ts";
import type { RefusalCode } from "./session-types.ts";

/**
 * Paging for a resource read: 1-based first line, the character of that line to start at, and a line count. A
 * page never holds more than 50,000 bytes of text: a longer line is cut, and the page says where it continues.
 */
export interface ReadResourceOptions {
	/** First line to return, 1-based. Default 1. */
	offset?: number;
	/** Where to start in the first line, 1-based (UTF-16 units, as given by `nextColumn`). Default 1. */
	column?: number;
	/** Most lines to return. Default and maximum 2,000 (and never more than 50,000 bytes of text). */
	limit?: number;
}

/** A page of a text file, or the metadata of a binary one. */
export interface ResourceReadOk {
	ok: true;
	name: string;
	path: string;
	binary: boolean;
	size: number;
	mediaType: string;
	/** The page's text (for a binary file: a one-line description, never its bytes). */
	content: string;
	offset: number;
	/** Where the first line started, when not at its beginning. */
	column?: number;
	/** Lines returned (a cut line counts as one), and lines in the file. */
	lines: number;
	totalLines: number;
	/** Where the next page starts, when there is more: a line, and a column when a long line was cut. */
	nextOffset?: number;
	nextColumn?: number;
	tokens: number;
}

/** A refused read, with a message the model can act on. */
export interface ResourceReadError {
	ok: false;
	name: string;
	path: string;
	code: ContainCode | "integrity.mismatch" | RefusalCode;
	message: string;
}

/** The outcome of a resource read. */
export type ResourceRead = ResourceReadOk | ResourceReadError;

const DEFAULT_LINES = 2000;
const MAX_PAGE_BYTES = 50_000;

/** What a resource read needs: paging, the tokenizer, verify mode, the read cap and the hard-link rule. */
export type SkillResourceOptions = ReadResourceOptions & {
	tokenizer: Tokenizer;
	integrity?: IntegrityOptions;
	maxBytes?: number;
	allowHardLinks?: boolean;
};

/**
 * Reads one file of a skill through the contained reader, checks it against the origin's pins or the lock in verify
 * mode, and pages it. The bytes are read in chunks off the event loop (and hashed as they arrive), so a large read
 * never holds up other work.
 */
export async function readSkillResource(
	skill: IndexedSkill,
	relPath: string,
	options: SkillResourceOptions,
): Promise<ResourceRead> {
	const unpinned = refuseUnpinned(skill, relPath);
	if (unpinned) return unpinned;
	const read = await readContainedAsync(dirname(skill.realFile), relPath, {
		maxBytes: options.maxBytes,
		allowHardLinks: options.allowHardLinks === true,
		...(skill.origin || options.integrity ? { digest: "sha256" as const } : {}),
	});
	return finishRead(skill, relPath, read, options);
}

function failure(skill: IndexedSkill, relPath: string, code: ResourceReadError["code"], message: string) {
	return { ok: false as const, name: skill.name, path: relPath, code, message };
}

/** A remote skill's copy serves only its pinned files: anything else is never opened. */
function refuseUnpinned(skill: IndexedSkill, relPath: string): ResourceReadError | undefined {
	const unpinned = skill.origin ? checkPinned(skill, relPath) : undefined;
	return unpinned ? failure(skill, relPath, "integrity.mismatch", unpinned) : undefined;
}

/** Checks the bytes read against the origin's pins or the lock, then pages them (or describes a binary file). */
function finishRead(
	skill: IndexedSkill,
	relPath: string,
	read: ContainedRead | ContainError,
	options: SkillResourceOptions,
): ResourceRead {
	const fail = (code: ResourceReadError["code"], message: string) => failure(skill, relPath, code, message);
	if (!read.ok) return fail(read.code, read.message);
	const digest = () => read.sha256 ?? sha256(read.bytes);
	if (skill.origin) {
		const pin = Object.hasOwn(skill.pins ?? {}, read.path) ? skill.pins?.[read.path] : undefined;
		if (pin?.sha256 !== digest() || pin.size !== read.size)
			return fail("integrity.mismatch", `'${read.path}' changed since it was verified from ${skill.origin}`);
	} else if (options.integrity) {
		const pinned = options.integrity.lock.skills[skill.name]?.files[read.path];
		if (!pinned) return fail("integrity.mismatch", `'${read.path}' is not in the lock: an extra file`);
		if (pinned.sha256 !== digest()) return fail("integrity.mismatch", `'${read.path}' changed since it was locked`);
	}
	const mediaType = mediaTypeOf(read.path);
	const base = { ok: true as const, name: skill.name, path: read.path, size: read.size, mediaType };
	if (isBinary(read.bytes)) {
		const content = `${read.path} is a binary file (${mediaType}, ${read.size} bytes); its content is not shown.`;
		return {
			...base,
			binary: true,
			content,
			offset: 1,
			lines: 0,
			totalLines: 0,
			tokens: options.tokenizer.count(content),
		};
	}
	return { ...base, binary: false, ...page(new TextDecoder().decode(read.bytes), options) };
}

/** Why `relPath` may not be read from a remote skill's copy (not a clean path, or not among its pinned files). */
function checkPinned(skill: IndexedSkill, relPath: string): string | undefined {
	const segments = checkRelativePath(relPath);
	if (!Array.isArray(segments)) return undefined; // the contained reader refuses it with its own code
	const path = segments.join("/");
	if (skill.pins && Object.hasOwn(skill.pins, path)) return undefined;
	return `'${path}' is not among the files verified from ${skill.origin}`;
}

function page(text: string, options: SkillResourceOptions) {
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	const offset = Math.max(1, Math.floor(options.offset ?? 1));
	const column = Math.max(1, Math.floor(options.column ?? 1));
	const limit = Math.min(DEFAULT_LINES, Math.max(1, Math.floor(options.limit ?? DEFAULT_LINES)));
	const taken: string[] = [];
	let bytes = 0;
	let cut: { line: number; column: number; length: number } | undefined;
	for (let i = offset - 1; i < lines.length && taken.length < limit; i++) {
		const line = lines[i] ?? "";
		const start = i === offset - 1 ? Math.min(column - 1, line.length) : 0;
		const rest = start > 0 ? line.slice(start) : line;
		const size = Buffer.byteLength(rest) + 1;
		if (bytes + size <= MAX_PAGE_BYTES) {
			taken.push(rest);
			bytes += size;
			continue;
		}
		if (taken.length > 0) break;
		// One line alone is over the page: cut it at a character boundary and say where it continues.
		const end = cutAt(rest, MAX_PAGE_BYTES - 1);
		taken.push(rest.slice(0, end));
		cut = { line: i + 1, column: start + end + 1, length: line.length };
		break;
	}
	const next = cut ? cut.line : offset + taken.length;
	let content = taken.join("\n");
	// Past the end, the page says so: an empty page would read as an empty file.
	if (offset > lines.length && offset > 1)
		content = `[offset ${offset} is past the end: the file has ${lines.length} lines; read again with offset=1]`;
	if (cut) {
		content += `\n\n[line ${cut.line} is cut after character ${cut.column - 1} of ${cut.length} (a page holds at most ${MAX_PAGE_BYTES} bytes): read again with offset=${cut.line} column=${cut.column}]`;
	} else if (next <= lines.length) {
		content += `\n\n[${lines.length - next + 1} more lines: read again with offset=${next}]`;
	}
	return {
		content,
		offset,
		...(column > 1 ? { column } : {}),
		lines: taken.length,
		totalLines: lines.length,
		...(cut || next <= lines.length ? { nextOffset: next } : {}),
		...(cut ? { nextColumn: cut.column } : {}),
		tokens: options.tokenizer.count(content),
	};
}

/** The longest prefix of `text` (in UTF-16 units) whose UTF-8 form fits in `maxBytes`, never splitting a pair. */
function cutAt(text: string, maxBytes: number): number {
	let bytes = 0;
	let index = 0;
	while (index < text.length) {
		const code = text.charCodeAt(index);
		const pair = code >= 0xd800 && code < 0xdc00 && index + 1 < text.length;
		const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
		if (bytes + size > maxBytes) break;
		bytes += size;
		index += pair ? 2 : 1;
	}
	return Math.max(index, 1);
}

/** Binary when it has a NUL in its first 8 KB or is not valid UTF-8. */
function isBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, 8192).includes(0) || !isUtf8(bytes);
}
