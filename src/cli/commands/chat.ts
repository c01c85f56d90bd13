import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import {
	type Agent,
	type Confirm,
	createAgent,
	createOpenAIClient,
	type McpServerSpec,
	type Refusal,
} from "../../agent/index.ts";
import { defaultTrustFile } from "../../policy/index.ts";
import { type McpServerSetting, ORIGIN_LABEL, splitCommandLine } from "../../settings/index.ts";
import { SkillsetError } from "../../skill/index.ts";
import { ChatRepl } from "../chat-repl.ts";
import { readSaved } from "../chat-resume.ts";
import {
	type DiscoveryFlagValues,
	discoveryFlags,
	discoveryUsage,
	settingsFor,
	trustFileFor,
} from "../discovery-flags.ts";
import { type CliIo, type CommandResult, createStyle, type Rendered, type Style, UsageError } from "../io.ts";
import { loadIntegrity, lockPath, sessionFlags, sessionUsage } from "../session-flags.ts";
import { exactText, terminalSafe } from "../terminal-text.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...sessionFlags,
	prompt: { type: "string", short: "p" },
	model: { type: "string" },
	"base-url": { type: "string" },
	"api-key-env": { type: "string", default: "OPENAI_API_KEY" },
	"context-window": { type: "string" },
	timeout: { type: "string" },
	"no-stream": { type: "boolean", default: false },
	allow: { type: "string", multiple: true },
	deny: { type: "string", multiple: true },
	"no-network": { type: "boolean", default: false },
	yes: { type: "boolean", default: false },
	"auto-load": { type: "boolean", default: false },
	"save-skills": { type: "string", default: "workspace" },
	events: { type: "string" },
	resume: { type: "string" },
	mcp: { type: "string", multiple: true },
	json: { type: "boolean", default: false },
	"fail-on-refusal": { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset chat [DIR] [options]

Chat with a model that uses the skills of DIR (default: the working directory) through any OpenAI-compatible
endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server). Without -p it is a REPL with streamed output and
slash commands: /skills /load NAME /unload NAME /tokens /compact /save FILE /quit. A message that starts with
$name or /name loads that skill first.

${discoveryUsage.replace(/ {2}--mcp LABEL=[^\n]*\n[^\n]*\n/, "")}

Model options:
  -p, --prompt TEXT          run one task without prompts, print the final answer, and exit
  --model NAME               the model (default: SKILLSET_MODEL, else gpt-4o-mini)
  --base-url URL             the endpoint, e.g. http://127.0.0.1:11434/v1 (default: OPENAI_BASE_URL, else OpenAI)
  --api-key-env NAME         the environment variable holding the API key (default OPENAI_API_KEY)
  --context-window N         the model's context window in tokens (default 128000): sizes the catalog and compaction
  --timeout MS               per-request timeout (default 120000); 429 and 5xx answers are retried with backoff
  --no-stream                ask for whole answers instead of streams

Permission options:
  --allow PATTERN            allow only these tools, e.g. read_file or 'run_shell(npm test:*)' (repeatable)
  --deny PATTERN             always deny these, e.g. 'run_shell(git push:*)' (repeatable)
  --no-network               shell commands get no network: those known to use it are denied, and the sandbox
                             runs the rest without any network (loopback included)
  --yes                      answer yes to every question (never to a hard rule: skill folders stay read-only)
${sessionUsage}

Agent options:
  --auto-load                load the best-matching skill before the model runs, instead of only hinting
  --save-skills WHERE        where create_skill writes: workspace (default, .agents/skills) or user
                             (~/.agents/skills); every new skill is asked about (or --yes)
  --events FILE              append every event to FILE as JSON lines
  --resume FILE              continue a conversation saved with /save
  --json                     with -p: print {status, text, toolCalls, refusals} as JSON instead of the answer
  --fail-on-refusal          with -p: exit 1 when any call was refused (the answer is still printed)
  --mcp [NAME=]SERVER        an MCP server whose tools join as deferred tools: a command line (stdio) or an
                             http(s) URL (Streamable HTTP), e.g. --mcp 'files=npx -y some-mcp-server .' (repeatable);
                             if it declares the skills extension its skills join too, as origin mcp:NAME

With -p the model's final answer goes to stdout and each refused call to stderr (tool, target, rule).
Exit status: 0 done (refused calls included), 1 the model failed, the turn hit a limit, the $name invocation was
refused, or --fail-on-refusal and a call was refused (-p), 2 usage error.`;

type ChatValues = DiscoveryFlagValues & {
	verify?: boolean;
	lock?: string;
	prompt?: string;
	model?: string;
	"base-url"?: string;
	"api-key-env"?: string;
	"context-window"?: string;
	timeout?: string;
	"no-stream"?: boolean;
	allow?: string[];
	deny?: string[];
	"no-network"?: boolean;
	yes?: boolean;
	"auto-load"?: boolean;
	"save-skills"?: string;
	events?: string;
	resume?: string;
	mcp?: string[];
	json?: boolean;
	"fail-on-refusal"?: boolean;
};

/** What `chat -p` returns (and `--json` would print). */
export interface ChatData {
	status: string;
	text: string;
	toolCalls: number;
	/** The calls the permission gate refused: tool, target (command, path or name) and rule. */
	refusals: Refusal[];
	error?: string;
	/** With status failed: `model` (the model call failed) or `limit` (too many model calls in the turn). */
	failure?: "model" | "limit";
}

/** Runs the REPL, or one task with -p. */
export async function run(
	values: ChatValues,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<ChatData | null>> {
	if (positionals.length > 1) throw new UsageError("chat takes at most one DIR");
	if (values.json && values.prompt === undefined) throw new UsageError("--json needs -p: the REPL prints as it goes");
	if (values["fail-on-refusal"] && values.prompt === undefined)
		throw new UsageError("--fail-on-refusal needs -p: the REPL has no exit status per task");
	const terminal = values.prompt === undefined && io.isTTY && process.stdin.isTTY === true;
	const style = createStyle({ env: io.env, isTTY: io.isTTY });
	// The REPL opens stdin, so it starts only once the agent is ready (a bad option must not leave stdin open).
	let repl: ChatRepl | undefined;
	const confirm: Confirm | undefined = terminal ? (request) => (repl as ChatRepl).confirm(request) : undefined;
	const agent = await agentFor(values, positionals[0], io, confirm);
	if (values.prompt === undefined)
		repl = new ChatRepl({ io, style, input: process.stdin, output: process.stdout, terminal });
	for (const problem of agent.mcpProblems)
		io.stderr(
			`${style.yellow("warning:")} MCP server ${problem.server} is not available: ${terminalSafe(problem.message)}\n`,
		);
	if (repl && !terminal && values.yes !== true)
		io.stderr(
			`${style.yellow("note:")} input is not a terminal, so no one can answer a question: writes, shell commands and other calls that need approval are denied (--yes answers them)\n`,
		);
	try {
		return await runAgent(agent, repl, values, io, style);
	} finally {
		await agent.close();
	}
}

async function runAgent(
	agent: Agent,
	repl: ChatRepl | undefined,
	values: ChatValues,
	io: CliIo,
	style: Style,
): Promise<CommandResult<ChatData | null>> {
	const noNetwork = values["no-network"] === true;
	if (!agent.sandboxed)
		io.stderr(
			`${style.yellow("warning:")} no OS sandbox (${agent.sandboxProblem}): every shell command needs approval${noNetwork ? "; --no-network can only deny the commands known to use the network" : ""}\n`,
		);
	if (repl) {
		await repl.run(agent);
		return { exitCode: 0, data: null };
	}
	const result = await agent.send(values.prompt as string);
	// The model finished when it answered, refused calls or not; only then is its answer the output.
	const answered = result.status === "done" || (result.status === "refused" && result.refusals.length > 0);
	// A failed model call may be the missing key's doing: say which variable was read.
	const error = result.error && `${result.error}${result.failure === "model" ? keyHint(values, io) : ""}`;
	if (!answered) {
		const why = error || result.text || "no answer";
		io.stderr(`skillset: the task ${result.status === "refused" ? "was refused" : "failed"}: ${terminalSafe(why)}\n`);
	}
	const data: ChatData = { ...result, refusals: result.refusals.map((refusal) => ({ ...refusal })) };
	if (error) data.error = error;
	// A refused `$name`: its message is the error, not an answer.
	if (!answered && result.status === "refused") Object.assign(data, { text: "", error: result.text });
	const failed = !answered || (values["fail-on-refusal"] === true && result.refusals.length > 0);
	return { exitCode: failed ? 1 : 0, data };
}

/** When no key was set: which variable was read, and (with no endpoint given) how to name a local server. */
function keyHint(values: ChatValues, io: CliIo): string {
	const name = values["api-key-env"] ?? "OPENAI_API_KEY";
	if (io.env[name]) return "";
	const variable =
		name === "OPENAI_API_KEY"
			? "OPENAI_API_KEY is not set (--api-key-env NAME reads another)"
			: `${name} (--api-key-env) is not set`;
	const endpoint = values["base-url"] ?? io.env.OPENAI_BASE_URL;
	return `; no API key was sent: ${variable}${endpoint ? "" : "; for a local server give --base-url URL"}`;
}

async function agentFor(
	values: ChatValues,
	dir: string | undefined,
	io: CliIo,
	confirm: Confirm | undefined,
): Promise<Agent> {
	const workspaceDir = resolve(io.cwd, dir ?? ".");
	const servers = (values.mcp ?? []).map((spec, i) => parseMcpSpec(spec, i, workspaceDir));
	// The same servers are origins too (one flag, one meaning across commands); a NAME that is no origin label
	// (upper case, '_') keeps the server's tools only.
	const { mcp: _mcp, ...discoveryValues } = values;
	const settings = await settingsFor(discoveryValues, dir, io, {
		mcpServers: originServers(servers),
		...(values.allow ? { allow: values.allow } : {}),
		...(values.deny ? { deny: values.deny } : {}),
		...(values.model !== undefined ? { model: values.model } : {}),
		...(values["base-url"] !== undefined ? { baseURL: values["base-url"] } : {}),
	});
	for (const diagnostic of settings.diagnostics)
		io.stderr(`skillset: ${diagnostic.code}: ${terminalSafe(diagnostic.message)}\n`);
	const { workspace } = settings;
	const contextWindow = positiveInteger(values["context-window"], "--context-window");
	const timeoutMs = positiveInteger(values.timeout, "--timeout");
	const save = values["save-skills"];
	if (save !== "user" && save !== "workspace")
		throw new UsageError(`--save-skills must be workspace or user, not '${save}'`);
	const keyName = values["api-key-env"] ?? "OPENAI_API_KEY";
	const apiKey = io.env[keyName];
	const { name, baseURL } = settings.model;
	if (baseURL !== undefined && !/^https?:\/\/[^/]/i.test(baseURL)) {
		const source = values["base-url"] !== undefined ? "--base-url" : "OPENAI_BASE_URL";
		throw new UsageError(
			`${source} must be an http:// or https:// URL such as http://127.0.0.1:11434/v1, not '${exactText(baseURL.replace(/^[^/@]*@/, "…@"))}'`,
		);
	}
	const model = createOpenAIClient({
		model: name,
		apiKey: apiKey ?? "not-needed",
		...(baseURL ? { baseURL } : {}),
		...(timeoutMs ? { timeoutMs } : {}),
		stream: values["no-stream"] !== true,
	});
	const { allow, deny } = settings.permissions;
	const integrity = values.verify ? await loadIntegrity(lockPath(values, io.cwd, workspace)) : undefined;
	// The files that decide what loads next time, wherever the user keeps them: never a skill's to pre-approve.
	const explicitConfig = values.config ?? io.env.SKILLSET_CONFIG;
	const runsLater = [
		...(explicitConfig !== undefined ? [resolve(io.cwd, explicitConfig)] : []),
		lockPath(values, io.cwd, workspace),
		trustFileFor(io.env, defaultTrustFile),
	];
	const ceiling = {
		...(allow.length > 0 ? { tools: allow } : {}),
		...(values["no-network"] ? { network: false } : {}),
	};
	const startedAt = Date.now();
	let agent: Agent;
	try {
		agent = await createAgent({
			model,
			workspace,
			discover: settings.discover,
			...(integrity ? { session: { integrity } } : {}),
			...(contextWindow ? { contextWindow } : {}),
			...(Object.keys(ceiling).length > 0 ? { ceiling } : {}),
			...(deny.length > 0 ? { deny } : {}),
			runsLater,
			...(confirm ? { confirm } : {}),
			yes: values.yes === true,
			autoLoad: values["auto-load"] === true,
			saveSkills: save,
			...(values.events ? { eventLog: resolve(io.cwd, values.events) } : {}),
			...(values.resume ? { resume: await readSaved(resolve(io.cwd, values.resume)) } : {}),
			...(servers.length > 0 ? { mcp: servers } : {}),
		});
	} catch (error) {
		// A host file that is not safe to write (a link at --events) is the user's option to fix.
		if (error instanceof SkillsetError && error.code === "invalid-option") throw new UsageError(error.message);
		throw error;
	}
	// A failed origin must not look like an empty one here either: the same line and exit status as `list`. The
	// `--mcp` servers are tool servers first (their skills join only if they offer any), and one that cannot be
	// reached is already named among the agent's MCP problems.
	const toolServers = new Set(servers.map((server) => `mcp:${server.name}`));
	const origins = settings.originList.filter((origin) => !toolServers.has(origin.origin));
	const report = agent.discoveryReport;
	if (origins.length > 0 && report) {
		const { warnFailedOrigins } = await import("../origin-warnings.ts");
		await warnFailedOrigins(origins, settings.origins, report, startedAt, io);
	}
	return agent;
}

/** `[NAME=]COMMAND ARGS...` or `[NAME=]URL`; words split on spaces, quotes keep them together (no shell). */
export function parseMcpSpec(text: string, position: number, cwd: string): McpServerSpec {
	const named = /^([A-Za-z0-9_-]{1,32})=(.*)$/s.exec(text.trim());
	const name = named?.[1] ?? `mcp${position + 1}`;
	const rest = (named?.[2] ?? text).trim();
	if (/^https?:\/\//.test(rest)) return { name, url: rest };
	const [command, ...args] = splitCommandLine(rest);
	if (!command) throw new UsageError(`--mcp needs a command or a URL, not '${text}'`);
	return { name, command, args, cwd };
}

function originServers(servers: readonly McpServerSpec[]): Record<string, McpServerSetting> {
	const out: Record<string, McpServerSetting> = {};
	for (const { name, command, args, url, cwd } of servers) {
		if (!ORIGIN_LABEL.test(name)) continue;
		if (url) out[name] = { url };
		else if (command) out[name] = { command, args: [...(args ?? [])], ...(cwd ? { cwd } : {}) };
	}
	return out;
}

function positiveInteger(value: string | undefined, flag: string): number | undefined {
	if (value === undefined) return undefined;
	const number = Number(value);
	if (!Number.isInteger(number) || number <= 0)
		throw new UsageError(`${flag} must be a positive whole number, not '${value}'`);
	return number;
}

/**
 * The final answer of -p on stdout (made safe for a terminal) and each refused call on stderr; the REPL has
 * printed everything already.
 */
export function render(data: ChatData | null, style: Style): Rendered {
	if (data === null) return { stdout: "", stderr: "" };
	const refused = data.refusals.map(
		(r) => `${style.yellow("refused:")} ${r.tool}${r.target ? ` ${oneLine(r.target)}` : ""} (rule ${r.rule})\n`,
	);
	if (!data.text || data.status === "failed" || data.status === "cancelled")
		return { stdout: "", stderr: refused.join("") };
	// The model's text, with control characters and escape sequences made visible.
	const text = terminalSafe(data.text);
	return { stdout: text.endsWith("\n") ? text : `${text}\n`, stderr: refused.join("") };
}

/** Longest target shown in a refusal line (`--json` has it whole). */
const MAX_TARGET_CHARS = 200;

/** A model-chosen target on one line: newlines and escapes visible (no forged lines), clipped. */
function oneLine(target: string): string {
	const chars = [...target];
	const clipped = chars.length > MAX_TARGET_CHARS ? `${chars.slice(0, MAX_TARGET_CHARS).join("")}…` : target;
	return exactText(clipped);
}
