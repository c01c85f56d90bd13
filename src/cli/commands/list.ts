import { basename } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { IndexedSkill, RejectedSkill } from "../../discovery/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { noteDeeperSkills } from "../workspace.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	all: { type: "boolean", default: false },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset list [DIR] [options]

List the selected skills, one line each: name, scope and path.

${discoveryUsage}

Options:
  --all                      also list shadowed, untrusted, disabled and rejected skills, with their status
  --json                     print a JSON array`;

/** One listed skill. */
export interface ListedSkill {
	name: string;
	qualifiedName: string;
	status: IndexedSkill["status"] | "rejected";
	scope: IndexedSkill["scope"];
	description: string;
	file: string;
	modelInvocable: boolean;
	/** The remote origin (`mcp:<label>`, `index:<label>`) of a skill from elsewhere. */
	origin?: string;
}

/** Lists skills (selected, or all with --all). */
export async function run(
	values: DiscoveryFlagValues & { all?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<ListedSkill[]>> {
	if (positionals.length > 1) throw new UsageError("list takes at most one DIR");
	const { index, report } = await discoverFor(values, positionals[0], io);
	const deeper = await noteDeeperSkills("list", positionals[0], report, io);
	const skills = values.all ? index.skills : index.selected;
	const data: ListedSkill[] = skills.map((s) => ({
		name: s.name,
		qualifiedName: s.qualifiedName,
		status: s.status,
		scope: s.scope,
		description: s.description,
		file: s.file,
		modelInvocable: s.modelInvocable,
		...(s.origin ? { origin: s.origin } : {}),
	}));
	if (values.all) data.push(...report.rejected.map(rejectedEntry));
	return { exitCode: deeper ? 1 : 0, data };
}

function rejectedEntry(skill: RejectedSkill): ListedSkill {
	const name = skill.name ?? basename(skill.dir);
	const reason = skill.diagnostics.find((d) => d.severity === "error") ?? skill.diagnostics[0];
	return {
		name,
		qualifiedName: name,
		status: "rejected",
		scope: skill.scope,
		description: reason ? `${reason.code}: ${reason.message}` : "",
		file: skill.file,
		modelInvocable: false,
	};
}

/** Aligned columns: name, scope (and status when not selected), path. */
export function render(data: readonly ListedSkill[], style: Style): string {
	if (data.length === 0) return "No skills found. Run 'skillset scan' to see where skillset looked.\n";
	const width = Math.max(...data.map((s) => s.name.length));
	const lines = data.map((s) => {
		const status = s.status === "selected" ? "" : ` ${s.status}`;
		const manual = s.modelInvocable || s.status === "rejected" ? "" : " user-only";
		const why = s.status === "rejected" && s.description ? `  ${style.dim(s.description)}` : "";
		const scope = s.origin ? `${s.scope} ${s.origin}` : s.scope;
		return `${s.name.padEnd(width)}  ${style.dim(`${scope}${status}${manual}`)}  ${s.file}${why}`;
	});
	return `${lines.join("\n")}\n`;
}
