import type { Refusal, TurnOptions, TurnResult } from "./agent-options.ts";
import { errorResult } from "./agent-tool.ts";
import type { Conversation } from "./conversation.ts";
import type { CallOutcome } from "./dispatch.ts";
import type { AgentLoopEvent } from "./events.ts";
import type { ModelToolCall } from "./model.ts";
import type { ModelIO } from "./model-io.ts";

/** Tool calls run from one model answer; the rest get an error result. */
const MAX_CALLS_PER_ANSWER = 32;

/** What one turn's loop works with. */
export interface TurnHost {
	conversation: Conversation;
	io: ModelIO;
	/** Most model calls in the turn. */
	maxModelCalls: number;
	/** Runs before every model call: compaction when the context is past its threshold, then any re-delivery. */
	prepare(signal: AbortSignal): Promise<void>;
	/** Runs one tool call behind the permission gate. */
	runCall(call: ModelToolCall, signal: AbortSignal, options: TurnOptions): Promise<CallOutcome>;
	emit(event: AgentLoopEvent): void;
}

/**
 * The turn loop: call the model, run the tool calls of its answer (at most {@link MAX_CALLS_PER_ANSWER}), and again,
 * until it answers without tool calls, fails, is cancelled, or has been called `maxModelCalls` times.
 */
export async function runTurn(host: TurnHost, options: TurnOptions): Promise<TurnResult> {
	const { conversation, io } = host;
	const signal = options.signal ?? new AbortController().signal;
	let toolCalls = 0;
	const refusals: Refusal[] = [];
	for (let round = 0; round < host.maxModelCalls; round++) {
		let response: Awaited<ReturnType<ModelIO["complete"]>>;
		try {
			await host.prepare(signal);
			const request = io.request();
			host.emit({
				type: "agent.model.request",
				turn: conversation.turn,
				messages: request.messages.length,
				tools: request.tools.length,
				tokens: io.tokens().total,
			});
			response = await io.complete(request, { signal, ...(options.onText ? { onText: options.onText } : {}) });
		} catch (error) {
			if (signal.aborted) return { status: "cancelled", text: "", toolCalls, refusals };
			const message = (error as Error).message ?? String(error);
			host.emit({ type: "agent.model.failed", turn: conversation.turn, error: message });
			return { status: "failed", text: "", toolCalls, refusals, error: message, failure: "model" };
		}
		// The SDK ends a stream quietly when it is aborted: what came in is partial, so it is dropped.
		if (signal.aborted) return { status: "cancelled", text: "", toolCalls, refusals };
		conversation.pushAnswer(response);
		if (response.toolCalls.length === 0)
			return { status: refusals.length > 0 ? "refused" : "done", text: response.content, toolCalls, refusals };
		for (const [index, call] of response.toolCalls.entries()) {
			if (signal.aborted) {
				conversation.pushResult(call, errorResult("Cancelled by the user before it ran."), call.name);
				continue;
			}
			if (index >= MAX_CALLS_PER_ANSWER) {
				const content = `Not run: at most ${MAX_CALLS_PER_ANSWER} tool calls are run per answer.`;
				conversation.pushResult(call, errorResult(content), call.name);
				continue;
			}
			toolCalls++;
			const outcome = await host.runCall(call, signal, options);
			if (outcome.refusal) refusals.push(outcome.refusal);
			conversation.pushResult(call, outcome.result, outcome.tool, toolCalls);
		}
		if (signal.aborted) return { status: "cancelled", text: "", toolCalls, refusals };
	}
	const error = `stopped after ${host.maxModelCalls} model calls in one turn`;
	return { status: "failed", text: "", toolCalls, refusals, error, failure: "limit" };
}
