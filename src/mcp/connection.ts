import {
	type CallToolResult,
	type GetPromptResult,
	type McpServer,
	ProtocolError,
	ProtocolErrorCode,
	type RegisteredTool,
} from "@modelcontextprotocol/server";
import type { Catalog } from "../catalog/index.ts";
import type { DiscoveryReport, IndexedSkill, SkillIndex } from "../discovery/index.ts";
import { createSession, type IntegrityOptions, type SessionOptions, type SkillSession } from "../runtime/index.ts";
import { createSkillTools, type SkillTool, type SkillToolName } from "../tools/index.ts";
import type { ServePlan } from "./plan.ts";
import type { SnapshotTools } from "./snapshot-tools.ts";
import { pageOf } from "./source.ts";

/** Everything a connection serves from one scan: swapped whole when the skills change. */
export interface ServeSnapshot {
	index: SkillIndex;
	report: DiscoveryReport | undefined;
	plan: ServePlan;
	instructions: string;
	keys: SnapshotKeys;
	/** The skill tools' definitions, made once for every connection to this snapshot. */
	tools: SnapshotTools;
}

/** What clients see of a snapshot, as comparable strings: a change in one means a list-changed notification. */
export interface SnapshotKeys {
	resources: string;
	tools: string;
	prompts: string;
	/** SKILL.md URI → the file's identity as discovery read it, for `resources/updated`. */
	skills: Map<string, string>;
}

/** One client's connection: its server, its own session, its subscriptions. */
export interface Connection {
	log(level: "info" | "warning" | "error", message: string): void;
	update(previous: ServeSnapshot, next: ServeSnapshot): void;
	close(): Promise<void>;
}

/** Options of a connection's session and tools. */
export interface ConnectionOptions {
	tools: boolean;
	session: Omit<SessionOptions, "integrity" | "maxResourceBytes" | "allowHardLinks">;
	integrity: IntegrityOptions | undefined;
	maxResourceBytes: number;
	allowHardLinks: boolean;
	/** Prompts per `prompts/list` page (the server's page size). */
	pageSize: number;
	onClose: () => void;
}

/** The keys of a snapshot. */
export function snapshotKeys(index: SkillIndex, plan: ServePlan, catalog: Catalog): SnapshotKeys {
	const skills = new Map(plan.served.map((served) => [served.uri, `${served.skill.mtimeMs}:${served.skill.size}`]));
	return {
		resources: JSON.stringify(plan.served.map((s) => [s.uri, s.frontmatter.name, s.frontmatter.description])),
		// The tools show the catalog's described names and counts of the rest, besides every skill they accept.
		tools: JSON.stringify([
			index.catalogSkills.map((skill) => skill.name),
			catalog.report.kept,
			catalog.report.named.length,
			catalog.report.omitted.length,
		]),
		prompts: JSON.stringify(promptSkills(index).map((skill) => [skill.name, skill.description])),
		skills,
	};
}

/** Skills offered as prompts: every usable skill the user may invoke. */
function promptSkills(index: SkillIndex): readonly IndexedSkill[] {
	return index.selected.filter((skill) => skill.properties.userInvocable !== false);
}

/**
 * Registers one connection's tools, prompts and subscription handlers on `mcp`. The tools run in a session of
 * this connection alone; a rescan gives the connection a session over the new index (activations start afresh)
 * and updates the tools by difference.
 */
export function attachConnection(mcp: McpServer, first: ServeSnapshot, options: ConnectionOptions): Connection {
	const sessionOptions: SessionOptions = {
		...options.session,
		...(options.integrity ? { integrity: options.integrity } : {}),
		maxResourceBytes: options.maxResourceBytes,
		allowHardLinks: options.allowHardLinks,
	};
	const subscriptions = new Set<string>();
	let current = first;
	// One session for the connection's life, made at its first tool call: a rescan moves it to the new index, so
	// what the client already loaded stays loaded (no second delivery, the same limits) instead of starting over.
	let session: SkillSession | undefined;
	// This connection's tools over the current snapshot, each made at its first call (a request that calls no tool,
	// as most 2026-07-28 requests, costs no session and no search index).
	let live = new Map<string, SkillTool>();
	const toolFor = (name: SkillToolName): SkillTool | undefined => {
		let tool = live.get(name);
		if (tool) return tool;
		session ??= createSession(current.index, sessionOptions);
		[tool] = createSkillTools(session, { include: [name] });
		if (tool) live.set(name, tool);
		return tool;
	};
	const registeredTools = new Map<string, { registered: RegisteredTool; key: string }>();

	// Tools change by difference (add, update, remove): one changed skill costs a notification or two. The
	// definitions come from the snapshot; the handlers find this connection's tool when they are called.
	const setTools = (snapshot: ServeSnapshot): void => {
		if (!options.tools) return;
		session?.useIndex(snapshot.index);
		live = new Map();
		const definitions = snapshot.tools.definitions;
		for (const [name, entry] of registeredTools) {
			if (definitions.some((tool) => tool.name === name)) continue;
			entry.registered.remove();
			registeredTools.delete(name);
		}
		for (const tool of definitions) {
			const entry = registeredTools.get(tool.name);
			if (entry?.key === tool.key) continue;
			if (entry) {
				entry.registered.update({ description: tool.description, paramsSchema: tool.inputSchema });
				entry.key = tool.key;
			} else {
				const config = { description: tool.description, inputSchema: tool.inputSchema };
				const registered = mcp.registerTool(tool.name, config, (args: unknown) => callTool(toolFor(tool.name), args));
				registeredTools.set(tool.name, { registered, key: tool.key });
			}
		}
	};
	setTools(first);
	// Prompts are answered from the current index (not registered one by one): a connection to 10,000 skills
	// costs nothing until the client lists them, and a change is one notification.
	mcp.server.registerCapabilities({ prompts: { listChanged: true } });
	// Paged like resources/list, so 10,000 skills do not arrive in one answer.
	mcp.server.setRequestHandler("prompts/list", (request) => {
		const page = pageOf(promptSkills(current.index), request.params?.cursor, options.pageSize);
		const prompts = page.items.map((skill) => ({ name: skill.name, description: skill.description }));
		return page.nextCursor === undefined ? { prompts } : { prompts, nextCursor: page.nextCursor };
	});
	// A prompt is the activation a user would get: the same verified session options as the tools and resources.
	mcp.server.setRequestHandler("prompts/get", (request) =>
		getPrompt(current.index, request.params.name, sessionOptions),
	);
	mcp.server.setRequestHandler("resources/subscribe", (request) => {
		// Updates go out for SKILL.md files, so those are what can be subscribed; the set stays bounded by the skills.
		if (!current.keys.skills.has(request.params.uri))
			throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Only a served skill's SKILL.md can be subscribed");
		subscriptions.add(request.params.uri);
		return {};
	});
	mcp.server.setRequestHandler("resources/unsubscribe", (request) => {
		subscriptions.delete(request.params.uri);
		return {};
	});
	mcp.server.onclose = options.onClose;

	return {
		log(level, message) {
			if (mcp.isConnected()) mcp.sendLoggingMessage({ level, logger: "skillset", data: message }).catch(clientLeft);
		},
		update(previous, next) {
			current = next;
			setTools(next);
			if (!mcp.isConnected()) return;
			if (previous.keys.prompts !== next.keys.prompts) mcp.sendPromptListChanged();
			if (previous.keys.resources !== next.keys.resources) mcp.sendResourceListChanged();
			for (const uri of subscriptions) {
				if (previous.keys.skills.get(uri) !== next.keys.skills.get(uri))
					mcp.server.sendResourceUpdated({ uri }).catch(clientLeft);
			}
		},
		close: () => mcp.close(),
	};
}

/** A notification to a client that has just disconnected fails; there is nobody left to tell. */
function clientLeft(): undefined {
	return undefined;
}

async function callTool(tool: SkillTool | undefined, args: unknown): Promise<CallToolResult> {
	if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "This tool is no longer offered");
	const result = await tool.execute(args);
	return { content: [{ type: "text", text: result.content }], isError: result.isError };
}

/**
 * A prompt's content: the skill's activation as a user would invoke it, from a fresh session every time, with the
 * connection's session options (verify mode, read cap, hard-link rule), so a prompt never serves what a tool refuses.
 */
async function getPrompt(index: SkillIndex, name: string, options: SessionOptions): Promise<GetPromptResult> {
	const skill = promptSkills(index).find((candidate) => candidate.name === name);
	if (!skill) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt is named '${name}'`);
	const activation = await createSession(index, options).activate(skill.qualifiedName, { invoker: "user" });
	if (!activation.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, activation.message);
	return {
		description: skill.description,
		messages: [{ role: "user", content: { type: "text", text: activation.fullText } }],
	};
}
