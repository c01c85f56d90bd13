import { type ParseArgsConfig, parseArgs } from "node:util";
import {
	type CliIo,
	type CommandResult,
	createStyle,
	originExitCode,
	type Rendered,
	readVersion,
	type Style,
	UsageError,
} from "./io.ts";
import { terminalJsonChunks } from "./terminal-text.ts";

/** What every command module exports. */
export interface CommandModule {
	options: NonNullable<ParseArgsConfig["options"]>;
	usage: string;
	/** Runs the command on parsed flags and operands; a usage mistake throws `UsageError`. */
	run(values: Record<string, unknown>, positionals: readonly string[], io: CliIo): Promise<CommandResult>;
	/** The human output: a string for stdout, or results for stdout and refusals or errors for stderr. */
	render(data: never, style: Style, values: Record<string, unknown>): string | Rendered;
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
	search: command(
		"search the skills by topic, as the search_skills tool does, with their descriptions",
		() => import("./commands/search.ts"),
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
	chat: command(
		"chat with a model that uses the skills (REPL, or one task with -p)",
		() => import("./commands/chat.ts"),
	),
	validate: command(
		"check skills against the spec (strict) or a client's rules (lenient)",
		() => import("./commands/validate.ts"),
	),
	add: command(
		"install skills from a folder, git, an archive or an index: audited, atomic, pinned",
		() => import("./commands/add.ts"),
	),
	update: command(
		"update installed skills, showing file, audit and permission changes",
		() => import("./commands/update.ts"),
	),
	outdated: command("say which installed skills have newer versions", () => import("./commands/outdated.ts")),
	remove: command("remove installed skills and their lock entries", () => import("./commands/remove.ts")),
	publish: command("write a static well-known skills index for a folder", () => import("./commands/publish.ts")),
	mcp: command(
		"serve skills to MCP clients (SEP-2640 skills extension) over stdio or HTTP",
		() => import("./commands/mcp.ts"),
	),
	sources: command(
		"list the remote origins (MCP servers, indexes) with status, skills, last refresh and cache size",
		() => import("./commands/sources.ts"),
	),
	cache: command(
		"prune the origin cache: unconfigured origins and superseded copies",
		() => import("./commands/cache.ts"),
	),
};

/** Exit status for a bug in skillset itself, kept apart from 1 (findings) and 2 (usage). */
export const EXIT_INTERNAL_ERROR = 3;

/** Runs the CLI with `argv` (without node and the script) and returns the exit status. Never exits the process. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
	const [name, ...rest] = argv;
	if (name === undefined) return usageError(io, "no command given", undefined);
	if (name === "--help" || name === "-h") return print(io, mainUsage());
	if (name === "help") return help(io, rest);
	if (name === "--version" || name === "-V" || name === "-v") return print(io, `${readVersion()}\n`);
	const entry = lookup(name);
	if (!entry) return unknownCommand(io, name);
	let command: CommandModule;
	try {
		command = await entry.load();
	} catch (error) {
		const missing = missingOptionalPackage(error);
		if (!missing) throw error;
		return missingPackage(io, name, missing);
	}
	try {
		const { values, positionals } = parseArgs({
			args: [...rest],
			options: { ...command.options, help: { type: "boolean", short: "h" } },
			allowPositionals: true,
			strict: true,
		});
		if (values.help) return print(io, `${command.usage}\n`);
		const result = await command.run(values, positionals, io);
		const exitCode = originExitCode(io, result.exitCode);
		if ((values as { json?: boolean }).json) {
			// In pieces, as it is made: a large report is never one string in memory.
			for (const chunk of terminalJsonChunks(result.data, 2)) io.stdout(chunk);
			io.stdout("\n");
			return exitCode;
		}
		const output = command.render(result.data as never, createStyle(io), values);
		const { stdout, stderr } = typeof output === "string" ? { stdout: output, stderr: "" } : output;
		if (stdout) io.stdout(stdout);
		if (stderr) io.stderr(stderr);
		return exitCode;
	} catch (error) {
		if (isParseArgsError(error)) {
			// An unknown or misused flag: the closest flag and the command's usage line, not Node's own text.
			// Loaded only on a mistake: start-up pays for every module.
			const { describeParseError } = await import("./usage-hints.ts");
			const message = describeParseError(error as Error & { code: string }, command.options);
			return usageError(io, message, name, command.usage.split("\n")[0]);
		}
		if (error instanceof UsageError || isSettingsError(error)) return usageError(io, (error as Error).message, name);
		// A discovering command given an MCP origin loads the optional SDK only then.
		const missing = missingOptionalPackage(error);
		if (missing) return missingPackage(io, name, missing);
		io.stderr(`skillset: internal error (please report it): ${(error as Error).stack ?? String(error)}\n`);
		return EXIT_INTERNAL_ERROR;
	}
}

function missingPackage(io: CliIo, name: string, missing: string): number {
	io.stderr(
		`skillset: '${name}' needs the optional package ${missing}, which is not installed: add it beside skillset (npm i ${missing}) or run npx -p skillset -p ${missing} skillset ${name}\n`,
	);
	return 1;
}

function mainUsage(): string {
	const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
	const commands = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
	return `Usage: skillset COMMAND [options]

Commands:
${commands.join("\n")}

Options:
  -h, --help     this help ('skillset help COMMAND' or 'skillset COMMAND --help' for a command's)
  -V, --version  the version

Run 'skillset COMMAND --help' for a command's options.
`;
}

function print(io: CliIo, text: string): number {
	io.stdout(text);
	return 0;
}

/**
 * One line naming the mistake and one pointing on: where the help is, or the usage line itself (for a mistyped
 * flag or command); the full usage only on --help.
 */
function usageError(io: CliIo, message: string, command: string | undefined, usageLine?: string): number {
	const pointer = command ? `skillset ${command} --help` : "skillset --help";
	const next = usageLine ? `${usageLine} (see '${pointer}')` : `Run '${pointer}' for usage.`;
	io.stderr(`skillset: ${message}\n${next}\n`);
	return 2;
}

/** `skillset serach`: the closest command, and the usage line. */
async function unknownCommand(io: CliIo, name: string): Promise<number> {
	const { closestWord } = await import("./usage-hints.ts");
	const near = closestWord(name, Object.keys(COMMANDS));
	const hint = near ? `; did you mean '${near}'?` : "";
	return usageError(io, `unknown command '${name}'${hint}`, undefined, "Usage: skillset COMMAND [options]");
}

function lookup(name: string): CommandEntry | undefined {
	return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** `skillset help [COMMAND]`: the command's help, or the overview. */
async function help(io: CliIo, rest: readonly string[]): Promise<number> {
	const [name, ...extra] = rest;
	if (name === undefined) return print(io, mainUsage());
	const entry = lookup(name);
	if (!entry) return unknownCommand(io, name);
	if (extra.length > 0) return usageError(io, `help takes one COMMAND, not '${rest.join(" ")}'`, undefined);
	return print(io, `${(await entry.load()).usage}\n`);
}

function isParseArgsError(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

/**
 * A setting the resolver refused (it names the setting and where it came from): a usage mistake. Known by its name,
 * so that a command that reads no settings never loads the settings stage.
 */
function isSettingsError(error: unknown): boolean {
	return error instanceof Error && error.name === "SettingsError";
}

/** The optional peer packages some commands load (`mcp`, `chat`, `--mcp` origins), with the versions we test. */
const OPTIONAL_PACKAGES: Readonly<Record<string, string>> = {
	"@modelcontextprotocol/server": "2.4.0",
	"@modelcontextprotocol/client": "2.4.0",
	openai: "6.30.1",
};

/**
 * `name@version` of the optional package whose absence made a command fail to load, if that is what happened. The
 * built CLI is CommonJS (a package imported statically is `require`d: MODULE_NOT_FOUND), a dynamic import stays an
 * ES import (ERR_MODULE_NOT_FOUND).
 */
function missingOptionalPackage(error: unknown): string | undefined {
	const code = (error as NodeJS.ErrnoException | null)?.code;
	if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined;
	const message = String((error as Error).message);
	const name = Object.keys(OPTIONAL_PACKAGES).find(
		(pkg) => message.includes(`'${pkg}'`) || message.includes(`/${pkg}/`),
	);
	return name ? `${name}@${OPTIONAL_PACKAGES[name]}` : undefined;
}
