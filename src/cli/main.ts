import { type ParseArgsConfig, parseArgs } from "node:util";
import { type CliIo, type CommandResult, createStyle, readVersion, type Style, UsageError } from "./io.ts";

/** What every command module exports. */
export interface CommandModule {
	options: NonNullable<ParseArgsConfig["options"]>;
	usage: string;
	run(values: Record<string, unknown>, positionals: readonly string[], io: CliIo): Promise<CommandResult>;
	render(data: never, style: Style): string;
}

interface CommandEntry {
	summary: string;
	load: () => Promise<CommandModule>;
}

const command = (summary: string, load: () => Promise<unknown>): CommandEntry => ({
	summary,
	load: async () => (await load()) as CommandModule,
});

// Commands are imported only when called, so `skillset validate` loads nothing it does not use.
const COMMANDS: Readonly<Record<string, CommandEntry>> = {
	scan: command(
		"discover skills and report every root and skill, with why each is or is not usable",
		() => import("./commands/scan.ts"),
	),
	list: command("list the selected skills with scope and path", () => import("./commands/list.ts")),
	catalog: command(
		"print the tier-1 catalog a model sees, fitted to a token or character budget",
		() => import("./commands/catalog.ts"),
	),
	doctor: command("explain why a skill is or is not in the catalog", () => import("./commands/doctor.ts")),
	show: command("print a skill's activation exactly as a model receives it", () => import("./commands/show.ts")),
	read: command("read one file of a skill, contained to its folder, paged", () => import("./commands/read.ts")),
	lock: command("pin every skill's files in skills.lock.json, or --verify them", () => import("./commands/lock.ts")),
	lint: command("check skills against the spec and best practice", () => import("./commands/lint.ts")),
	audit: command(
		"statically audit skills for dangerous content (text, JSON or SARIF)",
		() => import("./commands/audit.ts"),
	),
	trust: command("trust or untrust a workspace, or list the trust store", () => import("./commands/trust.ts")),
	new: command("create a new skill with a valid SKILL.md", () => import("./commands/new.ts")),
	validate: command(
		"check skills against the spec (strict) or a client's rules (lenient)",
		() => import("./commands/validate.ts"),
	),
	mcp: command(
		"serve skills to MCP clients (SEP-2640 skills extension) over stdio or HTTP",
		() => import("./commands/mcp.ts"),
	),
};

/** Exit status for a bug in skillset itself, kept apart from 1 (findings) and 2 (usage). */
export const EXIT_INTERNAL_ERROR = 3;

/** Runs the CLI with `argv` (without node and the script) and returns the exit status. Never exits the process. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
	const [name, ...rest] = argv;
	if (name === undefined) return usageError(io, mainUsage(), "no command given");
	if (name === "--help" || name === "-h" || name === "help") return print(io, mainUsage());
	if (name === "--version" || name === "-v") return print(io, `${readVersion()}\n`);
	const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
	if (!entry) return usageError(io, mainUsage(), `unknown command '${name}'`);
	const command = await entry.load();
	try {
		const { values, positionals } = parseArgs({
			args: [...rest],
			options: { ...command.options, help: { type: "boolean", short: "h" } },
			allowPositionals: true,
			strict: true,
		});
		if (values.help) return print(io, `${command.usage}\n`);
		const result = await command.run(values, positionals, io);
		const output = (values as { json?: boolean }).json
			? `${JSON.stringify(result.data, null, 2)}\n`
			: command.render(result.data as never, createStyle(io));
		io.stdout(output);
		return result.exitCode;
	} catch (error) {
		if (error instanceof UsageError || isParseArgsError(error)) {
			return usageError(io, command.usage, (error as Error).message);
		}
		io.stderr(`skillset: internal error (please report it): ${(error as Error).stack ?? String(error)}\n`);
		return EXIT_INTERNAL_ERROR;
	}
}

function mainUsage(): string {
	const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
	const commands = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
	return `Usage: skillset COMMAND [options]

Commands:
${commands.join("\n")}

Run 'skillset COMMAND --help' for a command's options.
`;
}

function print(io: CliIo, text: string): number {
	io.stdout(text);
	return 0;
}

function usageError(io: CliIo, usage: string, message: string): number {
	io.stderr(`${usage.trimEnd()}\n\nskillset: ${message}\n`);
	return 2;
}

function isParseArgsError(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}
