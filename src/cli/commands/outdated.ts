import type { ParseArgsConfig } from "node:util";
import { checkOutdated, type OutdatedLine } from "../../sources/index.ts";
import { type InstallFlagValues, installFlags, installUsage, resolveTarget, withLockFile } from "../install-flags.ts";
import type { CliIo, CommandResult, Style } from "../io.ts";
import { terminalSafe } from "../terminal-text.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = { ...installFlags };

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset outdated [NAME...] [options]

For each installed skill with a source (or the NAMEs), say whether a newer version exists: the git ref moved, the
index or archive digest changed, the source folder changed. Changes nothing.

${installUsage}

Exit status: 0 everything current, 1 something is outdated or could not be checked, 2 usage error.`;

/** Checks. */
export async function run(
	values: InstallFlagValues,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<OutdatedLine[]>> {
	const { lockFile } = resolveTarget(values, io);
	const lines = await withLockFile(() => checkOutdated(lockFile, positionals));
	return { exitCode: lines.every((line) => line.status === "current") ? 0 : 1, data: lines };
}

/** One line per skill; names, ids and messages (from the lock and the source) made terminal-safe. */
export function render(data: OutdatedLine[], style: Style): string {
	if (data.length === 0) return "no installed skill has a source\n";
	const short = (id?: string) => (id ? terminalSafe(id.replace(/^sha256:/, "").slice(0, 12)) : "?");
	return data
		.map((line) => {
			const name = terminalSafe(line.name);
			if (line.status === "outdated")
				return `${style.yellow(`${name}  outdated  ${short(line.installed)} -> ${short(line.latest)}`)}\n`;
			if (line.status === "unknown") {
				const why = `${terminalSafe(line.message ?? "")}${line.code ? ` [${line.code}]` : ""}`;
				return `${style.red(`${name}  unknown  ${why}`)}\n`;
			}
			return `${name}  current  ${short(line.installed)}\n`;
		})
		.join("");
}
