import type { ParseArgsConfig } from "node:util";
import { type RemoveOutcome, removeSkills } from "../../sources/index.ts";
import { type InstallFlagValues, installFlags, installUsage, resolveTarget, withLockFile } from "../install-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { terminalSafe } from "../terminal-text.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...installFlags,
	force: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset remove NAME... [options]

Remove installed skills: the folder goes at once (renamed aside, then deleted) and its lock entry is dropped. Only
what skillset add put there and nobody changed since goes without --force: a folder the lock file does not know, a
skill the lock only pins (no install source) and an installed skill with local edits are someone's own work. A
folder reached through a link that leads out of the lock's folder is never removed.

${installUsage}

Options:
  --force                    remove NAME even if skillset add did not put it there, or it changed since

Exit status: 0 all removed, 1 something refused, 2 usage error.`;

/** Removes. */
export async function run(
	values: InstallFlagValues & { force?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<RemoveOutcome[]>> {
	if (positionals.length === 0) throw new UsageError("remove needs the NAME of at least one skill");
	const { target, lockFile } = resolveTarget(values, io);
	const outcomes = await withLockFile(() =>
		removeSkills({ lockFile, target, names: positionals, force: values.force === true }),
	);
	return { exitCode: outcomes.every((o) => o.status === "removed" && o.code === undefined) ? 0 : 1, data: outcomes };
}

/** One line per name; names and messages (from the lock and the command line) made terminal-safe. */
export function render(data: RemoveOutcome[], style: Style): string {
	const safe = terminalSafe;
	return data
		.map((o) =>
			o.status === "removed" && o.code === undefined
				? `${safe(o.message)}\n`
				: o.status === "removed"
					? `${style.yellow(`${safe(o.message)} [${o.code}]`)}\n`
					: `${style.red(`refused ${safe(o.name)}: ${safe(o.message)} [${o.code}]`)}\n`,
		)
		.join("");
}
