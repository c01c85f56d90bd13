import type { ParseArgsConfig } from "node:util";
import { type UpdateOutcome, type UpdateQuestion, updateSkills } from "../../sources/index.ts";
import {
	confirm,
	type InstallFlagValues,
	installFlags,
	installUsage,
	resolveTarget,
	withInterrupt,
	withLockFile,
} from "../install-flags.ts";
import type { CliIo, CommandResult, Style } from "../io.ts";
import { renderPermissionDiff, renderReview } from "../render-install.ts";
import { terminalSafe } from "../terminal-text.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...installFlags,
	strict: { type: "boolean", default: false },
	yes: { type: "boolean", default: false },
	force: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset update [NAME...] [options]

Update installed skills (every skill in the lock file with a source, or the NAMEs) from where they came from. For
each changed skill it shows the files added, changed and removed, the audit of the new version, and the permission
diff against the installed one. A new version that asks for more (a new tool, network, read or write path) or has
P1 findings needs approval like an install; any change is applied only when confirmed on a terminal or with --yes.
P0 refuses. The swap is atomic, in exactly the folder the lock entry names, after checking that it holds that skill
as installed: the installed version stays until the new one is in place. Lock entries are checked before anything
is fetched; an entry whose values are not what skillset writes (an option as a ref, a sub-folder that climbs out, a
folder reached through a link out of the lock's folder) is refused.

${installUsage}

Options:
  --strict                   validate the new versions with the strict profile
  --yes                      apply every change that is not refused (P0 is always refused)
  --force                    replace an installed copy with local edits (they are lost)

Exit status: 0 every skill current or updated, 1 something refused, not applied or failed, 2 usage error.`;

/** Updates. */
export async function run(
	values: InstallFlagValues & { strict?: boolean; yes?: boolean; force?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<UpdateOutcome[]>> {
	const { lockFile } = resolveTarget(values, io);
	const approve = async (question: UpdateQuestion) =>
		values.yes === true ||
		(await confirm(io, `${renderQuestion(question)}Apply the update of ${terminalSafe(question.review.name)}?`));
	const outcomes = await withInterrupt((signal) =>
		withLockFile(() =>
			updateSkills({
				lockFile,
				names: positionals,
				strict: values.strict === true,
				force: values.force === true,
				approve,
				signal,
			}),
		),
	);
	return { exitCode: outcomes.every((o) => o.status !== "refused") ? 0 : 1, data: outcomes };
}

function renderQuestion(question: UpdateQuestion): string {
	const { added, changed, removed } = question.files;
	return `${terminalSafe(question.review.name)}: ${added.length} added, ${changed.length} changed, ${removed.length} removed\n${renderReview(question.review)}permissions: ${renderPermissionDiff(question.permissions)}${question.widens ? " (widens: needs approval)" : ""}\n`;
}

/** One block per skill; names, messages and file names made terminal-safe (they come from the source and the lock). */
export function render(data: UpdateOutcome[], style: Style): string {
	if (data.length === 0) return "no installed skill has a source to update from\n";
	const lines: string[] = [];
	for (const outcome of data) {
		const name = terminalSafe(outcome.name);
		const head = outcome.status === "refused" ? style.red(`not updated ${name}`) : `${outcome.status} ${name}`;
		lines.push(`${head}: ${terminalSafe(outcome.message)}${outcome.code ? ` [${outcome.code}]` : ""}`);
		if (outcome.files) {
			const { added, changed, removed } = outcome.files;
			const files = [...added.map((p) => `+${p}`), ...changed.map((p) => `~${p}`), ...removed.map((p) => `-${p}`)];
			lines.push(`  files: ${terminalSafe(files.join(" "))}`);
		}
		if (outcome.permissions) lines.push(`  permissions: ${renderPermissionDiff(outcome.permissions)}`);
		if (outcome.review) lines.push(renderReview(outcome.review).trimEnd().replace(/^/gm, "  "));
	}
	return `${lines.join("\n")}\n`;
}
