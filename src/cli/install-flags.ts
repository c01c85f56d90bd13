import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { ParseArgsConfig } from "node:util";
import { PRESET_NAMES, PRESETS, type PresetName } from "../discovery/index.ts";
import { LOCK_FILE_NAME } from "../runtime/index.ts";
import { homeFrom } from "../settings/index.ts";
import { SourceError } from "../sources/index.ts";
import { type CliIo, UsageError } from "./io.ts";

/** Where installs go: `--scope`, `--client`, `--dir`, and the lock file. */
export const installFlags: NonNullable<ParseArgsConfig["options"]> = {
	scope: { type: "string", default: "workspace" },
	client: { type: "string" },
	dir: { type: "string" },
	lock: { type: "string" },
	json: { type: "boolean", default: false },
};

/** The help lines for `installFlags`. */
export const installUsage: string = `Target:
  --scope workspace|user     install into the workspace (default) or the user's home
  --client NAME              the folder that client reads: ${PRESET_NAMES.join(", ")}
                             (default: .agents/skills, read by every client that follows the cross-client convention)
  --dir DIR                  any skills folder instead
  --lock FILE                the lock file (default: skills.lock.json in the workspace, or beside the user folder)
  --json                     print the result as JSON`;

/** The values `installFlags` parse to. */
export interface InstallFlagValues {
	scope?: string;
	client?: string;
	dir?: string;
	lock?: string;
	json?: boolean;
}

/** The skills folder and lock file the flags name. */
export function resolveTarget(values: InstallFlagValues, io: CliIo): { target: string; lockFile: string } {
	if (values.scope !== "workspace" && values.scope !== "user") {
		throw new UsageError(`--scope must be workspace or user, not '${values.scope}'`);
	}
	if (values.dir && values.client) throw new UsageError("--dir and --client name two different folders: give one");
	const base = values.scope === "user" ? homeFrom(io.env, homedir()) : io.cwd;
	let folder = ".agents/skills";
	if (values.client) {
		if (!(PRESET_NAMES as readonly string[]).includes(values.client)) {
			throw new UsageError(`--client ${values.client} is not known (known: ${PRESET_NAMES.join(", ")})`);
		}
		const preset = PRESETS[values.client as PresetName];
		const folders = values.scope === "user" ? preset.user : preset.workspace;
		if (!folders[0]) throw new UsageError(`--client ${values.client} has no ${values.scope} folder`);
		folder = folders[0];
	}
	const target = values.dir ? resolve(io.cwd, values.dir) : isAbsolute(folder) ? folder : join(base, folder);
	const inWorkspace = !relative(io.cwd, target).startsWith("..") && values.scope === "workspace";
	const lockFile = values.lock
		? resolve(io.cwd, values.lock)
		: inWorkspace
			? join(io.cwd, LOCK_FILE_NAME)
			: join(target, "..", LOCK_FILE_NAME);
	return { target, lockFile };
}

/** Asks a yes/no question on the terminal; false without one. */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
	if (!io.isTTY || !process.stdin.isTTY) return false;
	const prompt = createInterface({ input: process.stdin, output: process.stderr });
	try {
		return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
	} finally {
		prompt.close();
	}
}

/** An AbortSignal that Ctrl-C trips while `task` runs, so installs stop between files and clean up. */
export async function withInterrupt<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
	const controller = new AbortController();
	const stop = () => controller.abort();
	process.once("SIGINT", stop);
	try {
		return await task(controller.signal);
	} finally {
		process.removeListener("SIGINT", stop);
	}
}

/**
 * Runs a lock-reading library call; a lock file that cannot be read or is broken (what the call throws rather than
 * reports per skill) becomes a usage error naming the file, as `lock --verify` reports it, never a stack trace.
 */
export async function withLockFile<T>(task: () => Promise<T>): Promise<T> {
	try {
		return await task();
	} catch (error) {
		if (error instanceof SourceError) throw new UsageError(`${error.message} [${error.code}]`);
		throw error;
	}
}
