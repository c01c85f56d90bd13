import { dirname } from "node:path";
import type { Tokenizer } from "../catalog/index.ts";
import type { Discovery } from "../discovery/index.ts";
import { createPolicy, type Policy, type SandboxAvailability, type ToolSpec } from "../policy/index.ts";
import { type Activation, type ActivationRefusal, createSession, type SkillSession } from "../runtime/index.ts";
import { SkillsetError } from "../skill/index.ts";
import type { ToolResult } from "../tools/index.ts";
import type { AgentOptions, SavedConversation, TokenUse, TurnOptions, TurnResult } from "./agent-options.ts";
import type { AgentTool, ShellExecutor } from "./agent-tool.ts";
import { errorResult } from "./agent-tool.ts";
import {
	clipResult,
	countTokens,
	DEFAULT_KEEP_TURNS,
	DEFAULT_RESULT_LIMIT_CHARS,
	type Entry,
	renderTranscript,
	viewMessages,
} from "./context.ts";
import { createSkillTool } from "./create-skill-tool.ts";
import { createDeferredTools } from "./deferred-tools.ts";
import { type CallOutcome, runToolCall } from "./dispatch.ts";
import type { EventLog } from "./event-log.ts";
import type { AgentEvent, AgentLoopEvent } from "./events.ts";
import { createFileTools } from "./file-tools.ts";
import type { GateOptions } from "./gate.ts";
import type { McpTools } from "./mcp-tools.ts";
import type { ChatMessage, ModelClient, ModelTool, ModelToolCall } from "./model.ts";
import { BASE_INSTRUCTIONS, readAgentsMd, renderSystemPrompt } from "./prompt.ts";
import { createShellTool } from "./shell-tool.ts";
import { buildSkillState, parseInvocation, resolveInvocation, type SkillState } from "./skill-state.ts";
import { renderHint } from "./triggers.ts";

/** Tool calls run from one model answer; the rest get an error result. */
const MAX_CALLS_PER_ANSWER = 32;

const COMPACT_INSTRUCTIONS =
	"You write the summary that replaces the earlier part of a conversation between a user and an assistant that uses tools. Keep what is needed to continue: the user's goals and preferences, decisions, facts found, files changed, commands that worked or failed, and open tasks. Skill instructions are re-delivered separately; do not restate them. Be concise; use bullet points.";

const REMINDER =
	"\n\n[skillset: this task has taken many tool calls. When it is done, if the procedure is likely to be needed again, you may save it as a skill with create_skill.]";

/** What `createAgent` prepares for the agent. */
export interface AgentParts {
	workspace: string;
	tokenizer: Tokenizer;
	discovery: Discovery;
	index: Parameters<typeof createSession>[0];
	saveRoot: string;
	shell: ShellChoice;
	/** Every discovery root, kept read-only by the policy. */
	roots: string[];
	mcp: McpTools | undefined;
	/** The event log, opened by `createAgent` (closed by {@link Agent.close}). */
	eventLog?: EventLog | undefined;
}

/** The shell executor, and whether it is the OS sandbox (with the reason when not). */
export interface ShellChoice {
	execute: ShellExecutor;
	sandbox: SandboxAvailability;
}

/** The agent loop; create it with `createAgent`. One conversation per agent. */
export class Agent {
	readonly workspace: string;
	readonly session: SkillSession;
	/** Where `create_skill` writes. */
	readonly saveRoot: string;
	readonly #options: AgentOptions;
	readonly #tokenizer: Tokenizer;
	readonly #discovery: Discovery;
	readonly #policy: Policy;
	readonly #sinks: ((event: AgentEvent) => void)[] = [];
	readonly #ownTools: AgentTool[];
	readonly #deferred = new Map<string, AgentTool>();
	readonly #grants: string[] = [];
	readonly #shell: ShellChoice;
	readonly #mcp: McpTools | undefined;
	readonly #eventLog: EventLog | undefined;
	#state: SkillState | undefined;
	#entries: Entry[] = [];
	#turn = 0;
	#summary: string | undefined;
	#redeliver = false;
	#reminded = false;
	#busy = false;
	#synthetic = 0;
	#toolsCache: { state: SkillState; tools: ModelTool[]; tokens: number } | undefined;
	#systemCache: { rest: string; tokens: number } | undefined;

	/** Use `createAgent`, which scans, picks the shell executor and connects MCP servers first. */
	constructor(options: AgentOptions, parts: AgentParts) {
		this.#options = options;
		this.workspace = parts.workspace;
		this.saveRoot = parts.saveRoot;
		this.#tokenizer = parts.tokenizer;
		this.#discovery = parts.discovery;
		this.#shell = parts.shell;
		this.#mcp = parts.mcp;
		if (options.onEvent) this.#sinks.push(options.onEvent);
		this.#eventLog = parts.eventLog;
		if (parts.eventLog) this.#sinks.push((event) => parts.eventLog?.append(event));
		this.session = createSession(parts.index, {
			...options.session,
			tokenizer: parts.tokenizer,
			onEvent: (event) => {
				for (const sink of this.#sinks) sink(event);
			},
		});
		this.#ownTools = this.#buildOwnTools();
		const specs: Record<string, ToolSpec> = {};
		for (const tool of [...this.#ownTools, ...this.#deferred.values()])
			specs[tool.name] = tool.spec ?? { risk: "exec" };
		this.#policy = createPolicy({
			workspace: this.workspace,
			tools: specs,
			sandbox: parts.shell.sandbox,
			skillRoots: parts.roots,
			...(parts.eventLog ? { hostFiles: [parts.eventLog.path] } : {}),
			...(options.runsLater ? { runsLater: options.runsLater } : {}),
			...(options.ceiling ? { ceiling: options.ceiling } : {}),
		});
	}

	/** True when shell commands run in the OS sandbox. */
	get sandboxed(): boolean {
		return this.#shell.sandbox.available;
	}

	/** Why shell commands run without the sandbox, when they do. */
	get sandboxProblem(): string | undefined {
		return this.#shell.sandbox.available ? undefined : this.#shell.sandbox.reason;
	}

	/** MCP servers that could not be connected, with why. */
	get mcpProblems(): { server: string; message: string }[] {
		return this.#mcp?.problems ?? [];
	}

	/** Closes the MCP connections (stdio servers exit). The agent is not usable afterwards for MCP tools. */
	async close(): Promise<void> {
		try {
			await this.#mcp?.close();
		} finally {
			this.#eventLog?.close();
		}
	}

	/** The number of user turns so far. */
	get turn(): number {
		return this.#turn;
	}

	/** The conversation as the model would see it now (old ordinary results as placeholders). */
	get messages(): ChatMessage[] {
		return viewMessages(this.#entries, this.#turn, this.#keepTurns);
	}

	/** The current catalog state (catalog, prompt section, skill tools). */
	get catalog(): SkillState["catalog"] {
		return this.#skillState().catalog;
	}

	/** Rescans the skills (incrementally); a changed index moves the session and rebuilds the catalog. */
	async rescan(): Promise<void> {
		const { index } = await this.#discovery.scan();
		const changed = this.#state?.index !== index;
		if (changed) {
			this.session.useIndex(index);
			this.#state = await buildSkillState(index, this.session, {
				tokenizer: this.#tokenizer,
				contextWindow: this.#contextWindow,
			});
			this.session.recordCatalog(this.#state.catalog);
		}
		this.#emit({ type: "agent.rescanned", skills: index.catalogSkills.length, changed });
	}

	/** Runs one user turn to the model's final answer (or a refusal, failure or cancellation). */
	async send(text: string, options: TurnOptions = {}): Promise<TurnResult> {
		if (this.#busy) throw new SkillsetError("invalid-argument", "a turn is already running on this agent");
		this.#busy = true;
		try {
			return await this.#send(text, options);
		} finally {
			this.#busy = false;
		}
	}

	async #send(text: string, options: TurnOptions): Promise<TurnResult> {
		await this.rescan();
		const invocation = parseInvocation(text);
		let invoked: Activation | undefined;
		if (invocation) {
			const resolved = resolveInvocation(this.#skillState().index, invocation.name);
			if (!resolved.ok) {
				this.#emit({ type: "agent.skill.invoked", name: invocation.name, ok: false });
				return { status: "refused", text: resolved.message, toolCalls: 0 };
			}
			const result = await this.session.activate(resolved.name, { invoker: "user", reason: "invoked by the user" });
			this.#emit({ type: "agent.skill.invoked", name: resolved.name, ok: result.ok });
			if (!result.ok) return { status: "refused", text: result.message, toolCalls: 0 };
			invoked = result;
		}
		this.#turn++;
		this.#emit({ type: "agent.turn.started", turn: this.#turn });
		const { content, loaded } = invoked ? { content: text, loaded: invoked } : await this.#withHints(text);
		this.#entries.push({ message: { role: "user", content }, turn: this.#turn });
		if (loaded) this.#pushActivation(loaded);
		const result = await this.#loop(options);
		this.#emit({ type: "agent.turn.ended", turn: this.#turn, status: result.status, toolCalls: result.toolCalls });
		return result;
	}

	/** Appends a trigger hint to the message, or, with `autoLoad`, loads the best match instead. */
	async #withHints(text: string): Promise<{ content: string; loaded?: Activation }> {
		const names = this.#skillState().triggers.match(text, new Set(this.session.active));
		if (names.length === 0) return { content: text };
		this.#emit({ type: "agent.skills.hinted", names });
		if (!this.#options.autoLoad) return { content: `${text}\n\n${renderHint(names)}` };
		const loaded = await this.session.activate(names[0] as string, { reason: "matched the user's message" });
		return loaded.ok ? { content: text, loaded } : { content: `${text}\n\n${renderHint(names)}` };
	}

	async #loop(options: TurnOptions): Promise<TurnResult> {
		const signal = options.signal ?? new AbortController().signal;
		let toolCalls = 0;
		let refused = false;
		const maxCalls = this.#options.maxModelCalls ?? 50;
		for (let round = 0; round < maxCalls; round++) {
			let response: Awaited<ReturnType<ModelClient["complete"]>>;
			try {
				await this.#compactIfNeeded(signal);
				await this.#redeliverIfPending();
				const request = this.#request();
				this.#emit({
					type: "agent.model.request",
					turn: this.#turn,
					messages: request.messages.length,
					tools: request.tools.length,
					tokens: this.tokens().total,
				});
				response = await this.#options.model.complete(request, {
					signal,
					...(options.onText ? { onText: options.onText } : {}),
				});
			} catch (error) {
				if (signal.aborted) return { status: "cancelled", text: "", toolCalls };
				const message = (error as Error).message ?? String(error);
				this.#emit({ type: "agent.model.failed", turn: this.#turn, error: message });
				return { status: "failed", text: "", toolCalls, error: message };
			}
			// The SDK ends a stream quietly when it is aborted: what came in is partial, so it is dropped.
			if (signal.aborted) return { status: "cancelled", text: "", toolCalls };
			this.#entries.push({
				message: {
					role: "assistant",
					content: response.content,
					...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
				},
				turn: this.#turn,
			});
			if (response.toolCalls.length === 0)
				return { status: refused ? "refused" : "done", text: response.content, toolCalls };
			for (const [index, call] of response.toolCalls.entries()) {
				if (signal.aborted) {
					this.#pushResult(call, errorResult("Cancelled by the user before it ran."), call.name);
					continue;
				}
				if (index >= MAX_CALLS_PER_ANSWER) {
					const content = `Not run: at most ${MAX_CALLS_PER_ANSWER} tool calls are run per answer.`;
					this.#pushResult(call, errorResult(content), call.name);
					continue;
				}
				toolCalls++;
				const outcome = await this.#runCall(call, signal, options);
				refused ||= outcome.refused;
				this.#pushResult(call, outcome.result, outcome.tool, toolCalls);
			}
			if (signal.aborted) return { status: "cancelled", text: "", toolCalls };
		}
		const error = `stopped after ${maxCalls} model calls in one turn`;
		return { status: "failed", text: "", toolCalls, error };
	}

	/** The request for the next model call: system prompt, the conversation as seen now, and the visible tools. */
	#request(): { messages: ChatMessage[]; tools: ModelTool[] } {
		return {
			messages: [{ role: "system", content: this.systemPrompt() }, ...this.messages],
			tools: this.#modelTools().tools,
		};
	}

	/** The system prompt for the current turn: instructions, notes, the skills section, the summary, AGENTS.md. */
	systemPrompt(): string {
		const notes: string[] = [];
		if (!this.sandboxed)
			notes.push("Shell commands run without the OS sandbox here: each one needs the user's approval.");
		if (this.#summary) notes.push(`## Summary of the earlier conversation\n\n${this.#summary}`);
		return renderSystemPrompt({
			instructions: this.#options.instructions ?? BASE_INSTRUCTIONS,
			notes,
			skills: this.#skillState().section,
			agentsMd: readAgentsMd(this.workspace).text,
		});
	}

	/** Tokens in use now: system prompt, conversation and tool definitions, against the window. */
	tokens(): TokenUse {
		const state = this.#skillState();
		const prompt = this.systemPrompt();
		const rest = prompt.replace(state.section, "");
		if (this.#systemCache?.rest !== rest) this.#systemCache = { rest, tokens: this.#tokenizer.count(rest) };
		const system = this.#systemCache.tokens + state.catalog.report.tokens;
		const conversation = countTokens(this.#entries, this.#turn, this.#keepTurns, this.#tokenizer);
		const tools = this.#modelTools().tokens;
		return {
			system,
			conversation,
			tools,
			total: system + conversation + tools,
			contextWindow: this.#contextWindow,
			threshold: Math.floor(this.#contextWindow * (this.#options.compactAt ?? 0.8)),
			tiers: this.session.totals(),
		};
	}

	/**
	 * Replaces the conversation before the current turn with a summary written by the model, tells the session
	 * (`markCompacted`), and re-delivers the active skills in full before the next model call.
	 */
	async compact(signal?: AbortSignal): Promise<{ before: number; after: number } | undefined> {
		const start = this.#busy ? this.#entries.findIndex((entry) => entry.turn === this.#turn) : this.#entries.length;
		const old = this.#entries.slice(0, Math.max(0, start));
		if (old.length === 0) return undefined;
		const before = this.tokens().total;
		const earlier = this.#summary ? `Summary of what came before:\n${this.#summary}\n\n` : "";
		const transcript = clipResult(`${earlier}${renderTranscript(old)}`, this.#contextWindow * 2);
		const response = await this.#options.model.complete(
			{
				messages: [
					{ role: "system", content: COMPACT_INSTRUCTIONS },
					{ role: "user", content: `${transcript}\n\nWrite the summary now.` },
				],
				tools: [],
			},
			signal ? { signal } : {},
		);
		this.#summary = response.content.trim() || this.#summary;
		this.#entries = this.#entries.slice(old.length);
		this.session.markCompacted();
		this.#redeliver = true;
		const after = this.tokens().total;
		this.#emit({ type: "agent.compacted", before, after, entries: old.length });
		return { before, after };
	}

	async #compactIfNeeded(signal: AbortSignal): Promise<void> {
		const use = this.tokens();
		if (use.total > use.threshold) await this.compact(signal);
	}

	/** After compaction: each active skill whose full text is no longer in the conversation is delivered again. */
	async #redeliverIfPending(): Promise<void> {
		if (!this.#redeliver) return;
		this.#redeliver = false;
		const present = new Set(this.#entries.flatMap((entry) => entry.tool?.skills ?? []));
		const names: string[] = [];
		for (const name of this.session.active) {
			if (present.has(name)) continue;
			const result = await this.session.activate(name, { invoker: "user", reason: "re-delivered after compaction" });
			if (!result.ok || result.cached) continue;
			this.#pushActivation(result);
			for (const skill of [...result.dependencies, result]) present.add(skill.name);
			names.push(name);
		}
		if (names.length > 0) this.#emit({ type: "agent.skill.redelivered", names });
	}

	/** Activates a skill for the user (`/load`); its content joins the conversation as a load_skill result. */
	async load(name: string): Promise<Activation | ActivationRefusal> {
		const result = await this.session.activate(name, { invoker: "user", reason: "loaded by the user" });
		if (result.ok && !result.cached) this.#pushActivation(result);
		return result;
	}

	/** Deactivates a skill (`/unload`): it no longer counts against the limits or widens permissions. */
	unload(name: string): boolean {
		return this.session.deactivate(name);
	}

	/** Every selected skill, with whether the model can see it and whether it is active. */
	skills(): { name: string; description: string; listed: boolean; active: boolean }[] {
		const active = new Set(this.session.active);
		const listed = new Set(this.#skillState().catalog.report.kept);
		return this.#skillState().index.selected.map((skill) => ({
			name: skill.name,
			description: skill.description,
			listed: listed.has(skill.name),
			active: active.has(skill.name),
		}));
	}

	/** The conversation, active skills and "always" grants, for `resume`. */
	save(): SavedConversation {
		return {
			version: 1,
			turn: this.#turn,
			...(this.#summary ? { summary: this.#summary } : {}),
			entries: this.#entries.map(({ message, turn, tool }) => ({ message, turn, ...(tool ? { tool } : {}) })),
			active: this.session.active,
			grants: [...this.#grants],
		};
	}

	/** Restores a saved conversation into this (fresh) agent. */
	async restore(saved: SavedConversation): Promise<void> {
		if (saved.version !== 1 || !Array.isArray(saved.entries))
			throw new SkillsetError("invalid-argument", "not a saved skillset conversation (version 1)");
		this.#entries = saved.entries.map((entry) => ({ ...entry }));
		this.#turn = saved.turn;
		this.#summary = saved.summary;
		// Their text is in the restored messages already: activate without delivering anything again.
		for (const name of saved.active) await this.session.activate(name, { invoker: "user", reason: "resumed" });
		// A skill whose text the saved messages no longer hold (compacted away) is delivered again on the next turn.
		const present = new Set(this.#entries.flatMap((entry) => entry.tool?.skills ?? []));
		if (this.session.active.some((name) => !present.has(name))) {
			this.session.markCompacted();
			this.#redeliver = true;
		}
		// Saved grants are read back as exact calls: an edited file cannot turn one into a wildcard.
		for (const pattern of saved.grants) {
			if (typeof pattern !== "string") continue;
			this.#policy.grant(this.session, pattern, "always", { exact: true });
			this.#grants.push(pattern);
		}
	}

	#runCall(call: ModelToolCall, signal: AbortSignal, options: TurnOptions): Promise<CallOutcome> {
		return runToolCall(call, {
			tools: this.#visibleTools(),
			deferred: this.#deferred,
			gate: this.#gateOptions(),
			workspace: this.workspace,
			signal,
			resultLimit: this.#resultLimit,
			emit: (event) => this.#emit(event),
			...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
		});
	}

	#pushResult(call: ModelToolCall, result: ToolResult, tool: string, count = 0): void {
		let content = result.protected ? result.content : clipResult(result.content, this.#resultLimit);
		const threshold = this.#options.reminderAfterToolCalls ?? 12;
		if (count >= threshold && !this.#reminded) {
			this.#reminded = true;
			content += REMINDER;
		}
		const skills = tool === "load_skill" && result.protected ? deliveredSkills(result) : undefined;
		this.#entries.push({
			message: { role: "tool", toolCallId: call.id, content },
			turn: this.#turn,
			tool: { name: tool, args: call.arguments, protected: result.protected, ...(skills ? { skills } : {}) },
		});
	}

	/** Puts an activation into the conversation as a load_skill call and its (protected) result. */
	#pushActivation(result: Activation): void {
		const id = `skillset_${++this.#synthetic}_${this.#turn}`;
		const args = JSON.stringify({ name: result.name });
		this.#entries.push({
			message: { role: "assistant", content: "", toolCalls: [{ id, name: "load_skill", arguments: args }] },
			turn: this.#turn,
		});
		const skills = [...result.dependencies, result].filter((s) => !s.cached).map((s) => s.name);
		this.#entries.push({
			message: { role: "tool", toolCallId: id, content: result.fullText },
			turn: this.#turn,
			tool: { name: "load_skill", args, protected: true, skills },
		});
	}

	#gateOptions(): GateOptions {
		return {
			policy: this.#policy,
			session: this.session,
			workspace: this.workspace,
			...(this.#options.confirm ? { confirm: this.#options.confirm } : {}),
			...(this.#options.yes ? { yes: true } : {}),
			...(this.#options.deny ? { deny: this.#options.deny } : {}),
			emit: (event) => this.#emit(event),
			remember: (pattern) => this.#grants.push(pattern),
		};
	}

	#buildOwnTools(): AgentTool[] {
		// Read-only paths and network come from the policy (ceiling and active manifests), per command.
		const shell = createShellTool({
			execute: this.#shell.execute,
			sandboxOptions: () => this.#policy.sandboxOptions(this.session),
		});
		const create = createSkillTool({
			root: this.saveRoot,
			...(this.#options.saveSkills === undefined || this.#options.saveSkills === "workspace"
				? { within: this.workspace }
				: {}),
			approve: async (name, findings) => {
				const args = { name, findings: findings.map((f) => `${f.rule} (${f.file}${f.line ? `:${f.line}` : ""})`) };
				const spec: ToolSpec = { risk: "write" };
				const decision = { decision: "ask" as const, rule: "audit-P1", reason: "the audit flagged the new skill" };
				return (await this.#askDirect("create_skill", args, spec, decision)).allowed;
			},
			onCreated: (name, dir) => this.#emit({ type: "agent.skill.created", name, dir }),
			existing: async (name) => {
				const { index } = await this.#discovery.scan();
				const same = index.skills.find((skill) => skill.id === name || skill.name === name);
				return same && dirname(same.realFile);
			},
		});
		const host = this.#options.tools ?? [];
		for (const tool of host) {
			if (tool.deferred) this.#deferred.set(tool.name, tool);
		}
		const direct = host.filter((tool) => !tool.deferred);
		return [...createFileTools(), shell, create, ...direct, ...createDeferredTools([...this.#deferred.values()])];
	}

	/** Asks the user directly (for audit findings, which are not a policy decision). */
	async #askDirect(
		tool: string,
		args: Record<string, unknown>,
		_spec: ToolSpec,
		decision: { decision: "ask"; rule: string; reason: string },
	): Promise<{ allowed: boolean }> {
		const answer = (value: "once" | "deny", by: "user" | "yes-flag" | "no-terminal") => {
			this.#emit({ type: "permission.answered", tool, rule: decision.rule, answer: value, by });
			return { allowed: value === "once" };
		};
		if (this.#options.yes) return answer("once", "yes-flag");
		if (!this.#options.confirm) return answer("deny", "no-terminal");
		const request = { tool, args, rule: decision.rule, reason: decision.reason, pattern: tool, grantable: false };
		const reply = await this.#options.confirm(request);
		return answer(reply === "deny" ? "deny" : "once", "user");
	}

	#visibleTools(): AgentTool[] {
		return [...this.#skillState().tools, ...this.#ownTools];
	}

	#modelTools(): { tools: ModelTool[]; tokens: number } {
		const state = this.#skillState();
		if (this.#toolsCache?.state !== state) {
			const tools = this.#visibleTools().map((tool) => ({
				name: tool.name,
				description: tool.description,
				parameters: tool.inputSchema,
			}));
			this.#toolsCache = { state, tools, tokens: this.#tokenizer.count(JSON.stringify(tools)) };
		}
		return this.#toolsCache;
	}

	#skillState(): SkillState {
		if (!this.#state) throw new SkillsetError("internal", "the agent has not scanned yet");
		return this.#state;
	}

	get #contextWindow(): number {
		return this.#options.contextWindow ?? 128_000;
	}

	get #keepTurns(): number {
		return this.#options.keepTurns ?? DEFAULT_KEEP_TURNS;
	}

	get #resultLimit(): number {
		return this.#options.resultLimitChars ?? DEFAULT_RESULT_LIMIT_CHARS;
	}

	#emit(event: AgentLoopEvent): void {
		const stamped = { ...event, time: new Date().toISOString(), session: this.session.id } as AgentEvent;
		for (const sink of this.#sinks) sink(stamped);
	}
}

/** The skills whose full text a load_skill result carries (not the cached ones). */
function deliveredSkills(result: ToolResult): string[] {
	const details = result.details as {
		name?: string;
		cached?: boolean;
		dependencies?: { name: string; cached: boolean }[];
	};
	const names = (details.dependencies ?? []).filter((d) => !d.cached).map((d) => d.name);
	if (details.name && !details.cached) names.push(details.name);
	return names;
}
