// Issue 18: a client that sends a stdio message over the 10 MiB limit, or never stops writing one. The server
// (the built CLI) ends cleanly with its documented exit code 4 and says why, whether it watches or not; before, it
// exited with 13 (an unsettled await) or hung.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { BIN, waitFor } from "./mcp-helpers.ts";

const MIB = 1024 * 1024;
const INITIALIZE = `${JSON.stringify({
	jsonrpc: "2.0",
	id: 1,
	method: "initialize",
	params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "hostile", version: "1" } },
})}\n`;

let ws: string;

beforeAll(async () => {
	ws = await tempDir();
	await writeTree(join(ws, ".agents", "skills"), { "demo/SKILL.md": skillMd("demo") });
});

interface Served {
	child: ChildProcessWithoutNullStreams;
	stdout: () => string;
	stderr: () => string;
	exit: () => { code: number | null; signal: string | null } | undefined;
}

function serve(args: string[]): Served {
	const child = spawn(process.execPath, [BIN, "mcp", ...args], {
		cwd: ws,
		env: { PATH: process.env.PATH ?? "", HOME: ws, NO_COLOR: "1" },
	});
	let stdout = "";
	let stderr = "";
	let exit: { code: number | null; signal: string | null } | undefined;
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	child.once("exit", (code, signal) => {
		exit = { code, signal };
	});
	// The client's writes fail once the server has gone; that is the point of the test, not an error.
	child.stdin.on("error", () => undefined);
	return { child, stdout: () => stdout, stderr: () => stderr, exit: () => exit };
}

/** Waits (bounded) for the server to exit; a server that hangs is killed and reported as hung. */
async function ended(served: Served): Promise<{ code: number | null; signal: string | null } | "hung"> {
	if (await waitFor(() => served.exit() !== undefined, 20_000)) return served.exit() ?? "hung";
	served.child.kill("SIGKILL");
	return "hung";
}

describe("skillset mcp over stdio against an oversized message", () => {
	it.each([
		["watching", []],
		["not watching", ["--no-watch"]],
	])(
		"ends with exit 4 and a message after one line over 10 MiB (%s), the client still connected",
		async (_, args) => {
			const served = serve(args);
			served.child.stdin.write(INITIALIZE);
			expect(await waitFor(() => served.stdout().includes('"id":1'), 20_000)).toBe(true);
			served.child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"${"x".repeat(11 * MIB)}"}}\n`);
			const result = await ended(served);
			served.child.stdin.destroy();
			expect(result, served.stderr()).toEqual({ code: 4, signal: null });
			expect(served.stderr()).toMatch(/skillset mcp: error: .*over the 10 MiB limit/);
		},
		40_000,
	);

	it("ends with exit 4 while the client keeps writing one endless line", async () => {
		const served = serve([]);
		served.child.stdin.write(INITIALIZE);
		expect(await waitFor(() => served.stdout().includes('"id":1'), 20_000)).toBe(true);
		const chunk = Buffer.alloc(MIB, "y");
		let written = 0;
		// Writes until the server is gone, at most 64 MiB: a server that stops reading but lives on is a hang.
		const writer = (async () => {
			while (served.exit() === undefined && !served.child.stdin.destroyed && written < 64) {
				if (!served.child.stdin.write(chunk)) await new Promise((resolve) => setTimeout(resolve, 5));
				written++;
			}
		})();
		const result = await ended(served);
		await writer;
		served.child.stdin.destroy();
		expect(result, served.stderr()).toEqual({ code: 4, signal: null });
		expect(served.stderr()).toMatch(/over the 10 MiB limit/);
	}, 40_000);
});
