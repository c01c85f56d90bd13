import type { ParseArgsConfig } from "node:util";
import { type RemoveOutcome, removeSkills } from "../../sources/index.ts";
import { type InstallFlagValues, installFlags, installUsage, resolveTarget } from "../install-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...installFlags,
	force: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset remove NAME... [options]

Remove installed skills: the folder goes at once (renamed aside, then deleted) and its lock entry is dropped. A
folder the lock file does not know is refused unless --force: it may be someone's own work.

${installUsage}

Options:
  --force                    remove NAME from the target folder even if the lock does not know it

Exit status: 0 all removed, 1 something refused, 2 usage error.`;

/** Removes. */
export async function run(
	values: InstallFlagValues & { force?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<RemoveOutcome[]>> {
	if (positionals.length === 0) throw new UsageError("remove needs the NAME of at least one skill");
	const { target, lockFile } = resolveTarget(values, io);
	const outcomes = await removeSkills({ lockFile, target, names: positionals, force: values.force === true });
	return { exitCode: outcomes.every((o) => o.status === "removed") ? 0 : 1, data: outcomes };
}

/** One line per name. */
export function render(data: RemoveOutcome[], style: Style): string {
	return data
		.map((o) =>
			o.status === "removed" ? `${o.message}\n` : style.red(`refused ${o.name}: ${o.message} [${o.code}]\n`),
		)
		.join("");
}
