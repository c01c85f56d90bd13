import type { Tokenizer } from "../catalog/index.ts";
import type { DiscoverOptions } from "../discovery/index.ts";
import type { PermissionCeiling } from "../policy/index.ts";
import type { SessionOptions, TierTotals } from "../runtime/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { AgentTool, ShellExecutor } from "./agent-tool.ts";
import type { Entry } from "./context.ts";
import type { AgentEvent, TurnStatus } from "./events.ts";
import type { Confirm } from "./gate.ts";
import type { McpServerSpec } from "./mcp-tools.ts";
import type { ModelClient } from "./model.ts";

/** Options for `createAgent`. Only `model` is required. */
export interface AgentOptions {
	model: ModelClient;
	/** The workspace: file tools and shell commands work here. Default: the working directory at this call. */
	workspace?: string;
	/** How to find skills (the workspace is the default cwd). Rescanned, incrementally, before every turn. */
	discover?: DiscoverOptions;
	/**
	 * Settings made by `resolveSettings`: its workspace, discovery options and permissions (`allow` becomes the
	 * ceiling's tools, `deny` is added to `deny`) are the defaults; `workspace`, `discover` and `ceiling` given here
	 * win key by key. Its remote origins need their providers in `discover.origins`.
	 */
	settings?: ResolvedSettings;
	/** Session limits and verify mode. */
	session?: Omit<SessionOptions, "onEvent" | "eventLog" | "tokenizer" | "id">;
	/** Counts tokens for the catalog budget, context use and compaction. Default: o200k_base. */
	tokenizer?: Tokenizer;
	/** Replaces the base instructions of the system prompt. */
	instructions?: string;
	/** The model's context window in tokens. Default 128,000. */
	contextWindow?: number;
	/** Compact when the request passes this fraction of the context window. Default 0.8. */
	compactAt?: number;
	/** Ordinary tool results over this many characters keep head and tail. Default 4,000. */
	resultLimitChars?: number;
	/** Ordinary tool results older than this many turns become a placeholder. Default 3. */
	keepTurns?: number;
	/** The host's tools, with JSON Schemas; `deferred` ones are found with `tool_search`. */
	tools?: readonly AgentTool[];
	/** MCP servers whose tools join as deferred tools (`mcp__server__tool`); the MCP SDK loads only when given. */
	mcp?: readonly McpServerSpec[];
	/** The host ceiling: what any call may use at most (`--allow`, config). */
	ceiling?: PermissionCeiling;
	/**
	 * Files besides the conventional ones that decide what runs or loads next time (a `--config` file, a lock file,
	 * the trust store): a write to them is never pre-approved by a skill.
	 */
	runsLater?: readonly string[];
	/** Tool patterns always denied (`--deny`, config), e.g. `run_shell(git push:*)`. */
	deny?: readonly string[];
	/** Asks the user about a call the policy says to ask about. Absent: `ask` means deny. */
	confirm?: Confirm;
	/** Answer every `ask` with yes. Never overrides a hard rule (those deny without asking). */
	yes?: boolean;
	/** Load the best-matching skill before the model runs, instead of only hinting. */
	autoLoad?: boolean;
	/**
	 * Where `create_skill` writes: the workspace's `.agents/skills` (default; never through a link that leads out of
	 * the workspace), the user's skills folder, or a folder. Every creation is asked (or `yes`).
	 */
	saveSkills?: "user" | "workspace" | { root: string };
	/**
	 * Runs `run_shell` commands. Default: the policy stage's OS sandbox (`runSandboxed`: skill roots read-only,
	 * writes only in the workspace and a private /tmp) when `detectSandbox` finds one, else plain `sh -c`, and then
	 * every shell command is asked.
	 */
	shell?: ShellExecutor;
	/** Whether a given `shell` is an OS sandbox like `runSandboxed`. Default false (every command is asked). */
	sandboxed?: boolean;
	/** Most model calls in one turn. Default 50. */
	maxModelCalls?: number;
	/** After this many tool calls in one turn, remind the model (once) that it may save a skill. Default 12. */
	reminderAfterToolCalls?: number;
	/** Receives every event. */
	onEvent?: (event: AgentEvent) => void;
	/**
	 * Appends every event to this JSONL file: opened once at creation, never through a link, and read-only to every
	 * tool and shell command while the agent runs.
	 */
	eventLog?: string;
	/** Continue a conversation saved with `Agent.save`. */
	resume?: SavedConversation;
}

/** Per-turn options: cancellation and live output. */
export interface TurnOptions {
	signal?: AbortSignal;
	/** Streamed text of the model's answers. */
	onText?: (delta: string) => void;
	/** Called before each tool call runs (after the permission gate allowed it). */
	onToolCall?: (name: string, args: Record<string, unknown>) => void;
}

/**
 * How a turn went: its status, the model's final text (or what went wrong), how many tools it called, and the calls
 * the permission gate refused. `refused` with an answer means the model finished after a refusal; `refused` with no
 * refusals means the user's `$name` invocation was refused and the model never ran.
 */
export interface TurnResult {
	status: TurnStatus;
	text: string;
	toolCalls: number;
	/** Every call the gate refused in this turn, in order. */
	refusals: Refusal[];
	error?: string;
	/** With `failed`: the model call failed (`model`), or the turn reached its most model calls (`limit`). */
	failure?: "model" | "limit";
}

/** One refused call: the tool, what it was aimed at (a command, a path or a name; "" when nothing), the rule. */
export interface Refusal {
	tool: string;
	target: string;
	rule: string;
}

/** A conversation as `Agent.save` writes it and `resume` reads it. */
export interface SavedConversation {
	version: 1;
	turn: number;
	summary?: string;
	entries: Pick<Entry, "message" | "turn" | "tool">[];
	active: string[];
	grants: string[];
}

/** Context use in tokens, with the session's totals per tier. */
export interface TokenUse {
	system: number;
	conversation: number;
	tools: number;
	total: number;
	contextWindow: number;
	/** Compaction starts past this. */
	threshold: number;
	tiers: TierTotals;
}
