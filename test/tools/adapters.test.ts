import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, jsonSchema, stepCountIs } from "ai";
import OpenAI from "openai";
import {
	createSession,
	createSkillTools,
	estimateTokenizer,
	executeToolCall,
	type SkillTool,
	toAnthropicToolResult,
	toAnthropicTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
	toOpenAIToolMessage,
	toVercelAITools,
} from "skillset";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chatCompletion, type FakeLlm, startFakeLlm } from "../helpers/fake-llm.ts";
import { indexOf, skillMd } from "../helpers/temp.ts";

let tools: SkillTool[];
let server: FakeLlm | undefined;
let index: Awaited<ReturnType<typeof indexOf>>["index"];

beforeAll(async () => {
	({ index } = await indexOf({
		"pdf-tools/SKILL.md": skillMd("pdf-tools", "Extracts text from PDF files."),
		"deploy/SKILL.md": skillMd("deploy", "Deploys the app."),
	}));
});

// Each test is its own conversation: a fresh session, so nothing is already loaded.
beforeEach(() => {
	tools = createSkillTools(createSession(index, { tokenizer: estimateTokenizer }));
});

afterEach(async () => {
	await server?.close();
	server = undefined;
});

const expectedParameters = (tool: SkillTool) => JSON.parse(JSON.stringify(tool.inputSchema));

describe("adapters, through the real SDKs", () => {
	it("OpenAI Chat Completions sends our tools exactly, and a tool message carries the result", async () => {
		server = await startFakeLlm([chatCompletion({ id: "call_1", name: "load_skill", arguments: '{"name":"deploy"}' })]);
		const client = new OpenAI({ apiKey: "test", baseURL: `${server.url}/v1`, maxRetries: 0 });
		const completion = await client.chat.completions.create({
			model: "gpt-test",
			messages: [{ role: "user", content: "ship it" }],
			tools: toOpenAIChatTools(tools),
		});
		const sent = server.requests[0]?.body.tools as { type: string; function: Record<string, unknown> }[];
		expect(sent).toEqual(
			tools.map((t) => ({
				type: "function",
				function: { name: t.name, description: t.description, parameters: expectedParameters(t) },
			})),
		);
		const call = completion.choices[0]?.message.tool_calls?.[0];
		if (call?.type !== "function") throw new Error("expected a function call");
		const result = await executeToolCall(tools, call.function.name, call.function.arguments);
		expect(toOpenAIToolMessage(call.id, result)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
		expect(result.content).toContain('<skill_content name="deploy">');
	});

	it("OpenAI Responses API sends our tools exactly", async () => {
		server = await startFakeLlm([
			{
				id: "resp_1",
				object: "response",
				created_at: 1,
				status: "completed",
				model: "gpt-test",
				output: [],
				parallel_tool_calls: true,
				tool_choice: "auto",
				tools: [],
			},
		]);
		const client = new OpenAI({ apiKey: "test", baseURL: `${server.url}/v1`, maxRetries: 0 });
		await client.responses.create({ model: "gpt-test", input: "ship it", tools: toOpenAIResponsesTools(tools) });
		expect(server.requests[0]?.path).toBe("/v1/responses");
		expect(server.requests[0]?.body.tools).toEqual(
			tools.map((t) => ({
				type: "function",
				name: t.name,
				description: t.description,
				parameters: expectedParameters(t),
				strict: false,
			})),
		);
	});

	it("Anthropic Messages sends our tools exactly, and a tool_result block carries the result", async () => {
		server = await startFakeLlm([
			{
				id: "msg_1",
				type: "message",
				role: "assistant",
				model: "claude-test",
				content: [{ type: "tool_use", id: "toolu_1", name: "load_skill", input: { name: "pdf-tools" } }],
				stop_reason: "tool_use",
				stop_sequence: null,
				usage: { input_tokens: 1, output_tokens: 1 },
			},
		]);
		const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
		const message = await client.messages.create({
			model: "claude-test",
			max_tokens: 100,
			messages: [{ role: "user", content: "read this PDF" }],
			tools: toAnthropicTools(tools),
		});
		expect(server.requests[0]?.path).toBe("/v1/messages");
		expect(server.requests[0]?.body.tools).toEqual(
			tools.map((t) => ({ name: t.name, description: t.description, input_schema: expectedParameters(t) })),
		);
		const use = message.content.find((block) => block.type === "tool_use");
		if (use?.type !== "tool_use") throw new Error("expected a tool_use block");
		const block = toAnthropicToolResult(use.id, await executeToolCall(tools, use.name, use.input));
		expect(block).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", is_error: false });
		expect(block.content).toContain('<skill_content name="pdf-tools">');
	});

	it("the Vercel AI SDK sends our tools, runs load_skill on a tool call, and returns its result to the model", async () => {
		server = await startFakeLlm([
			chatCompletion({ id: "call_9", name: "load_skill", arguments: '{"name":"pdf-tools"}' }),
			chatCompletion(),
		]);
		const openai = createOpenAI({ apiKey: "test", baseURL: `${server.url}/v1` });
		const result = await generateText({
			model: openai.chat("gpt-test"),
			prompt: "read this PDF",
			tools: toVercelAITools(tools, { jsonSchema }),
			stopWhen: stepCountIs(2),
		});
		const [first, second] = server.requests;
		const sent = first?.body.tools as {
			type: string;
			function: { name: string; description: string; parameters: unknown };
		}[];
		expect(sent.map((t) => [t.function.name, t.function.description])).toEqual(
			tools.map((t) => [t.name, t.description]),
		);
		expect(sent[0]?.function.parameters).toMatchObject(expectedParameters(tools[0] as SkillTool));
		const messages = second?.body.messages as { role: string; tool_call_id?: string; content: string }[];
		const toolMessage = messages.find((m) => m.role === "tool");
		expect(toolMessage?.tool_call_id).toBe("call_9");
		expect(toolMessage?.content).toContain('<skill_content name="pdf-tools">');
		expect(result.text).toBe("done");
	});
});
