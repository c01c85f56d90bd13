// The `agent/` stage: `createAgent`, the agent loop with skills wired in end to end, and the OpenAI-compatible
// model client. Loaded only through the `skillset/agent` subpath, so the root import never loads the openai SDK.

export { Agent } from "./agent.ts";
export type {
	AgentOptions,
	Refusal,
	SavedConversation,
	TokenUse,
	TurnOptions,
	TurnResult,
} from "./agent-options.ts";
export type { AgentTool, ShellExecutor, ShellOptions, ShellResult, ToolContext } from "./agent-tool.ts";
export type { Entry } from "./context.ts";
export { clipResult, DEFAULT_KEEP_TURNS, DEFAULT_RESULT_LIMIT_CHARS, placeholderFor } from "./context.ts";
export { createAgent } from "./create-agent.ts";
export type { AgentEvent, AgentLoopEvent, TurnStatus } from "./events.ts";
export type { Confirm, PermissionAnswer, PermissionRequest } from "./gate.ts";
export type { AgentJsonSchema, JsonType } from "./json-schema.ts";
export { validateJson } from "./json-schema.ts";
export type { McpServerSpec, McpTools } from "./mcp-tools.ts";
export { connectMcpServers, mcpToolName } from "./mcp-tools.ts";
export type {
	ChatMessage,
	ModelCallOptions,
	ModelClient,
	ModelRequest,
	ModelResponse,
	ModelTool,
	ModelToolCall,
} from "./model.ts";
export type { OpenAIClientOptions } from "./openai-client.ts";
export { createOpenAIClient } from "./openai-client.ts";
export type { AgentsMd, AgentsMdFile } from "./prompt.ts";
export { BASE_INSTRUCTIONS, DEFAULT_AGENTS_MD_CHARS, readAgentsMd } from "./prompt.ts";
export { runUnsandboxed } from "./shell-tool.ts";
