import type { ParseArgsConfig } from "node:util";
import { createSession, type ReadResourceOptions, type ResourceRead } from "../../runtime/index.ts";
import type { Diagnostic } from "../../skill/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Rendered, type Style, UsageError } from "../io.ts";
import { renderDiagnostic } from "../render-diagnostics.ts";
import { loadIntegrity, lockPath, sessionFlags, sessionUsage } from "../session-flags.ts";
import { emptyWorkspace, resolveWorkspaceArg } from "../workspace.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...sessionFlags,
	offset: { type: "string" },
	column: { type: "string" },
	limit: { type: "string" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset read NAME PATH [DIR] [options]

Read one file of skill NAME, by its PATH relative to the skill folder, as a model would through
read_skill_resource: contained to the folder, binary files as metadata only, long files in pages of at most
2000 lines and 50000 bytes (a longer line is cut; the page ends with the --offset and --column to continue).

${discoveryUsage}

Options:
  --offset N                 first line (1-based)
  --column N                 where to start in that line (1-based), to continue a cut line
  --limit N                  most lines (default and maximum 2000)
${sessionUsage}
  --json                     print the result as JSON

Exit status: 0 read, 1 refused, 2 usage error.`;

/** Reads the file in a fresh session. */
export async function run(
	values: DiscoveryFlagValues & { offset?: string; column?: string; limit?: string; verify?: boolean; lock?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<ResourceRead | PathRefusal>> {
	const [name, path, dir, ...extra] = positionals;
	if (name === undefined || path === undefined) throw new UsageError("read needs a skill NAME and a PATH");
	if (name.trim() === "") throw new UsageError("the skill NAME is empty");
	if (extra.length > 0) throw new UsageError("read takes NAME, PATH and at most one DIR");
	const paging = {
		...line("--offset", values.offset, "offset"),
		...line("--column", values.column, "column"),
		...line("--limit", values.limit, "limit"),
	};
	const named = await resolveWorkspaceArg(dir, values, io);
	if (!named.ok) return { exitCode: 1, data: pathRefusal(name, path, named.diagnostic) };
	const integrity = values.verify ? await loadIntegrity(lockPath(values, io.cwd, named.workspace)) : undefined;
	const { index, report } = await discoverFor(named.values, named.workspace, io);
	const empty = await emptyWorkspace("read", dir, named.workspace, report, io);
	if (empty) return { exitCode: 1, data: pathRefusal(name, path, empty) };
	const result = await createSession(index, integrity ? { integrity } : {}).readResource(name, path, paging);
	return { exitCode: result.ok && !pastTheEnd(result) ? 0 : 1, data: result };
}

/** A DIR that names no skill, as a refusal with the diagnostic's code. */
export interface PathRefusal {
	ok: false;
	name: string;
	path: string;
	code: string;
	message: string;
	diagnostic: Diagnostic;
}

function pathRefusal(name: string, path: string, diagnostic: Diagnostic): PathRefusal {
	return { ok: false, name, path, code: diagnostic.code, message: diagnostic.message, diagnostic };
}

/** True for a page that starts after the file's last line (its content says so). */
function pastTheEnd(read: ResourceRead): boolean {
	return read.ok && !read.binary && read.lines === 0 && read.offset > Math.max(1, read.totalLines);
}

/** The page's text on stdout, or the refusal (or the note that the offset is past the end) on stderr. */
export function render(data: ResourceRead | PathRefusal, style: Style): Rendered {
	if (data.ok && pastTheEnd(data)) return { stdout: "", stderr: `${data.content}\n` };
	if (data.ok) return { stdout: `${data.content}\n`, stderr: "" };
	const text = "diagnostic" in data ? renderDiagnostic(data.diagnostic, style) : data.message;
	return { stdout: "", stderr: `${text}\n` };
}

function line(flag: string, value: string | undefined, key: "offset" | "column" | "limit"): ReadResourceOptions {
	if (value === undefined) return {};
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} must be a whole number of at least 1`);
	return { [key]: number };
}
