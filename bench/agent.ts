// Per-turn overhead of the agent harness, without the model: rescan, prompt assembly (catalog, AGENTS.md), trigger
// match, token counting and request building, with 1,000 skills and a 100-message conversation. The model is a
// client that answers at once; the naive baseline rebuilds everything each turn (discover, fit the catalog, count
// every message).
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCatalog, type DiscoverOptions, discover, loadDefaultTokenizer } from "skillset";
import { type ChatMessage, createAgent, type ModelClient, type SavedConversation } from "skillset/agent";
import { settle } from "./discovery-fast.ts";
import { generateTree } from "./generate.ts";

const SKILLS = 1000;
const MESSAGES = 100;
const TURNS = 41;

/** One row of the bench table. */
export interface AgentBenchRow {
	skills: number;
	measure: string;
	medianMs: number;
	baselineMs?: number;
	note?: string;
}

/** Runs the agent bench and returns its rows (p50 per turn, and p90 in the note). */
export async function benchAgent(): Promise<AgentBenchRow[]> {
	const base = join(tmpdir(), "skillset-bench-agent");
	const tree = await generateTree(join(base, "skills"), SKILLS);
	// Folders changed moments ago are listed again at every rescan until the racy window has passed: a turn's overhead
	// is measured on skills written before the conversation, as they are in use.
	await settle();
	const workspace = join(base, "workspace");
	await mkdir(workspace, { recursive: true });
	await writeFile(join(workspace, "AGENTS.md"), "Run the tests before you finish.\n".repeat(40));
	const discoverOptions: DiscoverOptions = { home: base, defaultRoots: false, roots: [tree.root] };
	const instant: ModelClient = { complete: async () => ({ content: "ok", toolCalls: [] }) };
	const agent = await createAgent({
		model: instant,
		workspace,
		discover: discoverOptions,
		saveSkills: { root: join(base, "saved") },
		resume: conversation(MESSAGES),
		shell: async () => ({ exitCode: 0, signal: null, stdout: "", stderr: "", timedOut: false, truncated: false }),
	});
	const prompts = ["fill the pdf form", "summarise the csv data", "deploy the service", "write release notes"];
	const times: number[] = [];
	for (let i = 0; i < TURNS; i++) {
		const started = performance.now();
		await agent.send(prompts[i % prompts.length] as string);
		times.push(performance.now() - started);
	}
	const tokenizer = await loadDefaultTokenizer();
	const messages = conversation(MESSAGES).entries.map((entry) => entry.message);
	const naive: number[] = [];
	for (let i = 0; i < 5; i++) {
		const started = performance.now();
		const { index } = await discover({ ...discoverOptions, cwd: workspace });
		await buildCatalog(index, { tokenizer, budget: { contextWindow: 128_000 } });
		for (const message of messages) tokenizer.count(message.content);
		naive.push(performance.now() - started);
	}
	await rm(base, { recursive: true, force: true });
	return [
		{
			skills: SKILLS,
			measure: `agent turn overhead, ${MESSAGES}-message conversation, no model (p50)`,
			medianMs: percentile(times, 0.5),
			baselineMs: percentile(naive, 0.5),
			note: `p90 ${percentile(times, 0.9)} ms over ${TURNS} turns; target ≤ 20 ms p50`,
		},
	];
}

/** A saved conversation of `count` messages: user turns, tool calls with ordinary results, answers. */
function conversation(count: number): SavedConversation {
	const entries: SavedConversation["entries"] = [];
	let turn = 0;
	while (entries.length < count) {
		turn++;
		const id = `call_${turn}`;
		const messages: [ChatMessage, SavedConversation["entries"][number]["tool"]?][] = [
			[{ role: "user", content: `Step ${turn}: look at the files and fix what is broken in module ${turn}.` }],
			[
				{
					role: "assistant",
					content: "",
					toolCalls: [{ id, name: "read_file", arguments: `{"path":"src/m${turn}.ts"}` }],
				},
			],
			[
				{ role: "tool", toolCallId: id, content: `export const value${turn} = ${turn};\n`.repeat(40) },
				{ name: "read_file", args: `{"path":"src/m${turn}.ts"}`, protected: false },
			],
			[{ role: "assistant", content: `Module ${turn} looks fine; I changed nothing. `.repeat(5) }],
		];
		for (const [message, tool] of messages) entries.push({ message, turn, ...(tool ? { tool } : {}) });
	}
	return { version: 1, turn, entries: entries.slice(0, count), active: [], grants: [] };
}

function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 10) / 10;
}
