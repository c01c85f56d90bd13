import type { Tokenizer } from "../catalog/index.ts";
import type { TierTotals } from "../runtime/index.ts";
import type { AgentOptions, TokenUse } from "./agent-options.ts";
import type { AgentTool } from "./agent-tool.ts";
import { clipResult, countTokens, DEFAULT_KEEP_TURNS, type Entry, renderTranscript, viewMessages } from "./context.ts";
import type { Conversation } from "./conversation.ts";
import type { ChatMessage, ModelCallOptions, ModelRequest, ModelResponse, ModelTool } from "./model.ts";
import { BASE_INSTRUCTIONS, readAgentsMd, renderSystemPrompt } from "./prompt.ts";
import type { SkillState } from "./skill-state.ts";

const COMPACT_INSTRUCTIONS =
	"You write the summary that replaces the earlier part of a conversation between a user and an assistant that uses tools. Keep what is needed to continue: the user's goals and preferences, decisions, facts found, files changed, commands that worked or failed, and open tasks. Skill instructions are re-delivered separately; do not restate them. Be concise; use bullet points.";

/** What the model's view reads from the agent, fresh for every request. */
export interface ModelSources {
	workspace: string;
	/** The catalog state of the current index. */
	state(): SkillState;
	/** True when shell commands run in the OS sandbox. */
	sandboxed(): boolean;
	/** The tools the model can see (skill tools first, then the agent's own). */
	tools(): AgentTool[];
	/** The session's token totals per tier. */
	totals(): TierTotals;
}

/**
 * The agent's model I/O: what the model sees on each call (the system prompt, the conversation under the context
 * policy, the tool definitions), what that costs in tokens against the window, and the calls themselves.
 */
export class ModelIO {
	readonly #options: AgentOptions;
	readonly #tokenizer: Tokenizer;
	readonly #conversation: Conversation;
	readonly #sources: ModelSources;
	#toolsCache: { state: SkillState; tools: ModelTool[]; tokens: number } | undefined;
	#systemCache: { rest: string; tokens: number } | undefined;

	constructor(options: AgentOptions, tokenizer: Tokenizer, conversation: Conversation, sources: ModelSources) {
		this.#options = options;
		this.#tokenizer = tokenizer;
		this.#conversation = conversation;
		this.#sources = sources;
	}

	/** The model's context window in tokens. */
	get contextWindow(): number {
		return this.#options.contextWindow ?? 128_000;
	}

	/** The conversation as the model would see it now (old ordinary results as placeholders). */
	messages(): ChatMessage[] {
		const keepTurns = this.#options.keepTurns ?? DEFAULT_KEEP_TURNS;
		return viewMessages(this.#conversation.entries, this.#conversation.turn, keepTurns);
	}

	/** The system prompt for the current turn: instructions, notes, the skills section, the summary, AGENTS.md. */
	systemPrompt(): string {
		const notes: string[] = [];
		if (!this.#sources.sandboxed())
			notes.push("Shell commands run without the OS sandbox here: each one needs the user's approval.");
		const summary = this.#conversation.summary;
		if (summary) notes.push(`## Summary of the earlier conversation\n\n${summary}`);
		return renderSystemPrompt({
			instructions: this.#options.instructions ?? BASE_INSTRUCTIONS,
			notes,
			skills: this.#sources.state().section,
			agentsMd: readAgentsMd(this.#sources.workspace).text,
		});
	}

	/** The visible tools as the model sees them, and their tokens (measured once per catalog state). */
	tools(): { tools: ModelTool[]; tokens: number } {
		const state = this.#sources.state();
		if (this.#toolsCache?.state !== state) {
			const tools = this.#sources.tools().map((tool) => ({
				name: tool.name,
				description: tool.description,
				parameters: tool.inputSchema,
			}));
			this.#toolsCache = { state, tools, tokens: this.#tokenizer.count(JSON.stringify(tools)) };
		}
		return this.#toolsCache;
	}

	/** Tokens in use now: system prompt, conversation and tool definitions, against the window. */
	tokens(): TokenUse {
		const state = this.#sources.state();
		const rest = this.systemPrompt().replace(state.section, "");
		if (this.#systemCache?.rest !== rest) this.#systemCache = { rest, tokens: this.#tokenizer.count(rest) };
		const system = this.#systemCache.tokens + state.catalog.report.tokens;
		const { entries, turn } = this.#conversation;
		const keepTurns = this.#options.keepTurns ?? DEFAULT_KEEP_TURNS;
		const conversation = countTokens(entries, turn, keepTurns, this.#tokenizer);
		const tools = this.tools().tokens;
		return {
			system,
			conversation,
			tools,
			total: system + conversation + tools,
			contextWindow: this.contextWindow,
			threshold: Math.floor(this.contextWindow * (this.#options.compactAt ?? 0.8)),
			tiers: this.#sources.totals(),
		};
	}

	/** The request for the next model call: system prompt, the conversation as seen now, and the visible tools. */
	request(): ModelRequest {
		return {
			messages: [{ role: "system", content: this.systemPrompt() }, ...this.messages()],
			tools: this.tools().tools,
		};
	}

	/** One model call. */
	complete(request: ModelRequest, options: ModelCallOptions): Promise<ModelResponse> {
		return this.#options.model.complete(request, options);
	}

	/** Asks the model for the summary that replaces `old` (with the previous summary folded in); trimmed. */
	async summarize(old: readonly Entry[], signal?: AbortSignal): Promise<string> {
		const previous = this.#conversation.summary;
		const earlier = previous ? `Summary of what came before:\n${previous}\n\n` : "";
		const transcript = clipResult(`${earlier}${renderTranscript(old)}`, this.contextWindow * 2);
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
		return response.content.trim();
	}
}
