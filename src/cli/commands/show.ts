import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type Activation, type ActivationRefusal, createSession, type Invoker } from "../../runtime/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Rendered, type Style, UsageError } from "../io.ts";
import { loadIntegrity, lockPath, sessionFlags, sessionUsage } from "../session-flags.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...sessionFlags,
	as: { type: "string", default: "model" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset show NAME [DIR] [options]

Print the activation of skill NAME exactly as a model receives it: the <skill_content> block with the body,
the base directory and the resource list (and any depends_on skills first).

${discoveryUsage}

Options:
  --as model|user            who invokes it (default model; user-only skills need --as user)
${sessionUsage}
  --json                     print the activation result as JSON

Exit status: 0 shown, 1 refused (unknown, unavailable, over a limit, integrity mismatch), 2 usage error.`;

/** Activates NAME in a fresh session. */
export async function run(
	values: DiscoveryFlagValues & { as?: string; verify?: boolean; lock?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<Activation | ActivationRefusal>> {
	const [name, dir, ...extra] = positionals;
	if (name === undefined) throw new UsageError("show needs the NAME of a skill");
	if (name.trim() === "") throw new UsageError("the skill NAME is empty");
	if (extra.length > 0) throw new UsageError("show takes NAME and at most one DIR");
	const invoker = values.as;
	if (invoker !== "model" && invoker !== "user") throw new UsageError(`--as must be model or user, not '${invoker}'`);
	const integrity = values.verify
		? await loadIntegrity(lockPath(values, io.cwd, resolve(io.cwd, dir ?? ".")))
		: undefined;
	const { index } = await discoverFor(values, dir, io);
	const session = createSession(index, integrity ? { integrity } : {});
	const result = await session.activate(name, { invoker: invoker as Invoker });
	return { exitCode: result.ok ? 0 : 1, data: result };
}

/** The activation text on stdout, or the refusal on stderr. */
export function render(data: Activation | ActivationRefusal, _style: Style): Rendered {
	return data.ok ? { stdout: `${data.fullText}\n`, stderr: "" } : { stdout: "", stderr: `${data.message}\n` };
}
