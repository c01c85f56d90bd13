import { Buffer } from "node:buffer";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { type Finding, placeFindings } from "./diagnostics.ts";
import { runAsync, runSync } from "./file-task.ts";
import {
	BodyTask,
	FIRST_CHUNK_BYTES,
	FrontmatterTask,
	type ReadBody,
	type ReadSkill,
	type ReadSkillOptions,
	WholeTask,
} from "./read-tasks.ts";
import { type SkillValidation, type ValidateSkillOptions, validateParsedSkill } from "./validate-skill.ts";

/** The one spelling of the skill file that every client finds. */
export const SKILL_FILE_NAME = "SKILL.md";

/** Which directory entry is the skill file: exactly `SKILL.md`, else `skill.md`, else another case, by name. */
export function pickSkillFileName(names: Iterable<string>): { name: string; exact: boolean } | undefined {
	const candidates = [...names].filter((name) => name.toLowerCase() === "skill.md");
	if (candidates.includes(SKILL_FILE_NAME)) return { name: SKILL_FILE_NAME, exact: true };
	if (candidates.includes("skill.md")) return { name: "skill.md", exact: false };
	const [first] = candidates.sort();
	return first === undefined ? undefined : { name: first, exact: false };
}

/**
 * Reads only as many bytes of SKILL.md as the frontmatter needs (in growing chunks, bounded by the frontmatter
 * cap) and parses them. The body is left on disk: `bodyOffset` says where it starts for {@link readSkillBody}.
 */
export function readSkillFrontmatter(file: string, options: ReadSkillOptions = {}): Promise<ReadSkill> {
	return runAsync(new FrontmatterTask(file, options));
}

// The first chunk of every synchronous read goes here: a synchronous read finishes (and nothing keeps a view of
// the bytes) before the next one starts, so one buffer serves them all and discovery allocates none per file.
const SYNC_SCRATCH: Uint8Array = Buffer.allocUnsafeSlow(FIRST_CHUNK_BYTES);

/** {@link readSkillFrontmatter} with synchronous I/O: several times faster for many files, but blocking. */
export function readSkillFrontmatterSync(file: string, options: ReadSkillOptions = {}): ReadSkill {
	return runSync(new FrontmatterTask(file, options, SYNC_SCRATCH));
}

/** Reads the body of SKILL.md from where {@link readSkillFrontmatter} said it starts, trimmed. */
export function readSkillBody(
	file: string,
	location: { bodyOffset: number; bodyLine: number },
	options: ReadSkillOptions = {},
): Promise<ReadBody> {
	return runAsync(new BodyTask(file, location, options)).then(bodyOf);
}

/** {@link readSkillBody} with synchronous I/O. */
export function readSkillBodySync(
	file: string,
	location: { bodyOffset: number; bodyLine: number },
	options: ReadSkillOptions = {},
): ReadBody {
	return bodyOf(runSync(new BodyTask(file, location, options)));
}

/** The body and its diagnostics alone, also when the read failed (a failed read's other fields say nothing here). */
function bodyOf(read: ReadBody | ReadSkill): ReadBody {
	return { body: read.body, diagnostics: read.diagnostics };
}

/** Reads and parses a whole SKILL.md file. */
export function readSkillMd(file: string, options: ReadSkillOptions = {}): Promise<ReadSkill> {
	return runAsync(new WholeTask(file, options));
}

/** {@link readSkillMd} with synchronous I/O. */
export function readSkillMdSync(file: string, options: ReadSkillOptions = {}): ReadSkill {
	return runSync(new WholeTask(file, options));
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
