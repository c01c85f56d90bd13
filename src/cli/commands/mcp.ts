import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { IntegrityOptions } from "../../runtime/index.ts";
import { SkillsetError } from "../../skill/index.ts";
import {
	type DiscoveryFlagValues,
	discoverFor,
	discoveryFlags,
	discoveryUsage,
	settingsFor,
} from "../discovery-flags.ts";
import { type CliIo, type CommandResult, readVersion, type Style, UsageError } from "../io.ts";
import { warnFailedOrigins } from "../origin-warnings.ts";
import { type IncompleteRoot, incompleteRoots, renderIncomplete } from "../render-bounds.ts";
import { plural } from "../render-diagnostics.ts";
import { loadIntegrity, lockPath, sessionFlags, sessionUsage } from "../session-flags.ts";
import { terminalSafe } from "../terminal-text.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...sessionFlags,
	http: { type: "string" },
	"allow-remote": { type: "boolean", default: false },
	"token-file": { type: "string" },
	"allow-origin": { type: "string", multiple: true },
	"allow-host": { type: "string", multiple: true },
	check: { type: "boolean", default: false },
	watch: { type: "boolean" },
	"no-watch": { type: "boolean" },
	"no-tools": { type: "boolean", default: false },
	"budget-tokens": { type: "string" },
	"allow-hard-links": { type: "boolean", default: false },
	"instance-id": { type: "string" },
	"drain-timeout": { type: "string" },
	"stall-timeout": { type: "string" },
	"log-format": { type: "string" },
	metrics: { type: "boolean", default: false },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset mcp [DIR] [options]

Serve the selected skills to MCP clients with the MCP Skills Extension (SEP-2640): every file as a
skill:// resource, skills/list, skills/get and directory reads, the skill tools, one prompt per
user-invocable skill, and the catalog as the server instructions. Over stdio by default (stdout carries
only the protocol; logs go to stderr).

${discoveryUsage}

Options:
  --http [HOST:]PORT         serve Streamable HTTP at http://HOST:PORT/mcp instead (default host 127.0.0.1)
  --allow-remote             allow a non-loopback HOST (a bearer token is then required)
  --token-file FILE          require this bearer token (default: $SKILLSET_MCP_TOKEN when set)
  --allow-origin ORIGIN      let browser pages from ORIGIN (http://host:port) call the endpoint (repeatable;
                             by default only the server's own origin may)
  --allow-host NAME          on loopback, accept Host NAME too (a reverse proxy's public name that it forwards;
                             repeatable)
  --watch, --no-watch        rescan on changes and notify clients (default: on for stdio, off for HTTP)
  --no-tools                 offer no tools (resources and prompts only)
  --budget-tokens N          tokens for the catalog in the instructions (default 2000)
  --allow-hard-links         serve files with several hard links (pnpm installs)
  --instance-id ID           with --http, prefix every session id with ID. (letters, digits, _ and -; default
                             from the address and port) so a load balancer can route sessions
  --drain-timeout MS         with --http, on SIGTERM finish requests in flight for up to MS (default 10000),
                             answering 503 to new ones and on /readyz, then exit 0
  --stall-timeout MS         with --http, close the connection of a client that takes none of a large answer
                             for MS (default 30000)
  --log-format FORMAT        text (default) or json: every stderr line one JSON object, one per request
  --metrics                  with --http, serve GET /metrics (Prometheus text; behind the token when set)
${sessionUsage}
  --check                    serve nothing: list the skills that would be served and every one left out
                             (the server's own plan: warm, a folder unchanged since the last run counts as it
                             was then, and a scan read back whole takes the plan saved with it, walking no skill
                             folder; what changes below a skill's subfolders is caught when the file is used;
                             --no-cache checks every file)
  --json                     with --check, print the result as JSON

Exit status: 0 served until the client left (or --check found nothing left out), 1 skills left out or a
walk bound cut a root short (--check), 2 usage error, 4 the stdio connection failed (a message over 10 MiB, stdout closed under the
server): the reason is on stderr.`;

/** Exit status when the stdio transport fails (a message over the 10 MiB limit, a write error on stdout). */
export const EXIT_CONNECTION_FAILED = 4;

interface McpFlagValues extends DiscoveryFlagValues {
	http?: string;
	"allow-remote"?: boolean;
	"token-file"?: string;
	"allow-origin"?: string[];
	"allow-host"?: string[];
	check?: boolean;
	watch?: boolean;
	"no-watch"?: boolean;
	"no-tools"?: boolean;
	"budget-tokens"?: string;
	"allow-hard-links"?: boolean;
	"instance-id"?: string;
	"drain-timeout"?: string;
	"stall-timeout"?: string;
	"log-format"?: string;
	metrics?: boolean;
	verify?: boolean;
	lock?: string;
}

/** What `--check` reports. */
export interface McpCheck {
	served: { name: string; uri: string }[];
	leftOut: { name: string; file: string; code: string; message: string }[];
	/** Roots a walk bound cut short: skills past the bound are neither served nor listed as left out. */
	incomplete: IncompleteRoot[];
}

/** Serves until the client leaves (stdio) or the process is interrupted (HTTP); `--check` only reports. */
export async function run(
	values: McpFlagValues,
	positionals: readonly string[],
	given: CliIo,
): Promise<CommandResult<McpCheck | Record<string, never>>> {
	const format = values["log-format"] ?? "text";
	if (format !== "text" && format !== "json")
		throw new UsageError(`--log-format must be text or json, not '${format}'`);
	// In JSON, every line on stderr is one object: the scan's notes and the server's logs too.
	const io = format === "json" ? jsonLogIo(given) : given;
	if (positionals.length > 1) throw new UsageError("mcp takes at most one DIR");
	if (values.watch && values["no-watch"]) throw new UsageError("--watch and --no-watch contradict each other");
	const [dir] = positionals;
	const budgetTokens = positiveInteger("--budget-tokens", values["budget-tokens"]);
	const listen = values.http === undefined ? undefined : parseListen(values.http);
	const origins = (values["allow-origin"] ?? []).map(checkOrigin);
	const hosts = (values["allow-host"] ?? []).map(checkHost);
	const token = await readToken(values, io);
	const drainMs =
		values["drain-timeout"] === undefined ? DRAIN_MS : wholeNumber("--drain-timeout", values["drain-timeout"]);
	const stallMs = positiveInteger("--stall-timeout", values["stall-timeout"]);
	const instanceId = values["instance-id"];
	const httpOnly = instanceId !== undefined || values.metrics || values["drain-timeout"] !== undefined;
	if (!listen && (httpOnly || stallMs !== undefined || hosts.length))
		throw new UsageError("--instance-id, --metrics, --drain-timeout, --stall-timeout and --allow-host need --http");
	const integrity: IntegrityOptions | undefined = values.verify
		? await loadIntegrity(lockPath(values, io.cwd, resolve(io.cwd, dir ?? ".")))
		: undefined;
	const watch = values.check ? false : (values.watch ?? (values["no-watch"] ? false : listen === undefined));
	// A watching server scans for itself; otherwise it serves the index of one scan here.
	// --check reports a bound hit in its own output (stdout or JSON); serving announces it on stderr.
	// A failed origin is named on stderr at start-up; it fails only `--check`, never a server that serves the rest.
	const failOnOrigins = values.check === true;
	const scanned = watch
		? undefined
		: await discoverFor(values, dir, io, { announceBounds: !values.check, failOnOrigins });
	const settings = scanned ?? (await settingsFor(values, dir, io));
	const startedAt = Date.now();
	const serveWith = {
		...settings.discover,
		tools: !values["no-tools"],
		...(budgetTokens ? { budgetTokens } : {}),
		...(integrity ? { integrity } : {}),
		allowHardLinks: values["allow-hard-links"] === true,
	};
	// --check plans as the server would (same rules, same catalog), without loading the protocol; serving flags are
	// still checked when given.
	if (values.check && scanned && !listen && instanceId === undefined) {
		const { checkServe } = await import("../../mcp/check.ts");
		const checked = await budgeted(() => checkServe(scanned.index, serveWith));
		const incomplete = incompleteRoots(scanned.report);
		const data = { served: checked.served, leftOut: checked.leftOut, incomplete };
		return { exitCode: data.leftOut.length > 0 || incomplete.length > 0 ? 1 : 0, data };
	}
	const { createSkillServer, formatRequestLog, instanceIdProblem, isLoopback, serveHttp, serveSkillsStdio } =
		await import("../../mcp/index.ts");
	const idProblem = instanceId === undefined ? undefined : instanceIdProblem(instanceId);
	if (idProblem) throw new UsageError(`--instance-id: ${idProblem}`);
	if (listen && !isLoopback(listen.host)) {
		if (!values["allow-remote"])
			throw new UsageError(`--http ${values.http}: a non-loopback address needs --allow-remote`);
		if (!token)
			throw new UsageError(`--http ${values.http}: a non-loopback address needs --token-file or SKILLSET_MCP_TOKEN`);
	}
	const server = await budgeted(() =>
		createSkillServer({
			...serveWith,
			...(scanned ? { index: scanned.index, scanMs: scanned.report.timings.totalMs } : { watch: true }),
			info: { name: "skillset", version: readVersion() },
			onLog: values.check ? undefined : (level, message) => io.stderr(`skillset mcp: ${level}: ${message}\n`),
		}),
	);
	if (values.check) {
		await server.close();
		const incomplete = scanned ? incompleteRoots(scanned.report) : [];
		const data = { served: [...server.served], leftOut: [...server.leftOut], incomplete };
		return { exitCode: data.leftOut.length > 0 || incomplete.length > 0 ? 1 : 0, data };
	}
	if (!scanned && server.report)
		await warnFailedOrigins(settings.originList, settings.origins, server.report, startedAt, io, { failRun: false });
	io.stderr(`skillset mcp: serving ${plural(server.served.length, "skill")}, ${server.leftOut.length} left out\n`);
	if (listen) {
		const serving = await serveHttp(server, {
			...listen,
			...(token ? { token } : {}),
			allowRemote: values["allow-remote"],
			allowedOrigins: origins,
			allowedHosts: hosts,
			...(instanceId ? { instanceId } : {}),
			metrics: values.metrics === true,
			...(stallMs ? { stallTimeoutMs: stallMs } : {}),
			...(format === "json" ? { onRequest: (line) => given.stderr(`${formatRequestLog(line)}\n`) } : {}),
		});
		io.stderr(`skillset mcp: listening on ${serving.url} as instance ${serving.instanceId}\n`);
		const signal = await interrupted();
		io.stderr(`skillset mcp: ${signal}: draining (up to ${drainMs} ms)\n`);
		const drained = await serving.drain(drainMs);
		if (drained.cut > 0) io.stderr(`skillset mcp: warning: ${drained.cut} request(s) cut at the drain deadline\n`);
		await serving.close();
	} else {
		// Both protocol eras: the 2025 handshake and 2026-07-28 (with caching hints), as the SDK's serveStdio.
		const stop = new AbortController();
		const onSignal = () => stop.abort();
		process.once("SIGINT", onSignal);
		process.once("SIGTERM", onSignal);
		const end = await serveSkillsStdio(server, {
			signal: stop.signal,
			onError: (error) => io.stderr(`skillset mcp: error: ${terminalSafe(error.message)}\n`),
		});
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
		if (end.failed) {
			io.stderr(`skillset mcp: error: ${terminalSafe(end.message)}\n`);
			await server.close();
			return { exitCode: EXIT_CONNECTION_FAILED, data: {} };
		}
	}
	await server.close();
	return { exitCode: 0, data: {} };
}

/** `--check` as text; nothing otherwise (on stdio, stdout belongs to the protocol). */
export function render(data: McpCheck | Record<string, never>, style: Style): string {
	if (!("served" in data)) return "";
	const lines = [...renderIncomplete(data.incomplete, style), `${plural(data.served.length, "skill")} served`];
	// Names, messages and paths come from a skill's files (an entry's name is in a left-out skill's message).
	const safe = terminalSafe;
	for (const skill of data.served) lines.push(`  ${safe(skill.name)}  ${style.dim(safe(skill.uri))}`);
	if (data.leftOut.length > 0) lines.push(`${plural(data.leftOut.length, "skill")} left out`);
	for (const skill of data.leftOut)
		lines.push(
			`  ${style.yellow(safe(skill.name))}: ${safe(skill.message)} ${style.dim(`(${skill.code}, ${safe(skill.file)})`)}`,
		);
	return `${lines.join("\n")}\n`;
}

/** An `--allow-origin` value: an http(s) origin as a browser sends it, with no path. */
function checkOrigin(value: string): string {
	const url = URL.canParse(value) ? new URL(value) : undefined;
	if (!url || !/^https?:$/.test(url.protocol) || url.origin !== value.replace(/\/$/, ""))
		throw new UsageError(`--allow-origin needs an origin such as http://localhost:3000, not '${value}'`);
	return url.origin;
}

/** An `--allow-host` value: a bare host name (`skills.example.com`), as the `Host` header names it. */
function checkHost(value: string): string {
	const parsed = URL.canParse(`http://${value}`) ? new URL(`http://${value}`) : undefined;
	if (!parsed || value === "" || parsed.host !== value.toLowerCase() || parsed.port !== "")
		throw new UsageError(`--allow-host needs a host name such as skills.example.com, not '${terminalSafe(value)}'`);
	return parsed.hostname;
}

/** `[HOST:]PORT`, with `[v6]:PORT` for IPv6. */
function parseListen(value: string): { host: string; port: number } {
	const match = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d{1,5})$/.exec(value);
	const port = Number(match?.[3]);
	if (!match || port > 65535) throw new UsageError(`--http needs [HOST:]PORT, not '${value}'`);
	return { host: match[1] ?? match[2] ?? "127.0.0.1", port };
}

async function readToken(values: McpFlagValues, io: CliIo): Promise<string | undefined> {
	if (values["token-file"] === undefined) return io.env.SKILLSET_MCP_TOKEN || undefined;
	try {
		const token = (await readFile(resolve(io.cwd, values["token-file"]), "utf8")).trim();
		if (token === "") throw new UsageError(`${values["token-file"]} is empty`);
		return token;
	} catch (error) {
		if (error instanceof UsageError) throw error;
		throw new UsageError(`cannot read ${values["token-file"]}: ${(error as NodeJS.ErrnoException).code ?? error}`);
	}
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} must be a whole number of at least 1`);
	return number;
}

/** Resolves with the first SIGINT or SIGTERM's name. */
function interrupted(): Promise<string> {
	return new Promise((done) => {
		process.once("SIGINT", () => done("SIGINT"));
		process.once("SIGTERM", () => done("SIGTERM"));
	});
}

/** How long a drain waits for requests in flight by default. */
const DRAIN_MS = 10_000;

function wholeNumber(flag: string, value: string): number {
	const number = Number(value);
	if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new UsageError(`${flag} must be a whole number`);
	return number;
}

/** `io` with stderr as JSON lines: each message written becomes one `{time, level, event: "log", message}`. */
function jsonLogIo(io: CliIo): CliIo {
	const stderr = (text: string): void => {
		const bare = text.replace(/\n+$/, "").replace(/^skillset mcp: /, "");
		if (bare === "") return;
		const level = /^(warning|error): /.exec(bare)?.[1] ?? "info";
		const message = bare.replace(/^(info|warning|error): /, "");
		io.stderr(`${JSON.stringify({ time: new Date().toISOString(), level, event: "log", message })}\n`);
	};
	return { ...io, stderr };
}

/** A budget too small for the instructions is the user's to raise: a usage error naming the flag, not a crash. */
async function budgeted<T>(make: () => Promise<T>): Promise<T> {
	try {
		return await make();
	} catch (error) {
		const option = (error as { data?: { option?: unknown } }).data?.option;
		if (error instanceof SkillsetError && error.code === "invalid-option" && option === "budgetTokens")
			throw new UsageError(error.message);
		throw error;
	}
}
