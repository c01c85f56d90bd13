import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { createSession, type ReadResourceOptions, type ResourceRead } from "../../runtime/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { loadIntegrity, lockPath, sessionFlags, sessionUsage } from "../session-flags.ts";

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
  --limit N                  most lines (default 2000)
${sessionUsage}
  --json                     print the result as JSON

Exit status: 0 read, 1 refused, 2 usage error.`;

/** Reads the file in a fresh session. */
export async function run(
	values: DiscoveryFlagValues & { offset?: string; column?: string; limit?: string; verify?: boolean; lock?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<ResourceRead>> {
	const [name, path, dir, ...extra] = positionals;
	if (name === undefined || path === undefined) throw new UsageError("read needs a skill NAME and a PATH");
	if (extra.length > 0) throw new UsageError("read takes NAME, PATH and at most one DIR");
	const paging = {
		...line("--offset", values.offset, "offset"),
		...line("--column", values.column, "column"),
		...line("--limit", values.limit, "limit"),
	};
	const integrity = values.verify
		? await loadIntegrity(lockPath(values, io.cwd, resolve(io.cwd, dir ?? ".")))
		: undefined;
	const { index } = await discoverFor(values, dir, io);
	const result = await createSession(index, integrity ? { integrity } : {}).readResource(name, path, paging);
	return { exitCode: result.ok ? 0 : 1, data: result };
}

/** The page's text, or the refusal. */
export function render(data: ResourceRead, _style: Style): string {
	return `${data.ok ? data.content : data.message}\n`;
}

function line(flag: string, value: string | undefined, key: "offset" | "column" | "limit"): ReadResourceOptions {
	if (value === undefined) return {};
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} must be a whole number of at least 1`);
	return { [key]: number };
}
