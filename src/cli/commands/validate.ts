import { join, relative, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { DiscoveryReport } from "../../discovery/index.ts";
import {
	type Diagnostic,
	EXTENSION_SETS,
	type ExtensionSet,
	type Profile,
	type SkillProperties,
	validateSkillPath,
} from "../../skill/index.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { noSkillsDiagnostic, resolveNamedPath } from "../paths.ts";
import { announceBounds } from "../render-bounds.ts";
import {
	checkDetail,
	type Detail,
	detailFlags,
	detailUsage,
	FULL_DIAGNOSTICS,
	plural,
	renderCounts,
	renderGroups,
} from "../render-diagnostics.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	profile: { type: "string", default: "strict" },
	"allow-field": { type: "string", multiple: true },
	"allow-fields": { type: "string", multiple: true },
	json: { type: "boolean", default: false },
	"exit-zero": { type: "boolean", default: false },
	"include-hidden": { type: "boolean", default: false },
	...detailFlags,
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset validate PATH... [options]

Validate skills against the Agent Skills spec. PATH is a skill directory or its SKILL.md, or a folder of skills
(each skill below it is validated; a folder with none is an error).

Options:
  --profile strict|lenient   strict (default): the spec, as the reference validator reads it;
                             lenient: what a client loads, with warnings
  --allow-field NAME         accept an extra frontmatter field (repeatable)
  --allow-fields SET         accept an extension set: ${EXTENSION_SETS.join(", ")} (repeatable)
  --json                     print a JSON array of results
  --exit-zero                exit 0 even when a skill is invalid (report only)
  --include-hidden           in a folder of skills, also look in hidden folders (e.g. skills/.curated)
${detailUsage}

Exit status: 0 all valid, 1 any invalid, 2 usage error.`;

/** One path's result, as `--json` prints it. */
export interface ValidateResult {
	path: string;
	file: string | null;
	valid: boolean;
	profile: Profile;
	skill: SkillProperties | null;
	diagnostics: Diagnostic[];
}

type Values = Detail & {
	profile?: string;
	"allow-field"?: string[];
	"allow-fields"?: string[];
	"exit-zero"?: boolean;
	"include-hidden"?: boolean;
};

/** Validates every PATH; exit 1 when any is invalid. */
export async function run(
	values: Values,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<ValidateResult[]>> {
	if (positionals.length === 0) throw new UsageError("validate needs at least one PATH");
	checkDetail(values);
	const profile = parseProfile(values.profile);
	const allowExtensions = (values["allow-fields"] ?? []).flatMap((v) => v.split(",")).map(parseExtensionSet);
	const allowFields = values["allow-field"] ?? [];
	const data: ValidateResult[] = [];
	for (const path of positionals) {
		const named = await resolveNamedPath(path, io.cwd);
		if (named.kind === "problem") {
			data.push({ path, file: null, valid: false, profile, skill: null, diagnostics: [named.diagnostic] });
			continue;
		}
		// A folder without a SKILL.md is a collection: each skill below it is validated.
		const collection = named.kind === "skill" ? undefined : await skillsBelow(named.dir, values["include-hidden"]);
		if (collection) announceBounds(collection.report, io);
		const paths = collection ? collection.dirs.map((dir) => join(path, relative(named.dir, dir))) : [path];
		if (collection && paths.length === 0) {
			const diagnostics = [await noSkillsDiagnostic(path, collection.report)];
			data.push({ path, file: null, valid: false, profile, skill: null, diagnostics });
		}
		for (const skillPath of paths) {
			// Shown as given, read from the CLI's working directory.
			const target = resolve(skillPath) === resolve(io.cwd, skillPath) ? skillPath : resolve(io.cwd, skillPath);
			const result = await validateSkillPath(target, { profile, allowFields, allowExtensions });
			const { file, valid, properties, diagnostics } = result;
			data.push({ path: skillPath, file, valid, profile, skill: properties, diagnostics });
		}
	}
	const exitCode = values["exit-zero"] || data.every((r) => r.valid) ? 0 : 1;
	return { exitCode, data };
}

/**
 * The human report: diagnostics (in full when few or with --verbose, else grouped by skill and code), `ok` for
 * clean skills when the report is short, and a summary that counts what was checked.
 */
export function render(data: readonly ValidateResult[], style: Style, detail: Detail = {}): string {
	const unnamed = data.filter((r) => r.file === null && r.diagnostics.some((d) => d.code.startsWith("path.")));
	const checked = data.filter((r) => !unnamed.includes(r));
	const lines = renderGroups(
		data.map((r) => ({ label: r.path, diagnostics: r.diagnostics })),
		style,
		detail,
	);
	// `ok` lines only while the report is short: 500 of them would bury the problems.
	const short = data.length <= FULL_DIAGNOSTICS && data.flatMap((r) => r.diagnostics).length <= FULL_DIAGNOSTICS;
	if (detail.verbose || (short && !detail.quiet)) {
		for (const result of checked) {
			if (result.valid && result.diagnostics.length === 0)
				lines.push(`${result.file ?? result.path}  ${style.bold("ok")}`);
		}
	}
	const invalid = checked.filter((r) => !r.valid).length;
	const counts = renderCounts(data.flatMap((r) => r.diagnostics));
	let verdict = `${plural(checked.length, "skill")} checked: ${checked.length - invalid} valid, ${invalid} invalid`;
	if (unnamed.length > 0) verdict += `; ${plural(unnamed.length, "path")} named no skill`;
	lines.push(counts ? `${verdict} (${counts})` : verdict);
	return `${lines.join("\n")}\n`;
}

/**
 * The skill folders discovery finds below `dir` (usable or not), and its report. The discovery stage loads only
 * here: validating one skill's folder, the common case, does not pay its start-up.
 */
async function skillsBelow(dir: string, includeHidden = false): Promise<{ dirs: string[]; report: DiscoveryReport }> {
	const { discover } = await import("../../discovery/index.ts");
	const { index, report } = await discover({ cwd: dir, home: dir, defaultRoots: false, roots: [dir], includeHidden });
	const dirs = [...index.skills.map((s) => s.dir), ...report.rejected.map((r) => r.dir)];
	return { dirs: [...new Set(dirs)].sort(), report };
}

function parseProfile(value: string | undefined): Profile {
	if (value === "strict" || value === "lenient") return value;
	throw new UsageError(`--profile must be strict or lenient, not '${value}'`);
}

function parseExtensionSet(value: string): ExtensionSet {
	const set = EXTENSION_SETS.find((name) => name === value.trim());
	if (!set) throw new UsageError(`--allow-fields takes ${EXTENSION_SETS.join(" or ")}, not '${value}'`);
	return set;
}
