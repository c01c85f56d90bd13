import type { Tokenizer } from "../catalog/index.ts";
import type { Discovery, DiscoveryReport } from "../discovery/index.ts";
import type { SandboxAvailability } from "../policy/index.ts";
import { type Activation, type ActivationRefusal, createSession, type SkillSession } from "../runtime/index.ts";
import { SkillsetError } from "../skill/index.ts";
import type { AgentOptions, SavedConversation, TokenUse, TurnOptions, TurnResult } from "./agent-options.ts";
import type { ShellExecutor } from "./agent-tool.ts";
import { DEFAULT_RESULT_LIMIT_CHARS } from "./context.ts";
import { Conversation } from "./conversation.ts";
import type { EventLog } from "./event-log.ts";
import type { AgentEvent, AgentLoopEvent } from "./events.ts";
import type { McpTools } from "./mcp-tools.ts";
import type { ChatMessage } from "./model.ts";
import { ModelIO } from "./model-io.ts";
import { buildSkillState, parseInvocation, resolveInvocation, type SkillState } from "./skill-state.ts";
import { AgentTools } from "./tool-dispatch.ts";
import { renderHint } from "./triggers.ts";
import { runTurn } from "./turn-loop.ts";

// The agent's parts, each in its own file: the turn loop (`turn-loop.ts`), model I/O (`model-io.ts`), tool
// dispatch with the permission policy (`tool-dispatch.ts`, over `dispatch.ts` and `gate.ts`), and the conversation
// with its saved form (`conversation.ts`). The class holds them together with the session: skills moving in and out
// of the conversation (invocation, hints, `/load`, re-delivery after compaction), rescans and events.

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
	readonly #sinks: ((event: AgentEvent) => void)[] = [];
	readonly #tools: AgentTools;
	readonly #shell: ShellChoice;
	readonly #mcp: McpTools | undefined;
	readonly #eventLog: EventLog | undefined;
	readonly #conversation: Conversation;
	readonly #io: ModelIO;
	#state: SkillState | undefined;
	#busy = false;

	/**
	 * Use `createAgent`, which scans, picks the shell executor and connects MCP servers first.
	 * @internal
	 */
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
		this.#conversation = new Conversation({
			resultLimit: options.resultLimitChars ?? DEFAULT_RESULT_LIMIT_CHARS,
			reminderAfter: options.reminderAfterToolCalls ?? 12,
		});
		this.#io = new ModelIO(options, parts.tokenizer, this.#conversation, {
			workspace: this.workspace,
			state: () => this.#skillState(),
			sandboxed: () => this.sandboxed,
			tools: () => this.#tools.visible(),
			totals: () => this.session.totals(),
		});
		this.#tools = new AgentTools({
			options,
			workspace: this.workspace,
			saveRoot: this.saveRoot,
			discovery: this.#discovery,
			session: this.session,
			shell: parts.shell.execute,
			sandbox: parts.shell.sandbox,
			roots: parts.roots,
			...(parts.eventLog ? { hostFiles: [parts.eventLog.path] } : {}),
			skillTools: () => this.#skillState().tools,
			emit: (event) => this.#emit(event),
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

	/** The report of the last scan: roots, counts, and what each origin said (a host names failed origins from it). */
	get discoveryReport(): DiscoveryReport | undefined {
		return this.#discovery.current?.report;
	}

	/** The number of user turns so far. */
	get turn(): number {
		return this.#conversation.turn;
	}

	/** The conversation as the model would see it now (old ordinary results as placeholders). */
	get messages(): ChatMessage[] {
		return this.#io.messages();
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
				contextWindow: this.#io.contextWindow,
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
				return { status: "refused", text: resolved.message, toolCalls: 0, refusals: [] };
			}
			const result = await this.session.activate(resolved.name, { invoker: "user", reason: "invoked by the user" });
			this.#emit({ type: "agent.skill.invoked", name: resolved.name, ok: result.ok });
			if (!result.ok) return { status: "refused", text: result.message, toolCalls: 0, refusals: [] };
			invoked = result;
		}
		const turn = ++this.#conversation.turn;
		this.#emit({ type: "agent.turn.started", turn });
		const { content, loaded } = invoked ? { content: text, loaded: invoked } : await this.#withHints(text);
		this.#conversation.pushUser(content);
		if (loaded) this.#conversation.pushActivation(loaded);
		const result = await runTurn(
			{
				conversation: this.#conversation,
				io: this.#io,
				maxModelCalls: this.#options.maxModelCalls ?? 50,
				prepare: (signal) => this.#prepare(signal),
				runCall: (call, signal, turnOptions) => this.#tools.run(call, signal, turnOptions),
				emit: (event) => this.#emit(event),
			},
			options,
		);
		this.#emit({ type: "agent.turn.ended", turn, status: result.status, toolCalls: result.toolCalls });
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

	/** The system prompt for the current turn: instructions, notes, the skills section, the summary, AGENTS.md. */
	systemPrompt(): string {
		return this.#io.systemPrompt();
	}

	/** Tokens in use now: system prompt, conversation and tool definitions, against the window. */
	tokens(): TokenUse {
		return this.#io.tokens();
	}

	/**
	 * Replaces the conversation before the current turn with a summary written by the model, tells the session
	 * (`markCompacted`), and re-delivers the active skills in full before the next model call.
	 */
	async compact(signal?: AbortSignal): Promise<{ before: number; after: number } | undefined> {
		const old = this.#conversation.earlier(this.#busy);
		if (old.length === 0) return undefined;
		const before = this.tokens().total;
		const summary = await this.#io.summarize(old, signal);
		this.#conversation.compact(old.length, summary);
		this.session.markCompacted();
		const after = this.tokens().total;
		this.#emit({ type: "agent.compacted", before, after, entries: old.length });
		return { before, after };
	}

	/** Before every model call: compaction past the threshold, then each skill whose text it removed, again. */
	async #prepare(signal: AbortSignal): Promise<void> {
		const use = this.tokens();
		if (use.total > use.threshold) await this.compact(signal);
		if (!this.#conversation.redeliver) return;
		this.#conversation.redeliver = false;
		const present = this.#conversation.delivered();
		const names: string[] = [];
		for (const name of this.session.active) {
			if (present.has(name)) continue;
			const result = await this.session.activate(name, { invoker: "user", reason: "re-delivered after compaction" });
			if (!result.ok || result.cached) continue;
			this.#conversation.pushActivation(result);
			for (const skill of [...result.dependencies, result]) present.add(skill.name);
			names.push(name);
		}
		if (names.length > 0) this.#emit({ type: "agent.skill.redelivered", names });
	}

	/** Activates a skill for the user (`/load`); its content joins the conversation as a load_skill result. */
	async load(name: string): Promise<Activation | ActivationRefusal> {
		const result = await this.session.activate(name, { invoker: "user", reason: "loaded by the user" });
		if (result.ok && !result.cached) this.#conversation.pushActivation(result);
		return result;
	}

	/** Deactivates a skill (`/unload`): it no longer counts against the limits or widens permissions. */
	unload(name: string): boolean {
		return this.session.deactivate(name);
	}

	/** Every selected skill, with whether the model can see it and whether it is active. */
	skills(): { name: string; description: string; listed: boolean; active: boolean }[] {
		const active = new Set(this.session.active);
		// Listed: what the model sees by name, with a description or on the line of names.
		const { kept, named } = this.#skillState().catalog.report;
		const listed = new Set([...kept, ...named]);
		return this.#skillState().index.selected.map((skill) => ({
			name: skill.name,
			description: skill.description,
			listed: listed.has(skill.name),
			active: active.has(skill.name),
		}));
	}

	/** The conversation, active skills and "always" grants, for `resume`. */
	save(): SavedConversation {
		return this.#conversation.save(this.session.active, [...this.#tools.grants]);
	}

	/** Restores a saved conversation into this (fresh) agent. */
	async restore(saved: SavedConversation): Promise<void> {
		this.#conversation.restore(saved);
		// Their text is in the restored messages already: activate without delivering anything again.
		for (const name of saved.active) await this.session.activate(name, { invoker: "user", reason: "resumed" });
		// A skill whose text the saved messages no longer hold (compacted away) is delivered again on the next turn.
		const present = this.#conversation.delivered();
		if (this.session.active.some((name) => !present.has(name))) {
			this.session.markCompacted();
			this.#conversation.redeliver = true;
		}
		// Saved grants are read back as exact calls: an edited file cannot turn one into a wildcard.
		for (const pattern of saved.grants) if (typeof pattern === "string") this.#tools.restoreGrant(pattern);
	}

	#skillState(): SkillState {
		if (!this.#state) throw new SkillsetError("internal", "the agent has not scanned yet");
		return this.#state;
	}

	#emit(event: AgentLoopEvent): void {
		const stamped = { ...event, time: new Date().toISOString(), session: this.session.id } as AgentEvent;
		for (const sink of this.#sinks) sink(stamped);
	}
}
