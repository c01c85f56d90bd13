import type { Stats } from "node:fs";
import { decodeRange } from "./decode.ts";
import { type Diagnostic, type Finding, placeFindings } from "./diagnostics.ts";
import { DEFAULT_MAX_FRONTMATTER_BYTES } from "./fences.ts";
import { type FileTask, READ_MORE } from "./file-task.ts";
import {
	DEFAULT_MAX_FILE_BYTES,
	failedParse,
	type ParsedSkill,
	type ParseSkillOptions,
	parseSkillFrontmatter,
	parseSkillMd,
} from "./parse-skill.ts";

// The reads of SKILL.md as file tasks (see file-task.ts): each rule of a read is written once here, and both the
// synchronous and the asynchronous driver run it.

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
	/** Set when `noFollow` refused the file because it is a symbolic link (nothing was read). */
	symlink?: true;
}

/** Options of a read of SKILL.md: the parse options, and whether a link at the file's own name is refused. */
export interface ReadSkillOptions extends ParseSkillOptions {
	/**
	 * Refuse SKILL.md when it is a symbolic link (`O_NOFOLLOW`; links to folders on the way still count): for a
	 * caller that saw a plain file and must read that file, not whatever a link put there since leads to.
	 */
	noFollow?: boolean;
}

/** The body of SKILL.md, trimmed, read from where the frontmatter read said it starts. */
export interface ReadBody {
	body: string | undefined;
	diagnostics: Diagnostic[];
}

/** Bytes of the first chunk of a frontmatter read: enough for nearly every frontmatter. */
export const FIRST_CHUNK_BYTES = 4096;
// Room beyond the frontmatter cap for a BOM, the fence lines and blank lines before the opening fence.
const FENCE_SLACK_BYTES = 4096;
const NO_BYTES = new Uint8Array(0);

type Step<T> = T | ReadSkill | typeof READ_MORE;

/**
 * What every read of SKILL.md shares: the file must be a regular file within the size cap, and an I/O error is a
 * `file.unreadable` diagnostic. A subclass says what to read once the file is open (`begin`) and after each read.
 */
abstract class SkillFileTask<T> implements FileTask<T | ReadSkill> {
	buffer: Uint8Array = NO_BYTES;
	offset = 0;
	position = 0;
	readonly path: string;
	readonly noFollow: boolean;
	protected readonly options: ParseSkillOptions & { file: string };
	protected signature: FileSignature | undefined;

	constructor(path: string, options: ReadSkillOptions) {
		this.path = path;
		this.noFollow = options.noFollow === true;
		this.options = readOptions(options, path);
	}

	opened(info: Stats): Step<T> {
		if (!info.isFile()) return failure(this.options, 0, [unreadable(`${this.path} is not a regular file`)]);
		const maxFileBytes = this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
		if (info.size > maxFileBytes) {
			const message = `SKILL.md is ${info.size} bytes; the cap is ${maxFileBytes}`;
			return failure(this.options, info.size, [{ code: "file.too-large", message }]);
		}
		this.signature = { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
		return this.begin(info.size);
	}

	failed(error: unknown): ReadSkill {
		const code = (error as NodeJS.ErrnoException).code ?? String(error);
		if (this.noFollow && code === "ELOOP") {
			const refused = failure(this.options, 0, [unreadable(`${this.path} is a symbolic link; it is not followed`)]);
			refused.symlink = true;
			return refused;
		}
		return failure(this.options, 0, [unreadable(`Cannot read ${this.path}: ${code}`)]);
	}

	abstract read(bytesRead: number): Step<T>;

	/** The file is open, a regular file of `size` bytes within the cap: the first step. */
	protected abstract begin(size: number): Step<T>;

	/** Asks for a read into `buffer` from `offset` to its end, from `position` in the file. */
	protected readInto(buffer: Uint8Array, offset: number, position: number): typeof READ_MORE {
		this.buffer = buffer;
		this.offset = offset;
		this.position = position;
		return READ_MORE;
	}

	/** A parse result with the file's size and signature, in the key order a spread once gave (no copy of it). */
	protected result(parsed: ParsedSkill, size: number): ReadSkill {
		const { frontmatter, body, bodyOffset, bodyLine, diagnostics } = parsed;
		return { frontmatter, body, bodyOffset, bodyLine, diagnostics, size, signature: this.signature };
	}
}

/** Reads the frontmatter in growing chunks until the parser has seen the closing fence, bounded by the cap. */
export class FrontmatterTask extends SkillFileTask<ReadSkill> {
	readonly #scratch: Uint8Array | undefined;
	readonly #prefix: ParseSkillOptions & { complete: boolean };
	#size = 0;
	#limit = 0;
	#filled = 0;

	/** `scratch` serves as the first chunk when nothing keeps a view of it after the read (synchronous reads). */
	constructor(path: string, options: ReadSkillOptions, scratch?: Uint8Array) {
		super(path, options);
		this.#scratch = scratch;
		const { file, profile, maxFileBytes, maxFrontmatterBytes } = this.options;
		this.#prefix = { file, profile, maxFileBytes, maxFrontmatterBytes, complete: false };
	}

	protected begin(size: number): typeof READ_MORE {
		const max = this.options.maxFrontmatterBytes ?? DEFAULT_MAX_FRONTMATTER_BYTES;
		this.#size = size;
		this.#limit = Math.min(size, max + FENCE_SLACK_BYTES);
		const first = Math.min(FIRST_CHUNK_BYTES, Math.max(size, 1));
		const buffer = this.#scratch ? this.#scratch.subarray(0, first) : new Uint8Array(first);
		return this.readInto(buffer, 0, 0);
	}

	read(bytesRead: number): ReadSkill | typeof READ_MORE {
		const filled = this.#filled + bytesRead;
		this.#filled = filled;
		this.#prefix.complete = bytesRead === 0 || filled >= this.#size;
		const parsed = parseSkillFrontmatter(this.buffer.subarray(0, filled), this.#prefix);
		if (!("needMore" in parsed)) return this.result(parsed, this.#size);
		if (filled >= this.#limit) {
			const tooLarge = failure(this.options, this.#size, frontmatterTooLarge(this.options));
			tooLarge.signature = this.signature;
			return tooLarge;
		}
		let buffer = this.buffer;
		if (filled === buffer.length) buffer = grow(buffer, Math.min(buffer.length * 2, this.#limit));
		return this.readInto(buffer, filled, filled);
	}
}

/** Reads the body from where the frontmatter read said it starts, trimmed. */
export class BodyTask extends SkillFileTask<ReadBody> {
	readonly #location: { bodyOffset: number; bodyLine: number };

	constructor(path: string, location: { bodyOffset: number; bodyLine: number }, options: ReadSkillOptions) {
		super(path, options);
		this.#location = location;
	}

	protected begin(size: number): typeof READ_MORE {
		const bytes = new Uint8Array(Math.max(0, size - this.#location.bodyOffset));
		return this.readInto(bytes, 0, this.#location.bodyOffset);
	}

	read(bytesRead: number): ReadBody {
		const decoded = decodeRange(this.buffer, 0, bytesRead, this.#location.bodyLine);
		const profile = this.options.profile ?? "strict";
		const diagnostics = placeFindings(decoded.findings, { file: this.options.file, profile });
		return { body: decoded.text.trim(), diagnostics };
	}
}

/** Reads and parses the whole file. */
export class WholeTask extends SkillFileTask<ReadSkill> {
	#size = 0;

	protected begin(size: number): typeof READ_MORE {
		this.#size = size;
		return this.readInto(new Uint8Array(size), 0, 0);
	}

	read(bytesRead: number): ReadSkill {
		return this.result(parseSkillMd(this.buffer.subarray(0, bytesRead), this.options), this.#size);
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

/** A failed parse (only on a refusal or an error: the spread costs nothing that matters) with the file's size. */
function failure(options: ParseSkillOptions & { file: string }, size: number, findings: Finding[]): ReadSkill {
	return { ...failedParse(findings, options.file, options.profile ?? "strict"), size };
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
