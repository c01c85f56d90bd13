import type { StampedEvent } from "../runtime/index.ts";

/** Events of the agent loop, besides the session's own (activations, reads, permission decisions). */
export type AgentLoopEvent =
	| { type: "agent.turn.started"; turn: number }
	| { type: "agent.turn.ended"; turn: number; status: TurnStatus; toolCalls: number }
	| { type: "agent.model.request"; turn: number; messages: number; tools: number; tokens: number }
	| { type: "agent.model.failed"; turn: number; error: string }
	| { type: "agent.tool.called"; tool: string; ok: boolean; ms: number; bytes: number; clipped: boolean }
	| { type: "agent.skills.hinted"; names: string[] }
	| { type: "agent.skill.invoked"; name: string; ok: boolean }
	| { type: "agent.skill.redelivered"; names: string[] }
	| { type: "agent.skill.created"; name: string; dir: string }
	| { type: "agent.compacted"; before: number; after: number; entries: number }
	| { type: "agent.rescanned"; skills: number; changed: boolean }
	| {
			type: "permission.answered";
			tool: string;
			rule: string;
			answer: "once" | "always" | "deny";
			by: "user" | "yes-flag" | "no-terminal";
	  };

/** How a turn ended: `refused` when a call or an invocation was refused, `failed` when the model call failed. */
export type TurnStatus = "done" | "refused" | "failed" | "cancelled";

/** Every event the agent delivers: its own and the session's, stamped with time and session id. */
export type AgentEvent = StampedEvent | (AgentLoopEvent & { time: string; session: string });
