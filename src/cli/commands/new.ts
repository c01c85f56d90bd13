import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type CreateSkillResult, createSkill } from "../../authoring/index.ts";
import { homeFrom } from "../../settings/index.ts";
import { type CliIo, type CommandResult, type Rendered, type Style, UsageError } from "../io.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	scope: { type: "string", default: "workspace" },
	dir: { type: "string" },
	description: { type: "string" },
	parents: { type: "boolean", default: false },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset new NAME --description TEXT [options]

Create a new skill NAME with a valid SKILL.md, atomically, never over an existing one.

Options:
  --scope workspace|user     where: ./.agents/skills (default) or ~/.agents/skills
  --dir DIR                  the skills folder to create it in (instead of --scope); it must exist
  --parents                  create --dir and its missing parents
  --description TEXT         what the skill does and when to use it (required)
  --json                     print the result as JSON

Exit status: 0 created, 1 not created (exists, invalid), 2 usage error.`;

/** Creates the skill. */
export async function run(
	values: { scope?: string; dir?: string; description?: string; parents?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<CreateSkillResult>> {
	const [name, ...extra] = positionals;
	if (name === undefined) throw new UsageError("new needs the NAME of the skill");
	if (extra.length > 0) throw new UsageError("new takes one NAME");
	if (values.scope !== "workspace" && values.scope !== "user")
		throw new UsageError(`--scope must be workspace or user, not '${values.scope}'`);
	const base = values.scope === "user" ? homeFrom(io.env, homedir()) : io.cwd;
	const root = values.dir ? resolve(io.cwd, values.dir) : join(base, ".agents", "skills");
	if (!values.description?.trim()) {
		throw new UsageError("new needs --description TEXT: what the skill does and when to use it");
	}
	// The conventional folder of a scope may be created; a --dir the user names must exist unless --parents.
	const parents = values.dir === undefined || values.parents === true;
	const result = await createSkill({ root, name, description: values.description, parents });
	return { exitCode: result.ok ? 0 : 1, data: result };
}

/** Where the skill went on stdout, or why not on stderr. */
export function render(data: CreateSkillResult, _style: Style): Rendered {
	if (data.ok) return { stdout: `created ${data.file}\n`, stderr: "" };
	const hint =
		data.code === "io" && data.message.endsWith("does not exist; nothing was written") ? " (--parents creates it)" : "";
	return { stdout: "", stderr: `skillset: ${data.message}${hint}\n` };
}
