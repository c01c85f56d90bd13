import { isUtf8 } from "node:buffer";
import { dirname, extname } from "node:path";
import type { Tokenizer } from "../catalog/index.ts";
import type { IndexedSkill } from "../discovery/index.ts";
import { type ContainCode, readContained } from "./contain.ts";
import { sha256 } from "./integrity.ts";
import type { IntegrityOptions } from "./load-skill.ts";
import type { RefusalCode } from "./session-types.ts";

/** Paging for a resource read: 1-based first line and line count. */
export interface ReadResourceOptions {
	/** First line to return, 1-based. Default 1. */
	offset?: number;
	/** Most lines to return. Default and maximum 2,000 (and never more than 50 KB of text). */
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
	/** Lines returned, and lines in the file. */
	lines: number;
	totalLines: number;
	/** Where the next page starts, when there is more. */
	nextOffset?: number;
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
const MEDIA_TYPES: Readonly<Record<string, string>> = {
	".md": "text/markdown",
	".txt": "text/plain",
	".py": "text/x-python",
	".sh": "text/x-shellscript",
	".js": "text/javascript",
	".ts": "text/typescript",
	".json": "application/json",
	".yaml": "application/yaml",
	".yml": "application/yaml",
	".html": "text/html",
	".css": "text/css",
	".csv": "text/csv",
	".png": "image/png",
	".jpg": "image/jpeg",
	".jpeg": "image/jpeg",
	".gif": "image/gif",
	".svg": "image/svg+xml",
	".pdf": "application/pdf",
	".zip": "application/zip",
	".ttf": "font/ttf",
	".woff2": "font/woff2",
};

/** Reads one file of a skill through the contained reader, checks it in verify mode, and pages it. */
export function readSkillResource(
	skill: IndexedSkill,
	relPath: string,
	options: ReadResourceOptions & {
		tokenizer: Tokenizer;
		integrity?: IntegrityOptions;
		maxBytes?: number;
		allowHardLinks?: boolean;
	},
): ResourceRead {
	const fail = (code: ResourceReadError["code"], message: string): ResourceReadError => ({
		ok: false,
		name: skill.name,
		path: relPath,
		code,
		message,
	});
	const read = readContained(dirname(skill.realFile), relPath, {
		maxBytes: options.maxBytes,
		allowHardLinks: options.allowHardLinks === true,
	});
	if (!read.ok) return fail(read.code, read.message);
	if (options.integrity) {
		const pinned = options.integrity.lock.skills[skill.name]?.files[read.path];
		if (!pinned) return fail("integrity.mismatch", `'${read.path}' is not in the lock: an extra file`);
		if (pinned.sha256 !== sha256(read.bytes))
			return fail("integrity.mismatch", `'${read.path}' changed since it was locked`);
	}
	const mediaType = MEDIA_TYPES[extname(read.path).toLowerCase()] ?? "application/octet-stream";
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

function page(text: string, options: ReadResourceOptions & { tokenizer: Tokenizer }) {
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	const offset = Math.max(1, Math.floor(options.offset ?? 1));
	const limit = Math.min(DEFAULT_LINES, Math.max(1, Math.floor(options.limit ?? DEFAULT_LINES)));
	const taken: string[] = [];
	let bytes = 0;
	for (let i = offset - 1; i < lines.length && taken.length < limit; i++) {
		const line = lines[i] ?? "";
		bytes += Buffer.byteLength(line) + 1;
		if (bytes > MAX_PAGE_BYTES && taken.length > 0) break;
		taken.push(line);
	}
	const next = offset + taken.length;
	let content = taken.join("\n");
	// Past the end, the page says so: an empty page would read as an empty file.
	if (offset > lines.length && offset > 1)
		content = `[offset ${offset} is past the end: the file has ${lines.length} lines; read again with offset=1]`;
	if (next <= lines.length) content += `\n\n[${lines.length - next + 1} more lines: read again with offset=${next}]`;
	return {
		content,
		offset,
		lines: taken.length,
		totalLines: lines.length,
		...(next <= lines.length ? { nextOffset: next } : {}),
		tokens: options.tokenizer.count(content),
	};
}

/** Binary when it has a NUL in its first 8 KB or is not valid UTF-8. */
function isBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, 8192).includes(0) || !isUtf8(bytes);
}
