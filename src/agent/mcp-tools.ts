import type { ToolResult } from "../tools/index.ts";
import { type AgentTool, errorResult, textResult } from "./agent-tool.ts";
import type { AgentJsonSchema } from "./json-schema.ts";

/** An MCP server whose tools the agent offers as deferred tools: a command (stdio) or a Streamable HTTP URL. */
export interface McpServerSpec {
	/** Short name, used in tool names: `mcp__NAME__TOOL`. */
	name: string;
	command?: string;
	args?: readonly string[];
	url?: string;
	/** Extra environment for a stdio server (it gets the SDK's minimal default environment besides). */
	env?: Readonly<Record<string, string>>;
	cwd?: string;
}

/** Connected servers: their tools, what could not be connected, and how to close them all. */
export interface McpTools {
	tools: AgentTool[];
	problems: { server: string; message: string }[];
	/** Closes every connected server (and ends the processes of stdio servers). */
	close(): Promise<void>;
}

/** Per-request timeout for MCP calls, in ms. */
const MCP_TIMEOUT_MS = 60_000;
const MAX_TOOLS_PER_SERVER = 500;

/**
 * Connects to each server with the MCP client SDK (loaded only here) and turns its tools into deferred agent tools
 * named `mcp__server__tool`. Every call is `exec` risk (a server's annotations are hints, not guarantees), so it
 * goes through the permission gate like a shell command. A server that cannot be reached is a problem, not a crash.
 */
export async function connectMcpServers(specs: readonly McpServerSpec[]): Promise<McpTools> {
	const { Client } = await import("@modelcontextprotocol/client");
	const closers: (() => Promise<void>)[] = [];
	const tools: AgentTool[] = [];
	const problems: McpTools["problems"] = [];
	for (const spec of specs) {
		try {
			const client = new Client({ name: "skillset-chat", version: "1" });
			await client.connect(await transportFor(spec), { timeout: MCP_TIMEOUT_MS });
			closers.push(() => client.close());
			const listed = await listAll(client);
			for (const tool of listed.slice(0, MAX_TOOLS_PER_SERVER)) tools.push(toAgentTool(spec.name, tool, client));
		} catch (error) {
			problems.push({ server: spec.name, message: (error as Error).message ?? String(error) });
		}
	}
	return {
		tools,
		problems,
		close: async () => {
			await Promise.allSettled(closers.map((close) => close()));
		},
	};
}

type McpClient = InstanceType<typeof import("@modelcontextprotocol/client")["Client"]>;
type McpTool = Awaited<ReturnType<McpClient["listTools"]>>["tools"][number];

async function transportFor(spec: McpServerSpec) {
	if (spec.url) {
		const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
		return new StreamableHTTPClientTransport(new URL(spec.url));
	}
	if (!spec.command) throw new Error(`the MCP server ${spec.name} needs a command or a URL`);
	const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/client/stdio");
	return new StdioClientTransport({
		command: spec.command,
		args: [...(spec.args ?? [])],
		env: { ...getDefaultEnvironment(), ...spec.env },
		stderr: "ignore",
		...(spec.cwd ? { cwd: spec.cwd } : {}),
	});
}

async function listAll(client: McpClient): Promise<McpTool[]> {
	const tools: McpTool[] = [];
	let cursor: string | undefined;
	// Bounded: a server that pages forever cannot hold the agent up.
	for (let page = 0; page < 20; page++) {
		const result = await client.listTools(cursor ? { cursor } : {}, { timeout: MCP_TIMEOUT_MS });
		tools.push(...result.tools);
		cursor = result.nextCursor;
		if (!cursor || tools.length >= MAX_TOOLS_PER_SERVER) break;
	}
	return tools;
}

/** A tool name the model APIs accept: letters, digits, `_` and `-`, at most 64 characters. */
export function mcpToolName(server: string, tool: string): string {
	const clean = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, "_");
	return `mcp__${clean(server)}__${clean(tool)}`.slice(0, 64);
}

function toAgentTool(server: string, tool: McpTool, client: McpClient): AgentTool {
	const schema = tool.inputSchema as AgentJsonSchema | undefined;
	const description = (tool.description ?? tool.title ?? tool.name).replace(/\s+/g, " ").slice(0, 1024);
	return {
		name: mcpToolName(server, tool.name),
		description: `${description} (MCP server ${server})`,
		inputSchema: schema && schema.type === "object" ? schema : { type: "object" },
		spec: { risk: "exec" },
		deferred: true,
		async execute(input, { signal }): Promise<ToolResult> {
			const result = await client.callTool({ name: tool.name, arguments: input }, { signal, timeout: MCP_TIMEOUT_MS });
			const text = renderContent(result);
			return result.isError ? errorResult(text) : textResult(text);
		},
	};
}

function renderContent(result: { content?: unknown; structuredContent?: unknown }): string {
	const blocks = Array.isArray(result.content)
		? (result.content as { type?: string; text?: string; uri?: string }[])
		: [];
	const parts = blocks.map((block) => {
		if (block.type === "text") return String(block.text ?? "");
		if (block.type === "resource_link") return `[resource ${block.uri ?? ""}]`;
		return `[${block.type ?? "content"} omitted]`;
	});
	if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
	return parts.join("\n");
}
