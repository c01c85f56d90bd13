// `skillset mcp --http` run as one instance of many (issue 24 §1), through the built CLI: instance ids in session
// ids, probes, metrics, JSON logs, the SIGTERM drain, and two instances that answer alike. `npm run build` first.
import { request } from "node:http";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { runBuilt } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { connectClient, fetchText, initializeBody, MCP_POST, startInstance } from "./deploy-helpers.ts";
import { RAW } from "./mcp-helpers.ts";

// Each test starts processes of the built CLI: generous bounds for a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const SECRET = "BODY-ONLY-3f9c1e";
const TOKEN = "tok-7a2b9d0e1f";
let cwd: string;
const ARGS = ["--no-default-roots", "--root", "skills"];

beforeAll(async () => {
	cwd = await writeTree(await tempDir(), {
		"skills/pdf/SKILL.md": `${skillMd("pdf", "Work with PDF files.")}\n${SECRET}\n`,
		"skills/pdf/scripts/fill.py": "print('fill')\n",
		"skills/pdf/reference/forms.md": "# Forms\n",
		"skills/docx/SKILL.md": skillMd("docx", "Edit Word documents."),
		"skills/xlsx/SKILL.md": skillMd("xlsx", "Edit spreadsheets."),
	});
});

/** Opens a 2025 session by hand: its id. */
async function openSession(base: string, headers: Record<string, string> = {}): Promise<string> {
	const opened = await fetchText(`${base}/mcp`, {
		method: "POST",
		headers: { ...MCP_POST, ...headers },
		body: initializeBody(),
	});
	expect(opened.status).toBe(200);
	return opened.headers.get("mcp-session-id") ?? "";
}

describe("instance ids", () => {
	it("prefixes every session id with --instance-id, and by default with the address and port", async () => {
		const named = await startInstance(cwd, [...ARGS, "--instance-id", "s1"]);
		const { client, transport } = await connectClient(`${named.base}/mcp`);
		expect(transport.sessionId).toMatch(/^s1\.[0-9a-f-]{36}$/);
		expect(await openSession(named.base)).toMatch(/^s1\./);
		await client.close();
		const plain = await startInstance(cwd, ARGS);
		expect(await openSession(plain.base)).toMatch(new RegExp(`^127-0-0-1-${plain.port}\\.[0-9a-f-]{36}$`));
		expect(plain.stderr()).toContain(`as instance 127-0-0-1-${plain.port}`);
		named.child.kill("SIGKILL");
		plain.child.kill("SIGKILL");
	});

	it("derives a default that differs per machine on a wildcard bind, and per port on one machine", async () => {
		const { defaultInstanceId, INSTANCE_ID_PATTERN } = await import("skillset/mcp");
		expect(defaultInstanceId("0.0.0.0", 8101, "build-box.example")).toBe("build-box-example-8101");
		expect(defaultInstanceId("::", 8101, "web-2")).toBe("web-2-8101");
		expect(defaultInstanceId("10.0.0.5", 8101, "ignored")).toBe("10-0-0-5-8101");
		expect(defaultInstanceId("[::1]", 8102)).toBe("1-8102");
		// A machine name of any length or alphabet still gives a routable id.
		for (const machine of ["", "ü".repeat(10), "x".repeat(200), "a.b.c"])
			expect(defaultInstanceId("0.0.0.0", 65535, machine)).toMatch(INSTANCE_ID_PATTERN);
	});

	it("refuses an id a load balancer could not route on, with a usage error naming the flag", async () => {
		for (const bad of ["a.b", "-lead", "x".repeat(64), "s1\u001b[2J"]) {
			const run = await runBuilt(["mcp", ...ARGS, "--http", "127.0.0.1:0", "--instance-id", bad], { cwd });
			expect(run.exitCode, bad).toBe(2);
			expect(run.stderr).toContain("--instance-id");
			expect(run.stderr).not.toContain("\u001b");
		}
		const run = await runBuilt(["mcp", ...ARGS, "--metrics"], { cwd });
		expect(run.exitCode).toBe(2);
		expect(run.stderr).toContain("need --http");
	});
});

/** A raw POST of `initialize` with `host` as its Host header (fetch sets its own): the status and body. */
function initializeAs(base: string, host: string): Promise<{ status: number; text: string }> {
	return new Promise((resolve, reject) => {
		const body = initializeBody();
		const req = request(`${base}/mcp`, { method: "POST", headers: { ...MCP_POST, host }, timeout: 20_000 }, (res) => {
			let text = "";
			res.on("data", (chunk: Buffer) => {
				text += chunk.toString();
			});
			res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
		});
		req.on("timeout", () => req.destroy(new Error("timed out")));
		req.on("error", reject);
		req.end(body);
	});
}

describe("--allow-host", () => {
	it("accepts the proxy's public name in Host on loopback, and still refuses any other", async () => {
		const served = await startInstance(cwd, [...ARGS, "--allow-host", "skills.example.com"]);
		expect((await initializeAs(served.base, "skills.example.com")).status).toBe(200);
		expect((await initializeAs(served.base, "skills.example.com:443")).status).toBe(200);
		expect((await initializeAs(served.base, "localhost")).status).toBe(200);
		// A rebinding attacker's name, and look-alikes of the allowed one, are refused.
		for (const host of ["evil.example", "skills.example.com.evil.example", "evil-skills.example.com"]) {
			const refused = await initializeAs(served.base, host);
			expect(refused.status, host).toBe(403);
			expect(refused.text).toContain("Invalid Host");
		}
		served.child.kill("SIGKILL");
	});

	it("refuses a value that is not a bare host name", async () => {
		for (const bad of ["http://skills.example.com", "skills.example.com:443", "skills.example.com/mcp", ""]) {
			const run = await runBuilt(["mcp", ...ARGS, "--http", "127.0.0.1:0", "--allow-host", bad], { cwd });
			expect(run.exitCode, bad).toBe(2);
			expect(run.stderr).toContain("--allow-host needs a host name");
		}
	});
});

describe("probes and metrics", () => {
	it("answers /healthz and /readyz without the token, with nothing of the skills", async () => {
		const served = await startInstance(cwd, [...ARGS, "--metrics"], { SKILLSET_MCP_TOKEN: TOKEN });
		for (const path of ["/healthz", "/readyz"]) {
			// An attacker's page (foreign Host and Origin) learns only that the instance is up.
			const probe = await fetchText(`${served.base}${path}`, { headers: { origin: "http://evil.example" } });
			expect(probe.status).toBe(200);
			expect(probe.text).toBe("ok\n");
		}
		expect(
			(await fetchText(`${served.base}/mcp`, { method: "POST", headers: MCP_POST, body: initializeBody() })).status,
		).toBe(401);
		expect((await fetchText(`${served.base}/metrics`)).status).toBe(401);
		const scrape = await fetchText(`${served.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
		expect(scrape.status).toBe(200);
		expect(scrape.text).not.toContain(TOKEN);
		served.child.kill("SIGKILL");
	});

	it("serves no /metrics unless --metrics", async () => {
		const served = await startInstance(cwd, ARGS);
		expect((await fetchText(`${served.base}/metrics`)).status).toBe(404);
		served.child.kill("SIGKILL");
	});

	it("counts requests by method and status, with latency, sessions, skills, snapshot age and scan time", async () => {
		const served = await startInstance(cwd, [...ARGS, "--metrics"]);
		const { client } = await connectClient(`${served.base}/mcp`);
		for (let i = 0; i < 3; i++) await client.request({ method: "skills/list", params: {} }, RAW);
		const gone = { ...MCP_POST, "mcp-session-id": "s9.0000", "mcp-protocol-version": "2025-11-25" };
		const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
		expect((await fetchText(`${served.base}/mcp`, { method: "POST", headers: gone, body: ping })).status).toBe(404);
		// A client-chosen method is counted as `other`: no label per string a client sends.
		const session = await openSession(served.base);
		const odd = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "x-flood-91827", params: {} });
		const headers = { ...MCP_POST, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
		await fetchText(`${served.base}/mcp`, { method: "POST", headers, body: odd });
		const text = (await fetchText(`${served.base}/metrics`)).text;
		const value = (series: string) =>
			Number(new RegExp(`^${series.replace(/[{}"+]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1]);
		expect(value('skillset_mcp_requests_total{method="skills/list",status="200"}')).toBe(3);
		expect(value('skillset_mcp_requests_total{method="ping",status="404"}')).toBe(1);
		expect(value('skillset_mcp_requests_total{method="other",status="200"}')).toBe(1);
		expect(text).not.toContain("x-flood");
		const counted = [...text.matchAll(/^skillset_mcp_requests_total\{.*\} (\d+)$/gm)].reduce(
			(sum, m) => sum + Number(m[1]),
			0,
		);
		expect(value("skillset_mcp_request_duration_seconds_count")).toBe(counted);
		expect(value('skillset_mcp_request_duration_seconds_bucket{le="+Inf"}')).toBe(counted);
		expect(value("skillset_mcp_sessions_active")).toBe(2);
		expect(value("skillset_mcp_skills_served")).toBe(3);
		expect(value("skillset_mcp_snapshot_age_seconds")).toBeGreaterThanOrEqual(0);
		expect(value("skillset_mcp_scan_duration_seconds")).toBeGreaterThan(0);
		expect(value("skillset_mcp_ready")).toBe(1);
		expect(text).toContain("# TYPE skillset_mcp_request_duration_seconds histogram");
		await client.close();
		served.child.kill("SIGKILL");
	});
});

describe("--log-format json", () => {
	it("writes only JSON lines, one per request, with method, skill, status, duration and session or client", async () => {
		const served = await startInstance(cwd, [...ARGS, "--instance-id", "s2", "--log-format", "json"], {
			SKILLSET_MCP_TOKEN: TOKEN,
		});
		const auth = { authorization: `Bearer ${TOKEN}` };
		const sessions = await connectClient(`${served.base}/mcp`, undefined, auth);
		const read = await sessions.client.readResource({ uri: "skill://pdf/SKILL.md" });
		expect(JSON.stringify(read)).toContain(SECRET);
		await sessions.client.callTool({ name: "load_skill", arguments: { name: "docx" } });
		const stateless = await connectClient(`${served.base}/mcp`, "2026-07-28", auth);
		await stateless.client.readResource({ uri: "skill://xlsx/SKILL.md" });
		await sessions.client.close();
		await stateless.client.close();
		served.child.kill("SIGTERM");
		expect(await served.exited).toBe(0);
		const lines = served.stderr().trimEnd().split("\n");
		const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
		for (const line of lines) {
			expect(line).not.toContain(TOKEN);
			expect(line).not.toContain(SECRET);
		}
		const requests = entries.filter((entry) => entry.event === "request");
		const pdf = requests.find((entry) => entry.method === "resources/read" && entry.skill === "pdf");
		expect(pdf).toMatchObject({ status: 200, instance: "s2" });
		expect(pdf?.session).toMatch(/^s2\./);
		expect(typeof pdf?.durationMs).toBe("number");
		expect(requests.find((entry) => entry.method === "tools/call")).toMatchObject({ skill: "docx", status: 200 });
		const xlsx = requests.find((entry) => entry.skill === "xlsx");
		expect(xlsx).toMatchObject({ method: "resources/read", status: 200, client: "127.0.0.1" });
		expect(xlsx?.session).toBeUndefined();
		expect(entries.filter((entry) => entry.event === "log").map((entry) => entry.message)).toContain(
			"SIGTERM: draining (up to 10000 ms)",
		);
	});
});

/** A POST whose body is sent in two parts: the first now, the rest when `finish` is called. */
function slowPost(base: string, session: string) {
	const body = JSON.stringify({
		jsonrpc: "2.0",
		id: 9,
		method: "resources/read",
		params: { uri: "skill://pdf/SKILL.md" },
	});
	const headers = {
		...MCP_POST,
		"mcp-session-id": session,
		"mcp-protocol-version": "2025-11-25",
		"content-length": String(Buffer.byteLength(body)),
	};
	let answer: (value: { status: number; text: string }) => void = () => undefined;
	const answered = new Promise<{ status: number; text: string }>((resolve) => {
		answer = resolve;
	});
	const req = request(`${base}/mcp`, { method: "POST", headers }, (res) => {
		let text = "";
		res.on("data", (chunk: Buffer) => {
			text += chunk.toString();
		});
		res.on("end", () => answer({ status: res.statusCode ?? 0, text }));
		res.on("error", () => answer({ status: -1, text }));
	});
	req.on("error", () => answer({ status: -1, text: "" }));
	// Resolves once the head and the first bytes are in the kernel's hands (not yet that the server has read them).
	const sent = new Promise<void>((resolve) => req.write(body.slice(0, 20), () => resolve()));
	return { answered, sent, finish: () => req.end(body.slice(20)) };
}

/**
 * Resolves once the server has surely read the slow request's head, however loaded the machine: a request sent after
 * those bytes reached the server's socket is answered only after them (one event loop, sockets polled together).
 */
async function accepted(base: string, slow: { sent: Promise<void> }): Promise<void> {
	await slow.sent;
	expect((await fetchText(`${base}/readyz`)).status).toBe(200);
}

/** Polls `/readyz` until it answers `status`. */
async function readyzBecomes(base: string, status: number): Promise<boolean> {
	for (let i = 0; i < 200; i++) {
		if ((await fetchText(`${base}/readyz`)).status === status) return true;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	return false;
}

describe("SIGTERM", () => {
	it("stops being ready, refuses new work, answers what it accepted, ends streams with a final event, exits 0", async () => {
		const served = await startInstance(cwd, [...ARGS, "--instance-id", "s3", "--drain-timeout", "20000"]);
		const session = await openSession(served.base);
		const headers = { ...MCP_POST, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
		await fetchText(`${served.base}/mcp`, {
			method: "POST",
			headers,
			body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
		});
		const stream = await fetch(`${served.base}/mcp`, {
			headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
			signal: AbortSignal.timeout(30_000),
		});
		expect(stream.status).toBe(200);
		const streamed = stream.text();
		const slow = slowPost(served.base, session);
		await accepted(served.base, slow);
		served.child.kill("SIGTERM");
		expect(await readyzBecomes(served.base, 503)).toBe(true);
		expect((await fetchText(`${served.base}/healthz`)).status).toBe(200);
		const refused = await fetchText(`${served.base}/mcp`, {
			method: "POST",
			headers: MCP_POST,
			body: initializeBody(),
		});
		expect(refused.status).toBe(503);
		expect(refused.headers.get("retry-after")).toBe("1");
		expect(refused.text).toContain("s3 is shutting down");
		slow.finish();
		const answer = await slow.answered;
		expect(answer.status).toBe(200);
		expect(answer.text).toContain(SECRET);
		expect(await streamed).toContain("s3 is shutting down: this stream ends here");
		expect(await served.exited).toBe(0);
	});

	it("cuts what is unanswered at the --drain-timeout deadline, says so, and still exits 0", async () => {
		const served = await startInstance(cwd, [...ARGS, "--drain-timeout", "300"]);
		const session = await openSession(served.base);
		const slow = slowPost(served.base, session);
		await accepted(served.base, slow);
		served.child.kill("SIGTERM");
		expect(await served.exited).toBe(0);
		expect((await slow.answered).status).toBe(-1);
		expect(served.stderr()).toContain("1 request(s) cut at the drain deadline");
	});
});

describe("two instances on one folder", () => {
	it("answer the same listings, URIs, digests, tools, prompts and instructions, byte for byte", async () => {
		const answers: string[] = [];
		for (const id of ["a1", "b2"]) {
			const served = await startInstance(cwd, [...ARGS, "--instance-id", id]);
			for (const protocol of [undefined, "2026-07-28"]) {
				const { client } = await connectClient(`${served.base}/mcp`, protocol);
				const seen = [
					client.getInstructions(),
					await client.request({ method: "skills/list", params: {} }, RAW),
					await client.listResources(),
					await client.listTools(),
					await client.listPrompts(),
					await client.readResource({ uri: "skill://pdf/reference/forms.md" }),
				];
				answers.push(`${protocol}:${JSON.stringify(seen)}`);
				await client.close();
			}
			served.child.kill("SIGKILL");
		}
		expect(answers[0]).toContain("sha256");
		expect(answers[2]).toBe(answers[0]);
		expect(answers[3]).toBe(answers[1]);
	});
});
