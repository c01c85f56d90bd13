// The `tools/` stage: framework-neutral skill tools and thin adapters for the OpenAI, Anthropic and Vercel AI SDKs.
// Later stages import only from this file.

// BM25 lives in catalog/ (the budget ranks skills by a query); the tools stage re-exports it as before.
export type { SearchDocument, SearchHit } from "../catalog/index.ts";
export { Bm25Index, tokenize } from "../catalog/index.ts";
export type {
	AnthropicTool,
	JsonSchemaFactory,
	OpenAIChatTool,
	OpenAIResponsesTool,
	VercelAITool,
} from "./adapters.ts";
export {
	executeToolCall,
	toAnthropicToolResult,
	toAnthropicTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
	toOpenAIToolMessage,
	toVercelAITools,
} from "./adapters.ts";
export type { JsonSchema } from "./schema.ts";
export { validateInput } from "./schema.ts";
export { createSkillTools } from "./skill-tools.ts";
export type { SkillTool, SkillToolName, SkillToolsOptions, ToolResult } from "./tool.ts";
