import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedLlm, startScriptedLlm, toolResultsOf } from "../helpers/scripted-llm.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

const SERVER = join(import.meta.dirname, "fixtures", "mcp-server.mjs");

let llm: ScriptedLlm;
beforeAll(async () => {
	llm = await startScriptedLlm();
});
afterAll(() => llm.close());

describe("MCP servers (--mcp)", () => {
	it("offers their tools as deferred tools, checked against their schema and gated", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture, {
			mcp: [
				{ name: "units", command: process.execPath, args: [SERVER] },
				{ name: "gone", command: "/nonexistent/server" },
			],
			confirm: async () => "once",
		});
		try {
			expect(agent.mcpProblems.map((p) => p.server)).toEqual(["gone"]);
			llm.requests.length = 0;
			llm.script([
				{ toolCalls: [{ name: "tool_search", arguments: { query: "convert length feet" } }] },
				{
					toolCalls: [
						{ name: "call_deferred_tool", arguments: { name: "mcp__units__convert_length", arguments: { value: 2 } } },
					],
				},
				{
					toolCalls: [
						{
							name: "call_deferred_tool",
							arguments: { name: "mcp__units__convert_length", arguments: { value: 2, to: "ft" } },
						},
					],
				},
				{ toolCalls: [{ name: "call_deferred_tool", arguments: { name: "mcp__units__always_fails", arguments: {} } }] },
				{ content: "6.56 ft" },
			]);
			const result = await agent.send("how many feet is 2 m?");
			expect(result.status).toBe("done");
			const names = llm.requests[0]?.body.tools?.map((t) => t.function.name) ?? [];
			expect(names.some((n) => n.startsWith("mcp__"))).toBe(false);
			const results = toolResultsOf(llm.requests[4]);
			expect(results[0]).toContain(
				"- mcp__units__convert_length(value, to): Convert a length between metres and feet.",
			);
			expect(results[1]).toContain("arguments.to is required");
			expect(results[2]).toBe("6.56 ft");
			expect(results[3]).toBe("it broke");
		} finally {
			await agent.close();
		}
	});

	it("denies MCP calls without a terminal (they are exec risk)", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture, {
			mcp: [{ name: "units", command: process.execPath, args: [SERVER] }],
		});
		try {
			llm.requests.length = 0;
			llm.script([
				{
					toolCalls: [
						{
							name: "call_deferred_tool",
							arguments: { name: "mcp__units__convert_length", arguments: { value: 1, to: "m" } },
						},
					],
				},
				{ content: "no" },
			]);
			expect((await agent.send("convert")).status).toBe("refused");
			expect(toolResultsOf(llm.requests[1])[0]).toMatch(/rule needs-approval/);
		} finally {
			await agent.close();
		}
	});
});
