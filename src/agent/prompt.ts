import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The base instructions of the agent's system prompt. */
export const BASE_INSTRUCTIONS = `You are a capable assistant working in the user's workspace through tools. Use the tools to look before you act, keep changes small and exact, and say plainly what you did. Paths are relative to the workspace unless absolute. Skill folders are read-only. When a tool is refused, do not try to get around the refusal: tell the user what you needed and why.`;

/** Most characters of AGENTS.md text in the prompt, all files together. */
export const DEFAULT_AGENTS_MD_CHARS = 32_000;

/** One AGENTS.md that went into the prompt. */
export interface AgentsMdFile {
	path: string;
	text: string;
}

/** The AGENTS.md files for a workspace, and the text for the prompt (capped, with a stated marker when cut). */
export interface AgentsMd {
	files: AgentsMdFile[];
	text: string;
	truncated: boolean;
}

const MAX_FILE_BYTES = 256 * 1024;

/**
 * Reads AGENTS.md from the workspace and each ancestor up to the repository root (the nearest folder with `.git`;
 * only the workspace itself when there is none), farthest first so the nearest comes last and wins. Links, FIFOs
 * and other non-regular files are skipped; the text is capped at `maxChars` with a marker saying what was cut.
 */
export function readAgentsMd(workspace: string, maxChars: number = DEFAULT_AGENTS_MD_CHARS): AgentsMd {
	const files: AgentsMdFile[] = [];
	for (const dir of folderChain(resolve(workspace))) {
		const path = join(dir, "AGENTS.md");
		const text = readRegularFile(path);
		if (text !== undefined && text.trim() !== "") files.push({ path, text: text.trim() });
	}
	const joined = files.map((file) => `<agents_md path="${file.path}">\n${file.text}\n</agents_md>`).join("\n\n");
	if (joined.length <= maxChars) return { files, text: joined, truncated: false };
	// Keep the end: the nearest file is last and most specific.
	const kept = joined.slice(joined.length - maxChars);
	const marker = `[AGENTS.md cut: the first ${joined.length - maxChars} of ${joined.length} characters were left out; read the files for the rest: ${files.map((f) => f.path).join(", ")}]`;
	return { files, text: `${marker}\n${kept}`, truncated: true };
}

/** The workspace and its ancestors up to the repository root, farthest first. */
function folderChain(workspace: string): string[] {
	const chain: string[] = [];
	let current = workspace;
	for (;;) {
		chain.push(current);
		if (exists(join(current, ".git"))) return chain.reverse();
		const parent = dirname(current);
		if (parent === current) return [workspace];
		current = parent;
	}
}

function exists(path: string): boolean {
	try {
		lstatSync(path);
		return true;
	} catch {
		return false;
	}
}

function readRegularFile(path: string): string | undefined {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	} catch {
		return undefined;
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) return undefined;
		const buffer = Buffer.alloc(Math.min(stat.size, MAX_FILE_BYTES));
		const read = readSync(fd, buffer, 0, buffer.length, 0);
		return buffer.subarray(0, read).toString("utf8");
	} finally {
		closeSync(fd);
	}
}

/** The parts of a system prompt. */
export interface SystemPromptParts {
	instructions: string;
	/** The skills section (`systemPromptSection` of the catalog); empty without skills. */
	skills: string;
	agentsMd: string;
	/** Extra lines, e.g. that no sandbox is available. */
	notes?: readonly string[];
}

/** Joins the parts: instructions, notes, skills, then the project's AGENTS.md. */
export function renderSystemPrompt(parts: SystemPromptParts): string {
	const sections = [parts.instructions.trim()];
	if (parts.notes?.length) sections.push(parts.notes.join("\n"));
	if (parts.skills.trim()) sections.push(parts.skills.trim());
	if (parts.agentsMd) sections.push(`## Project instructions (AGENTS.md)\n\n${parts.agentsMd}`);
	return `${sections.join("\n\n")}\n`;
}
