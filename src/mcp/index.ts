// The `mcp/` stage: skillset and the Model Context Protocol. The SDK loads only through this entry
// (`skillset/mcp`), never from the root import.

export type { McpOriginOptions, McpServerConfig } from "./origin.ts";
export { createMcpOrigin } from "./origin.ts";
