import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAIClient } from "skillset/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { type ScriptedLlm, startScriptedLlm } from "../helpers/scripted-llm.ts";
import { agentFor, workspaceFixture } from "./fixture.ts";

// Issue 18: `--no-stream` against a never-ending response body grew past 3 GB, and every model call left an abort
// listener on the turn's signal (MaxListenersExceededWarning after 11 calls).

/** A server whose JSON answer never ends: it writes until the client goes away, counting what it sent. */
async function startEndlessServer() {
	const sent = { bytes: 0, requests: 0 };
	const server: Server = createServer((request, response) => {
		sent.requests++;
		request.resume();
		response.writeHead(200, { "content-type": "application/json" });
		response.write(
			'{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"',
		);
		const chunk = "a".repeat(64 * 1024);
		const pump = () => {
			while (!response.destroyed && sent.bytes < 512 * 1024 * 1024) {
				sent.bytes += chunk.length;
				if (!response.write(chunk)) return void response.once("drain", pump);
			}
			response.end();
		};
		response.on("close", () => response.destroy());
		pump();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		sent,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

let endless: Awaited<ReturnType<typeof startEndlessServer>>;
let llm: ScriptedLlm;
beforeAll(async () => {
	endless = await startEndlessServer();
	llm = await startScriptedLlm();
});
afterAll(async () => {
	await endless.close();
	await llm.close();
});

describe("a whole (not streamed) answer is capped like a streamed one", { timeout: 60_000 }, () => {
	it("fails past maxAnswerChars and stops reading", async () => {
		endless.sent.bytes = 0;
		const client = createOpenAIClient({
			model: "m",
			baseURL: endless.url,
			apiKey: "k",
			stream: false,
			maxAnswerChars: 1_000_000,
		});
		await expect(client.complete({ messages: [{ role: "user", content: "hi" }], tools: [] })).rejects.toThrow(
			"the model's answer passed 1000000 characters",
		);
		// The server stopped long before its 512 MiB: the client closed the connection.
		expect(endless.sent.bytes).toBeLessThan(64 * 1024 * 1024);
	});

	it("chat -p --no-stream ends with the 16 Mi-character cap and exit 1", async () => {
		endless.sent.bytes = 0;
		const fixture = await workspaceFixture();
		const run = await cli(["chat", "-p", "hi", "--no-stream", "--base-url", endless.url, "--model", "m"], {
			cwd: fixture.workspace,
			env: { HOME: fixture.home },
		});
		expect(run.exitCode).toBe(1);
		expect(run.stderr).toContain(`the model's answer passed ${16 * 1024 * 1024} characters`);
		expect(endless.sent.bytes).toBeLessThan(128 * 1024 * 1024);
	});
});

describe("model calls leave no listener behind", { timeout: 60_000 }, () => {
	it.each([true, false])("30 calls with one signal (stream: %s) leave the signal as they found it", async (stream) => {
		const warnings: Error[] = [];
		const onWarning = (warning: Error) => warnings.push(warning);
		process.on("warning", onWarning);
		try {
			const client = createOpenAIClient({ model: "m", baseURL: llm.url, apiKey: "k", stream });
			const controller = new AbortController();
			llm.script([]);
			for (let i = 0; i < 30; i++) {
				await client.complete(
					{ messages: [{ role: "user", content: "hi" }], tools: [] },
					{ signal: controller.signal },
				);
			}
			expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
			await new Promise((resolve) => setImmediate(resolve));
			expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
		} finally {
			process.off("warning", onWarning);
		}
	});

	it("a turn of 20 model calls leaves no listener on the turn's signal", async () => {
		const fixture = await workspaceFixture();
		const agent = await agentFor(llm.url, fixture);
		const list = { toolCalls: [{ name: "list_dir", arguments: {} }] };
		llm.script([...Array.from({ length: 19 }, () => list), { content: "done" }]);
		const controller = new AbortController();
		const result = await agent.send("look around a lot", { signal: controller.signal });
		expect(result).toMatchObject({ status: "done", toolCalls: 19 });
		expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
	});
});

describe("a streamed answer that stalls", { timeout: 30_000 }, () => {
	it("ends after the timeout with no data, instead of waiting forever", async () => {
		const server: Server = createServer((request, response) => {
			request.resume();
			response.writeHead(200, { "content-type": "text/event-stream" });
			response.write(
				`data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }] })}\n\n`,
			);
			// …and then nothing, with the connection open.
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		try {
			const client = createOpenAIClient({
				model: "m",
				baseURL: `http://127.0.0.1:${port}/v1`,
				apiKey: "k",
				timeoutMs: 1_500,
				maxRetries: 0,
			});
			await expect(client.complete({ messages: [{ role: "user", content: "hi" }], tools: [] })).rejects.toThrow(
				"the model sent nothing for 1500 ms",
			);
		} finally {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
