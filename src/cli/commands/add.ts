import { createInterface } from "node:readline/promises";
import type { ParseArgsConfig } from "node:util";
import { type AddResult, addSkills, type SkillReview } from "../../sources/index.ts";
import {
	confirm,
	type InstallFlagValues,
	installFlags,
	installUsage,
	resolveTarget,
	withInterrupt,
} from "../install-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { plural } from "../render-diagnostics.ts";
import { renderReview } from "../render-install.ts";
import { exactText, terminalSafe } from "../terminal-text.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...installFlags,
	skill: { type: "string", multiple: true },
	all: { type: "boolean", default: false },
	strict: { type: "boolean", default: false },
	force: { type: "boolean", default: false },
	yes: { type: "boolean", default: false },
	"allow-unverified": { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset add SOURCE [options]

Install skills from SOURCE: a local folder or archive (.tar.gz, .zip); a git URL (https://…/repo.git, ssh://,
git@host:path, file:// of a repository) with an optional #ref (branch, tag or commit); owner/repo[/path][@ref] on
GitHub; an archive URL; or a well-known index origin (https://example.com, read from
/.well-known/agent-skills/index.json). Before anything is written each skill is validated (lenient; --strict for
the spec), audited (P0 refuses it; P1 asks on a terminal and needs --yes otherwise), and its permissions are shown.
Each skill is staged beside its target and renamed into place, and recorded in the lock file with its source.

Choose:
  --skill NAME               install this skill of the source (repeatable)
  --all                      install every skill of the source

${installUsage}

Options:
  --strict                   validate with the strict profile
  --force                    replace an existing different skill of the same name
  --yes                      accept P1 audit findings without asking
  --allow-unverified         install from a v0.1.0 index (no digests: its files cannot be verified); over
                             plain http name the v0.1.0 index URL itself (no automatic fallback there)

Exit status: 0 every skill installed (or already identical), 1 something refused or failed, 2 usage error.`;

/** Installs. */
export async function run(
	values: InstallFlagValues & {
		skill?: string[];
		all?: boolean;
		strict?: boolean;
		force?: boolean;
		yes?: boolean;
		"allow-unverified"?: boolean;
	},
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<AddResult>> {
	const [source, ...extra] = positionals;
	if (source === undefined) throw new UsageError("add needs a SOURCE");
	if (extra.length > 0) throw new UsageError("add takes one SOURCE");
	if (values.all && values.skill) throw new UsageError("--all and --skill choose differently: give one");
	const { target, lockFile } = resolveTarget(values, io);
	const approve = async (review: SkillReview) =>
		values.yes === true ||
		(await confirm(io, `${renderReview(review)}Install ${terminalSafe(review.name)} despite the P1 findings?`));
	const result = await withInterrupt((signal) =>
		addSkills({
			source,
			cwd: io.cwd,
			target,
			lockFile,
			...(values.skill ? { skills: values.skill } : {}),
			all: values.all === true,
			strict: values.strict === true,
			force: values.force === true,
			allowUnverified: values["allow-unverified"] === true,
			approve,
			pick: (reviews) => pickSkills(io, reviews),
			signal,
		}),
	);
	const ok = !result.failure && result.outcomes.length > 0 && result.outcomes.every((o) => o.status !== "refused");
	return { exitCode: ok ? 0 : 1, data: result };
}

/** On a terminal: list the source's skills with their audit verdicts and read a choice. None without one. */
async function pickSkills(io: CliIo, reviews: readonly SkillReview[]): Promise<readonly string[]> {
	if (!io.isTTY || !process.stdin.isTTY) return [];
	const rows = reviews.map(
		(r, i) =>
			`  ${String(i + 1).padStart(3)}  ${exactText(r.name)}  [${r.verdict}]  ${exactText(r.description.slice(0, 70))}`,
	);
	io.stderr(`The source holds ${plural(reviews.length, "skill")}:\n${rows.join("\n")}\n`);
	const prompt = createInterface({ input: process.stdin, output: process.stderr });
	try {
		const answer = (await prompt.question("Install which? (numbers or names, space-separated; 'all') ")).trim();
		if (answer === "all") return reviews.map((r) => r.name);
		return answer
			.split(/[\s,]+/)
			.filter(Boolean)
			.map((word) => reviews[Number(word) - 1]?.name ?? word);
	} finally {
		prompt.close();
	}
}

/**
 * One block per skill: what happened, the audit verdict and the permissions it asks for. Names, messages and
 * warnings carry the source's text: each is made terminal-safe before it is styled.
 */
export function render(data: AddResult, style: Style): string {
	const safe = terminalSafe;
	const lines: string[] = [];
	if (data.failure) lines.push(style.red(`skillset: ${safe(data.failure.message)} [${data.failure.code}]`));
	for (const warning of data.warnings) lines.push(style.yellow(`warning: ${safe(warning)}`));
	for (const outcome of data.outcomes) {
		const name = safe(outcome.name);
		const head = outcome.status === "refused" ? style.red(`refused ${name}`) : `${outcome.status} ${name}`;
		lines.push(`${head}: ${safe(outcome.message)}${outcome.code ? ` [${outcome.code}]` : ""}`);
		if (outcome.review) lines.push(renderReview(outcome.review).trimEnd().replace(/^/gm, "  "));
	}
	if (data.outcomes.some((o) => o.status === "installed")) lines.push(`recorded in ${safe(data.lockFile)}`);
	return `${lines.join("\n")}\n`;
}
