import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { loadDefaultTokenizer } from "../catalog/index.ts";
import { createDiscovery, type DiscoverOptions } from "../discovery/index.ts";
import { realOrResolved, type SandboxAvailability } from "../policy/index.ts";
import { detectSandbox, runSandboxed } from "../sandbox/index.ts";
import { discoverOptionsFor } from "../settings/index.ts";
import { Agent, type ShellChoice } from "./agent.ts";
import type { AgentOptions } from "./agent-options.ts";
import { type EventLog, openEventLog } from "./event-log.ts";
import { connectMcpServers } from "./mcp-tools.ts";
import { runUnsandboxed } from "./shell-tool.ts";

/**
 * Creates an agent: discovers skills, opens a session, and returns the loop. Every user turn rescans (cheaply),
 * rebuilds the system prompt (instructions, the budgeted catalog, AGENTS.md), matches triggers, and runs the model
 * with the built-in, skill and host tools behind the permission gate, under the context policy.
 */
export async function createAgent(given: AgentOptions): Promise<Agent> {
	const options = withSettings(given);
	const workspace = realOrResolved(options.workspace ?? process.cwd());
	// Opened first and once, so that a bad path fails before anything starts and nothing can redirect it later.
	const eventLog = options.eventLog !== undefined ? openEventLog(options.eventLog) : undefined;
	try {
		return await assemble(options, workspace, eventLog);
	} catch (error) {
		eventLog?.close();
		throw error;
	}
}

async function assemble(options: AgentOptions, workspace: string, eventLog: EventLog | undefined): Promise<Agent> {
	const tokenizer = options.tokenizer ?? (await loadDefaultTokenizer());
	const saveRoot = saveRootFor(options, workspace);
	const discover: DiscoverOptions = { ...options.discover, cwd: options.discover?.cwd ?? workspace };
	if ((options.saveSkills ?? "workspace") === "workspace") discover.roots = [...(discover.roots ?? []), saveRoot];
	else discover.userRoots = [...(discover.userRoots ?? []), saveRoot];
	const discovery = createDiscovery(discover);
	const { index, report } = await discovery.scan();
	const shell = await shellFor(options);
	const roots = [...report.roots.map((root) => root.path), saveRoot];
	const mcp = options.mcp?.length ? await connectMcpServers(options.mcp) : undefined;
	const tools = [...(options.tools ?? []), ...(mcp?.tools ?? [])];
	const parts = { workspace, tokenizer, discovery, index, saveRoot, shell, roots, mcp, eventLog };
	const agent = new Agent({ ...options, tools }, parts);
	try {
		await agent.rescan();
		if (options.resume) await agent.restore(options.resume);
	} catch (error) {
		await agent.close();
		throw error;
	}
	return agent;
}

/** The options over the defaults of their resolved `settings` (the options win). */
function withSettings(options: AgentOptions): AgentOptions {
	const { settings } = options;
	if (!settings) return options;
	const { allow, deny } = settings.permissions;
	const ceiling = { ...(allow.length > 0 ? { tools: allow } : {}), ...options.ceiling };
	return {
		...options,
		workspace: options.workspace ?? settings.workspace,
		discover: discoverOptionsFor(settings, options.discover),
		...(Object.keys(ceiling).length > 0 ? { ceiling } : {}),
		...(deny.length > 0 || options.deny ? { deny: [...deny, ...(options.deny ?? [])] } : {}),
	};
}

/** The given executor, else the OS sandbox when there is one, else plain `sh -c` with the reason why. */
async function shellFor(options: AgentOptions): Promise<ShellChoice> {
	if (options.shell) {
		const sandbox: SandboxAvailability = options.sandboxed
			? { available: true, kind: "bwrap", path: "host" }
			: { available: false, reason: "the host's shell executor is not a sandbox" };
		return { execute: options.shell, sandbox };
	}
	const sandbox = await detectSandbox();
	return { execute: sandbox.available ? runSandboxed : runUnsandboxed, sandbox };
}

function saveRootFor(options: AgentOptions, workspace: string): string {
	const save = options.saveSkills ?? "workspace";
	if (save === "workspace") return join(workspace, ".agents", "skills");
	if (save === "user") return join(options.discover?.home ?? homedir(), ".agents", "skills");
	return resolve(workspace, save.root);
}
