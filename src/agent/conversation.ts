import type { Activation } from "../runtime/index.ts";
import { SkillsetError } from "../skill/index.ts";
import type { ToolResult } from "../tools/index.ts";
import type { SavedConversation } from "./agent-options.ts";
import { clipResult, type Entry } from "./context.ts";
import type { ModelResponse, ModelToolCall } from "./model.ts";

const REMINDER =
	"\n\n[skillset: this task has taken many tool calls. When it is done, if the procedure is likely to be needed again, you may save it as a skill with create_skill.]";

/** How tool results are kept: ordinary ones clipped to `resultLimit`, and the save-a-skill reminder's threshold. */
export interface ConversationLimits {
	resultLimit: number;
	reminderAfter: number;
}

/**
 * The conversation one agent holds, and its saved form: every message tagged with its user turn (tool results with
 * the tool, its arguments and the skills they delivered), the summary that replaced compacted turns, and the
 * synthetic `load_skill` calls that put user activations into it.
 */
export class Conversation {
	entries: Entry[] = [];
	/** The number of user turns so far. */
	turn = 0;
	/** The model's summary of what compaction replaced. */
	summary: string | undefined;
	/** Set when active skills' text may have left the conversation: they are delivered again before the next call. */
	redeliver = false;
	readonly #limits: ConversationLimits;
	#synthetic = 0;
	#reminded = false;

	constructor(limits: ConversationLimits) {
		this.#limits = limits;
	}

	/** Adds the user's message to the current turn. */
	pushUser(content: string): void {
		this.entries.push({ message: { role: "user", content }, turn: this.turn });
	}

	/** Adds the model's answer, with its tool calls. */
	pushAnswer(response: ModelResponse): void {
		this.entries.push({
			message: {
				role: "assistant",
				content: response.content,
				...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
			},
			turn: this.turn,
		});
	}

	/**
	 * Adds a tool result: ordinary results clipped, skill content whole. `count` is the tool calls run so far this
	 * turn; past the threshold the model is reminded, once, that it may save the procedure as a skill.
	 */
	pushResult(call: ModelToolCall, result: ToolResult, tool: string, count = 0): void {
		let content = result.protected ? result.content : clipResult(result.content, this.#limits.resultLimit);
		if (count >= this.#limits.reminderAfter && !this.#reminded) {
			this.#reminded = true;
			content += REMINDER;
		}
		const skills = tool === "load_skill" && result.protected ? deliveredSkills(result) : undefined;
		this.entries.push({
			message: { role: "tool", toolCallId: call.id, content },
			turn: this.turn,
			tool: { name: tool, args: call.arguments, protected: result.protected, ...(skills ? { skills } : {}) },
		});
	}

	/** Puts an activation into the conversation as a load_skill call and its (protected) result. */
	pushActivation(result: Activation): void {
		const id = `skillset_${++this.#synthetic}_${this.turn}`;
		const args = JSON.stringify({ name: result.name });
		this.entries.push({
			message: { role: "assistant", content: "", toolCalls: [{ id, name: "load_skill", arguments: args }] },
			turn: this.turn,
		});
		const skills = [...result.dependencies, result].filter((s) => !s.cached).map((s) => s.name);
		this.entries.push({
			message: { role: "tool", toolCallId: id, content: result.fullText },
			turn: this.turn,
			tool: { name: "load_skill", args, protected: true, skills },
		});
	}

	/** The skills whose full text the conversation holds now. */
	delivered(): Set<string> {
		return new Set(this.entries.flatMap((entry) => entry.tool?.skills ?? []));
	}

	/** What compaction may replace: the entries before the current turn while one runs (`running`), else all. */
	earlier(running: boolean): Entry[] {
		const start = running ? this.entries.findIndex((entry) => entry.turn === this.turn) : this.entries.length;
		return this.entries.slice(0, Math.max(0, start));
	}

	/** Replaces the first `count` entries with `summary` (an empty one keeps the last); skills are re-delivered. */
	compact(count: number, summary: string): void {
		this.summary = summary || this.summary;
		this.entries = this.entries.slice(count);
		this.redeliver = true;
	}

	/** The conversation with the session's active skills and the "always" grants, for `resume`. */
	save(active: string[], grants: string[]): SavedConversation {
		return {
			version: 1,
			turn: this.turn,
			...(this.summary ? { summary: this.summary } : {}),
			entries: this.entries.map(({ message, turn, tool }) => ({ message, turn, ...(tool ? { tool } : {}) })),
			active,
			grants,
		};
	}

	/** Takes the messages, turn and summary of a saved conversation (its skills and grants are the agent's part). */
	restore(saved: SavedConversation): void {
		if (saved.version !== 1 || !Array.isArray(saved.entries))
			throw new SkillsetError("invalid-argument", "not a saved skillset conversation (version 1)");
		this.entries = saved.entries.map((entry) => ({ ...entry }));
		this.turn = saved.turn;
		this.summary = saved.summary;
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
