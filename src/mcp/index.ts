// The MCP stage: a SEP-2640 skills server on the official MCP SDK. It is reached only through the
// `skillset/mcp` subpath, so `import { discover } from "skillset"` never loads the SDK.

export type { McpOriginOptions, McpServerConfig } from "../sources/mcp-origin.ts";
export { createMcpOrigin } from "../sources/mcp-origin.ts";
export { checkServe, type ServeCheck } from "./check.ts";
export type { McpCode, McpCodeInfo } from "./codes.ts";
export { MCP_CODES } from "./codes.ts";
export type { JsonValue } from "./frontmatter-rules.ts";
export type { DrainResult, HttpRequestLog, HttpServeOptions, HttpServing } from "./http.ts";
export { isLoopback, serveHttp } from "./http.ts";
export { defaultInstanceId, INSTANCE_ID_PATTERN, instanceIdProblem } from "./http-instance.ts";
export { formatRequestLog } from "./http-log.ts";
export type { McpLogLevel, SkillServerOptions } from "./options.ts";
export type { LeftOutSkill } from "./plan.ts";
export type { ServeChange, SkillServer } from "./server.ts";
export { createSkillServer } from "./server.ts";
export type { StdioEnd, StdioServeOptions } from "./stdio.ts";
export { STDIO_MAX_MESSAGE_BYTES, serveSkillsStdio } from "./stdio.ts";
