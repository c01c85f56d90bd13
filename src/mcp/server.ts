import { dirname } from "node:path";
import { McpServer, type Transport } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { DiscoveryReport, SkillIndex } from "../discovery/index.ts";
import { HeldRoots } from "../runtime/index.ts";
import { SkillsetError } from "../skill/index.ts";
import { planSnapshot, serveOptions, serveRules } from "./check.ts";
import { attachConnection, type Connection, type ServeSnapshot, snapshotKeys } from "./connection.ts";
import { type DirectAnswers, directAnswers } from "./direct.ts";
import { DigestCache } from "./entries.ts";
import type { McpLogLevel, SkillServerOptions } from "./options.ts";
import type { LeftOutSkill } from "./plan.ts";
import { cacheHintsFor, LIST_PARAMS, type PageSize, SkillEntries } from "./skills-list.ts";
import { SnapshotTools } from "./snapshot-tools.ts";
import { startSnapshots } from "./snapshots.ts";
import { createSkillSource, resourcesPage } from "./source.ts";

/**
 * A skills server: one catalog of skills, served to any number of MCP connections. Each connection gets its own
 * `McpServer` and its own session (activations, limits and dedupe are never shared between clients).
 */
export interface SkillServer {
	/** A new `McpServer` for one connection, ready to `connect` to any SDK transport. */
	createServer(): McpServer;
	/** Creates a server for one connection and connects it to `transport`. */
	connect(transport: Transport): Promise<McpServer>;
	/**
	 * The answers of `resources/read` and `skills/list` as every connection makes them, for `serveHttp`'s fast path.
	 * @internal
	 */
	readonly direct: DirectAnswers;
	/** The skills served now, and the selected skills left out with why. */
	readonly served: readonly { name: string; uri: string }[];
	readonly leftOut: readonly LeftOutSkill[];
	/** The last discovery report. */
	readonly report: DiscoveryReport | undefined;
	/** Digests held by the cache. */
	readonly cachedDigests: number;
	/** When the snapshot served now was made (milliseconds since the epoch). */
	readonly snapshotAt: number;
	/** How long the scan behind that snapshot took, in milliseconds, when known. */
	readonly scanMs: number | undefined;
	/** Calls `listener` after every rescan that changed what clients see; returns the unsubscribe function. */
	onChange(listener: (change: ServeChange) => void): () => void;
	/** Stops watching and closes every connection. */
	close(): Promise<void>;
}

/** What a rescan changed for clients: which lists, and the SKILL.md URIs of skills that changed or went away. */
export interface ServeChange {
	resources: boolean;
	tools: boolean;
	prompts: boolean;
	updated: string[];
}

/**
 * Creates a SEP-2640 skills server over the skills that discovery selects (or a ready `index`): resources at
 * `skill://<skill-path>/<file>`, `skills/list`, `skills/get`, directory reads, the skill tools, one prompt per
 * user-invocable skill, and the budgeted catalog as instructions. With `watch`, clients hear of every change.
 */
export async function createSkillServer(given: SkillServerOptions = {}): Promise<SkillServer> {
	const pageSize = given.pageSize ?? 100;
	// Zero would page forever and a fraction never lands on an entry; a huge size is fine (pages end at a file bound).
	if (!Number.isSafeInteger(pageSize) || pageSize < 1)
		throw new SkillsetError("invalid-option", `pageSize must be a positive integer (got ${pageSize})`);
	// skills/list: a page takes at most pageSize skills that must be built; by default, held ones fill it further (a warm
	// enumeration of 10,000 skills in a tenth of the round trips, each one most of a page's cost to both sides).
	const listSize: PageSize = { built: pageSize, skills: given.pageSize ?? HELD_PAGE_SKILLS };
	const options = serveOptions(given);
	const rules = serveRules(options);
	// Skill folders kept open between reads: a read then skips opening and resolving its folder (still proven per read).
	const roots = new HeldRoots();
	rules.roots = roots;
	const cache = new DigestCache();
	const entries = new SkillEntries(rules, cache);
	const connections = new Set<Connection>();
	const listeners = new Set<(change: ServeChange) => void>();
	const log = (level: McpLogLevel, text: string): void => {
		// Log lines carry names and paths from skills and errors from clients: no escape sequence reaches a terminal.
		const message = text.replace(/(?![\n\t])\p{Cc}/gu, "?");
		options.onLog?.(level, message);
		for (const connection of connections) connection.log(level, message);
	};
	let snapshotAt = Date.now();
	const snapshotOf = async (discovered: SkillIndex, report: DiscoveryReport | undefined): Promise<ServeSnapshot> => {
		snapshotAt = Date.now();
		const { plan, index, instructions, catalog } = await planSnapshot(discovered, rules, options);
		const keys = snapshotKeys(index, plan, catalog);
		return { index, report, plan, instructions, keys, tools: new SnapshotTools(index, catalog) };
	};

	const snapshots = await startSnapshots(options, {
		make: snapshotOf,
		swapped(previous, next) {
			const keep = insideServed(next);
			// A new snapshot may serve other folders: none held for the old one stays open.
			roots.clear();
			cache.prune(keep);
			rules.listings?.prune(keep);
			reportLeftOut(next.plan.leftOut, log);
			if (boundsKey(next.report) !== boundsKey(previous.report)) reportBounds(next.report, log);
			for (const connection of connections) connection.update(previous, next);
			const change = changeBetween(previous, next);
			for (const listener of listeners) listener(change);
		},
		error: (error) => log("error", `watch: ${String(error)}`),
	});
	const now = snapshots.current;
	reportLeftOut(now().plan.leftOut, log);
	reportBounds(now().report, log);

	const warn = (message: string) => log("warning", message);
	const state = () => ({ plan: now().plan, rules, cache, entries, pageSize, listSize, warn });
	const direct = directAnswers(state, options.info ?? DEFAULT_INFO);
	const extension = new SkillsExtension({
		source: createSkillSource(state),
		onWarning: (warning) => log("warning", `${warning.path}: ${warning.message}`),
	});
	const createServer = (): McpServer => {
		const mcp = new ConnectionServer(options.info ?? DEFAULT_INFO, {
			instructions: now().instructions,
			capabilities: {
				resources: { subscribe: true, listChanged: true },
				logging: {},
				...(options.tools === false ? {} : { tools: { listChanged: true } }),
			},
		});
		extension.attach(mcp);
		// skills/list answered here, page for page as the extension would: the entries are built by this server, so the
		// extension's second check of every entry on every page (a quarter of a 10,000-skill enumeration) is skipped.
		mcp.server.setRequestHandler("skills/list", { params: LIST_PARAMS }, async (params) => ({
			...(await entries.page(now().plan, params.cursor, listSize, warn)),
			...cacheHintsFor(mcp.server.getNegotiatedProtocolVersion()),
		}));
		// Paged like skills/list: the SDK's resources/list handler ignores the cursor and answers in one page.
		mcp.server.setRequestHandler("resources/list", (request) =>
			resourcesPage(now().plan, request.params?.cursor, pageSize),
		);
		const connection = attachConnection(mcp, now(), {
			tools: options.tools !== false,
			session: { ...options.session, ...(options.tokenizer ? { tokenizer: options.tokenizer } : {}) },
			integrity: options.integrity,
			maxResourceBytes: rules.maxBytes,
			allowHardLinks: rules.allowHardLinks,
			pageSize,
			onClose: () => connections.delete(connection),
		});
		connections.add(connection);
		mcp.onClosed = () => connections.delete(connection);
		return mcp;
	};
	return {
		createServer,
		direct,
		async connect(transport) {
			const mcp = createServer();
			await mcp.connect(transport);
			return mcp;
		},
		get served() {
			return now().plan.served.map((served) => ({ name: served.skill.name, uri: served.uri }));
		},
		get leftOut() {
			return now().plan.leftOut;
		},
		get report() {
			return now().report;
		},
		get cachedDigests() {
			return cache.size;
		},
		get snapshotAt() {
			return snapshotAt;
		},
		get scanMs() {
			return now().report?.timings.totalMs ?? options.scanMs;
		},
		onChange(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		async close() {
			snapshots.close();
			await Promise.all([...connections].map((connection) => connection.close()));
			// A read still on its way after this opens its folder for itself, as a read without held folders does.
			roots.close();
		},
	};
}

/** The name and version a server gives when the host names none. */
const DEFAULT_INFO = { name: "skillset", version: "0" };

/** Skills a default `skills/list` page holds when their entries are held unchanged (bounded by files as well). */
const HELD_PAGE_SKILLS = 1000;

/**
 * An `McpServer` that reports its closing whether or not it was ever connected: the SDK closes servers it made for
 * requests it then refuses (before any transport), and those fire no `onclose`, so they would stay listed forever.
 */
class ConnectionServer extends McpServer {
	onClosed: (() => void) | undefined;

	override async close(): Promise<void> {
		this.onClosed?.();
		await super.close();
	}
}

/** Whether a path lies in a folder the snapshot serves (for pruning caches after a rescan). */
function insideServed(snapshot: ServeSnapshot): (path: string) => boolean {
	const dirs = new Set(snapshot.plan.served.map((served) => served.dir));
	return (path) => {
		for (let dir = path; ; dir = dirname(dir)) {
			if (dirs.has(dir)) return true;
			if (dirname(dir) === dir) return false;
		}
	};
}

function changeBetween(previous: ServeSnapshot, next: ServeSnapshot): ServeChange {
	const before = previous.keys;
	const after = next.keys;
	return {
		resources: before.resources !== after.resources,
		tools: before.tools !== after.tools,
		prompts: before.prompts !== after.prompts,
		updated: [...before.skills.keys()].filter((uri) => before.skills.get(uri) !== after.skills.get(uri)),
	};
}

function reportLeftOut(leftOut: readonly LeftOutSkill[], log: (level: McpLogLevel, message: string) => void): void {
	if (leftOut.length === 0) return;
	const lines = leftOut.map((skill) => `  ${printable(skill.name)}: ${printable(skill.message)} (${skill.code})`);
	log("warning", `${leftOut.length} selected skill${leftOut.length === 1 ? "" : "s"} not served:\n${lines.join("\n")}`);
}

/** The roots a walk bound cut short, as a comparable string. */
function boundsKey(report: DiscoveryReport | undefined): string {
	const cut = (report?.roots ?? []).filter((root) => Object.values(root.bounds).some(Boolean));
	return JSON.stringify(cut.map((root) => [root.path, root.bounds]));
}

/** Says which roots a walk bound cut short: skills past a bound are neither served nor listed as left out. */
function reportBounds(report: DiscoveryReport | undefined, log: (level: McpLogLevel, message: string) => void): void {
	for (const root of report?.roots ?? []) {
		const hit = Object.entries(root.bounds).filter(([, cut]) => cut);
		if (hit.length === 0) continue;
		const bounds = hit.map(([bound]) => (bound === "dirs" ? "folders" : bound)).join(", ");
		log(
			"warning",
			`Incomplete: the walk of ${printable(root.path)} stopped at its ${bounds} bound; skills past it are not served (raise "limits" in skillset.config.json, or name the folder with --root)`,
		);
	}
}

/** A name or path as one log line: control characters (a newline in a folder name) cannot forge more lines. */
function printable(text: string): string {
	return text.replace(/\p{Cc}/gu, "?");
}
