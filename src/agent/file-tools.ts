import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { resolvePath } from "../policy/index.ts";
import { type AgentTool, errorResult, textResult } from "./agent-tool.ts";

/** Largest file read_file and edit_file open, in bytes. */
export const MAX_FILE_BYTES: number = 4 * 1024 * 1024;
/** Most entries list_dir returns. */
export const MAX_DIR_ENTRIES = 500;
const DEFAULT_LINES = 2_000;

const pathProperty = { type: "string", description: "A path, relative to the workspace or absolute." } as const;

/** `read_file`, `list_dir`, `write_file` and `edit_file`: contained by the permission gate, not by themselves. */
export function createFileTools(): AgentTool[] {
	return [readFileTool(), listDirTool(), writeFileTool(), editFileTool()];
}

function target(path: unknown, workspace: string): string {
	// Resolved exactly as the policy resolved it: links followed before a later `..`. A lexical `..` first would
	// reach a different file than the one authorized (`link/../x`), even one outside the workspace.
	return resolvePath(resolve(workspace), String(path));
}

function readFileTool(): AgentTool {
	return {
		name: "read_file",
		description:
			"Read a text file, by lines. Long files come in pages: read again with the offset given at the end. Also reads files inside an active skill's folder.",
		inputSchema: {
			type: "object",
			properties: {
				path: pathProperty,
				offset: { type: "integer", minimum: 1, description: "First line (1-based). Default 1." },
				limit: { type: "integer", minimum: 1, description: `Most lines. Default ${DEFAULT_LINES}.` },
			},
			required: ["path"],
			additionalProperties: false,
		},
		spec: { risk: "read", pathArgs: ["path"] },
		async execute(input, { workspace }) {
			const text = await readText(target(input.path, workspace));
			if (typeof text !== "string") return text;
			const lines = text.split("\n");
			const offset = Number(input.offset ?? 1);
			const limit = Number(input.limit ?? DEFAULT_LINES);
			const page = lines.slice(offset - 1, offset - 1 + limit).join("\n");
			const next = offset - 1 + limit < lines.length ? offset + limit : undefined;
			const more = next ? `\n[${lines.length - next + 1} more lines: read again with offset ${next}]` : "";
			return textResult(`${page}${more}`, { lines: lines.length, offset, ...(next ? { nextOffset: next } : {}) });
		},
	};
}

function listDirTool(): AgentTool {
	return {
		name: "list_dir",
		description: "List a folder's entries (folders end with /, links with @).",
		inputSchema: {
			type: "object",
			properties: { path: { ...pathProperty, description: "A folder; default the workspace." } },
			additionalProperties: false,
		},
		spec: { risk: "read", pathArgs: ["path"] },
		async execute(input, { workspace }) {
			const dir = target(input.path ?? ".", workspace);
			try {
				const entries = await readdir(dir, { withFileTypes: true });
				entries.sort((a, b) => (a.name < b.name ? -1 : 1));
				const shown = entries
					.slice(0, MAX_DIR_ENTRIES)
					.map((e) => `${e.name}${e.isDirectory() ? "/" : e.isSymbolicLink() ? "@" : ""}`);
				const more = entries.length > MAX_DIR_ENTRIES ? [`[${entries.length - MAX_DIR_ENTRIES} more entries]`] : [];
				return textResult([...shown, ...more].join("\n") || "(empty)", { entries: entries.length });
			} catch (error) {
				return errorResult(`Cannot list ${dir}: ${code(error)}`);
			}
		},
	};
}

function writeFileTool(): AgentTool {
	return {
		name: "write_file",
		description: "Create or replace a text file with the given content. Parent folders are created.",
		inputSchema: {
			type: "object",
			properties: { path: pathProperty, content: { type: "string", description: "The whole new content." } },
			required: ["path", "content"],
			additionalProperties: false,
		},
		spec: { risk: "write", pathArgs: ["path"] },
		async execute(input, { workspace }) {
			const file = target(input.path, workspace);
			const written = await writeText(file, String(input.content));
			return written ?? textResult(`Wrote ${Buffer.byteLength(String(input.content))} bytes to ${file}`);
		},
	};
}

function editFileTool(): AgentTool {
	return {
		name: "edit_file",
		description:
			"Replace an exact string in a file. old_string must occur exactly once unless replace_all is true; include enough context to make it unique.",
		inputSchema: {
			type: "object",
			properties: {
				path: pathProperty,
				old_string: { type: "string", minLength: 1, description: "The exact text to replace." },
				new_string: { type: "string", description: "The text to put in its place." },
				replace_all: { type: "boolean", description: "Replace every occurrence. Default false." },
			},
			required: ["path", "old_string", "new_string"],
			additionalProperties: false,
		},
		spec: { risk: "write", pathArgs: ["path"] },
		async execute(input, { workspace }) {
			const file = target(input.path, workspace);
			const text = await readText(file);
			if (typeof text !== "string") return text;
			const old = String(input.old_string);
			const count = text.split(old).length - 1;
			if (count === 0)
				return errorResult(`old_string was not found in ${file}; read the file and copy the text exactly`);
			if (count > 1 && input.replace_all !== true)
				return errorResult(
					`old_string occurs ${count} times in ${file}; add context to make it unique, or set replace_all`,
				);
			const updated = text.split(old).join(String(input.new_string));
			const written = await writeText(file, updated);
			return written ?? textResult(`Replaced ${count} occurrence(s) in ${file}`, { replaced: count });
		},
	};
}

/** Reads a regular file (no link as the last segment, no FIFO or device), capped. */
async function readText(file: string): Promise<string | ReturnType<typeof errorResult>> {
	let handle: Awaited<ReturnType<typeof open>>;
	try {
		handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch (error) {
		return errorResult(`Cannot read ${file}: ${code(error)}`);
	}
	try {
		const stat = await handle.stat();
		if (!stat.isFile()) return errorResult(`${file} is not a regular file`);
		if (stat.size > MAX_FILE_BYTES)
			return errorResult(
				`${file} has ${stat.size} bytes, over the ${MAX_FILE_BYTES}-byte limit; use run_shell with head, tail or grep`,
			);
		const buffer = await handle.readFile();
		if (buffer.includes(0)) return errorResult(`${file} looks binary (it contains NUL bytes)`);
		return buffer.toString("utf8");
	} finally {
		await handle.close();
	}
}

/**
 * Writes through a temporary file in the same folder and renames it into place, so the final name is never
 * followed as a link and readers never see half a file. Existing links at the name are refused.
 */
async function writeText(file: string, content: string): Promise<ReturnType<typeof errorResult> | undefined> {
	try {
		const existing = await lstat(file).catch(() => undefined);
		if (existing && !existing.isFile()) return errorResult(`${file} is not a regular file; not written`);
		await mkdir(dirname(file), { recursive: true });
		const temporary = join(dirname(file), `.${Date.now().toString(36)}-${process.pid}.tmp`);
		const handle = await open(
			temporary,
			constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
			0o644,
		);
		try {
			// A replaced file keeps its permissions (an executable script stays executable).
			if (existing) await handle.chmod(existing.mode & 0o7777);
			await handle.writeFile(content);
		} finally {
			await handle.close();
		}
		try {
			await rename(temporary, file);
		} catch (error) {
			await rm(temporary, { force: true });
			throw error;
		}
		return undefined;
	} catch (error) {
		return errorResult(`Cannot write ${file}: ${code(error)}`);
	}
}

function code(error: unknown): string {
	return (error as NodeJS.ErrnoException).code ?? String(error);
}
