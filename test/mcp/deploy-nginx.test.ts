// Three `skillset mcp --http` instances of the built CLI behind a real nginx, configured with the README's own
// "Deploying for a team" block (issue 24 §1). `npm run build` first; nginx is the Debian package (`.ci/run`).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Client, SdkHttpError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChild } from "../../bench/child.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import {
	connectClient,
	fetchText,
	freePort,
	type Instance,
	initializeBody,
	MCP_POST,
	startInstance,
} from "./deploy-helpers.ts";
import { RAW } from "./mcp-helpers.ts";

// Debian puts nginx in /usr/sbin, which a non-root PATH may lack.
const NGINX =
	[process.env.PATH ?? "", "/usr/sbin"]
		.join(":")
		.split(":")
		.filter(Boolean)
		.map((dir) => join(dir, "nginx"))
		.find((path) => existsSync(path)) ?? "nginx";
const HAVE_NGINX = spawnSync(NGINX, ["-v"], { stdio: "ignore" }).status === 0;
if (!HAVE_NGINX && process.env.CI !== "true")
	console.warn("deploy-nginx.test.ts: skipped, nginx is not installed (apt-get install nginx; CI installs it)");
// In CI a missing nginx is a failure, never a skip.
const run = HAVE_NGINX || process.env.CI === "true" ? describe : describe.skip;

const README = join(import.meta.dirname, "..", "..", "docs", "deploying.md");
const children: ChildProcess[] = [];
// nginx's master is asked to stop (SIGTERM): it takes its worker with it. A master killed outright leaves the worker
// running, orphaned, after the tests.
afterAll(async () => {
	await Promise.all(children.map((child) => stopChild(child)));
});

/** The nginx block the README gives, with `ports` in place of 8101-8103 and `listen` in place of 8080. */
async function readmeConfig(ports: number[], listen: number): Promise<string> {
	const text = await readFile(README, "utf8");
	const block = /<!-- deploy-nginx:start -->\n```nginx\n([\s\S]*?)```\n<!-- deploy-nginx:end -->/.exec(text)?.[1];
	if (!block) throw new Error("docs/deploying.md has no deploy-nginx block");
	let config = block.replace("listen 8080;", `listen 127.0.0.1:${listen};`);
	ports.forEach((port, i) => {
		config = config.replaceAll(`127.0.0.1:${8101 + i}`, `127.0.0.1:${port}`);
	});
	expect(config).not.toMatch(/810[1-3]|8080/);
	return config;
}

/** Starts nginx in the foreground with `http` inside a self-contained main config under `dir`; resolves once it answers. */
async function startNginx(dir: string, http: string, port: number): Promise<ChildProcess> {
	await mkdir(join(dir, "logs"), { recursive: true });
	// nginx's workers run as `nobody`: they must reach their temp folders.
	await chmod(dir, 0o755);
	const temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
		(name) => `${name}_temp_path ${join(dir, name)};`,
	);
	const conf = [
		`pid ${join(dir, "nginx.pid")};`,
		`error_log ${join(dir, "logs", "error.log")} warn;`,
		"worker_processes 1;",
		"events { worker_connections 1024; }",
		`http { access_log off; ${temps.join(" ")}`,
		http,
		"}",
	].join("\n");
	await writeFile(join(dir, "nginx.conf"), conf);
	const nginx = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: "ignore" });
	children.push(nginx);
	for (let i = 0; i < 400; i++) {
		const answered = await fetch(`http://127.0.0.1:${port}/mcp`, { signal: AbortSignal.timeout(2000) }).then(
			() => true,
			() => false,
		);
		if (answered) return nginx;
		if (nginx.exitCode !== null) break;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	throw new Error(`nginx did not start: ${await readFile(join(dir, "logs", "error.log"), "utf8").catch(() => "")}`);
}

/** The JSON request lines an instance wrote. */
function requestLines(instance: Instance): { method: string; status: number; session?: string }[] {
	return instance
		.stderr()
		.split("\n")
		.filter((line) => line.includes('"event":"request"'))
		.map((line) => JSON.parse(line) as { method: string; status: number; session?: string });
}

run("three instances behind nginx (README config)", () => {
	let cwd: string;
	let instances: Instance[];
	let front: string;
	let ports: number[];
	let nginxPort: number;

	beforeAll(async () => {
		if (!HAVE_NGINX) throw new Error("nginx is not installed and CI=true: install it (apt-get install -y nginx)");
		cwd = await writeTree(await tempDir(), {
			"skills/pdf/SKILL.md": skillMd("pdf", "Work with PDF files."),
			"skills/pdf/scripts/fill.py": "print('fill')\n",
			"skills/docx/SKILL.md": skillMd("docx", "Edit Word documents."),
			"skills/team/xlsx/SKILL.md": skillMd("xlsx", "Edit spreadsheets."),
		});
		ports = [await freePort(), await freePort(), await freePort()];
		nginxPort = await freePort();
		instances = await Promise.all(
			ports.map((port, i) =>
				startInstance(
					cwd,
					[
						"--no-default-roots",
						"--root",
						"skills",
						"--instance-id",
						`s${i + 1}`,
						"--log-format",
						"json",
						"--drain-timeout",
						"60000",
					],
					{},
					port,
				),
			),
		);
		const dir = await tempDir();
		await startNginx(dir, await readmeConfig(ports, nginxPort), nginxPort);
		front = `http://127.0.0.1:${nginxPort}/mcp`;
	}, 120_000);

	it("forwards Host, which the instances check", async () => {
		const through = await fetchText(front, { method: "POST", headers: MCP_POST, body: initializeBody() });
		expect(through.status).toBe(200);
		expect(through.headers.get("mcp-session-id")).toMatch(/^s[123]\./);
		// The client's own Host reaches the instance: a rebinding attacker's name is refused behind nginx too.
		const rebound = await rawPost(front, { ...MCP_POST, host: "evil.example" }, initializeBody());
		expect(rebound.status).toBe(403);
		expect(rebound.text).toContain("evil.example");
		// Without the README's Host line, nginx sends the upstream's name, and the instances refuse every request.
		const dir = await tempDir();
		const port = await freePort();
		const config = (await readmeConfig(ports, port)).replace(/^\s*proxy_set_header Host \$http_host;\n/m, "");
		expect(config).not.toContain("$http_host");
		const bare = await startNginx(dir, config, port);
		const refused = await fetchText(`http://127.0.0.1:${port}/mcp`, {
			method: "POST",
			headers: MCP_POST,
			body: initializeBody(),
		});
		expect(refused.status).toBe(403);
		await stopChild(bare);
	});

	it("serves 300 requests in both protocols while one instance drains and another is killed", async () => {
		// What every instance answers, asked of each directly, in each protocol: one listing each, byte for byte.
		const listings = { modern: new Set<string>(), session: new Set<string>() };
		for (const instance of instances) {
			for (const protocol of ["modern", "session"] as const) {
				const { client } = await connectClient(
					`${instance.base}/mcp`,
					protocol === "modern" ? "2026-07-28" : undefined,
				);
				listings[protocol].add(JSON.stringify(await client.request({ method: "skills/list", params: {} }, RAW)));
				await client.close();
			}
		}
		expect(listings.modern.size).toBe(1);
		expect(listings.session.size).toBe(1);

		const stateless = await Promise.all([0, 1, 2].map(() => connectClient(front, "2026-07-28")));
		// Six sessions, opened through nginx: round robin spreads them over the three instances.
		const sessions: { client: Client; instance: string; failures: unknown[]; reconnected: number }[] = [];
		for (let i = 0; i < 6; i++) {
			const { client, transport } = await connectClient(front);
			sessions.push({
				client,
				instance: (transport.sessionId ?? "").split(".")[0] ?? "",
				failures: [],
				reconnected: 0,
			});
		}
		expect(new Set(sessions.map((session) => session.instance))).toEqual(new Set(["s1", "s2", "s3"]));

		const [first, second, third] = instances as [Instance, Instance, Instance];
		const statelessErrors: unknown[] = [];
		const answers = { modern: [] as string[], session: [] as string[] };
		let drainProbe = 0;
		// A request held in flight on s1 keeps it draining for the second half.
		const held = await holdRequest(first.base);

		const ask = async (client: Client, round: number, protocol: "modern" | "session"): Promise<void> => {
			if (round % 3 === 0)
				answers[protocol].push(JSON.stringify(await client.request({ method: "skills/list", params: {} }, RAW)));
			else if (round % 3 === 1) await client.readResource({ uri: "skill://pdf/scripts/fill.py" });
			else await client.listTools();
		};
		for (let round = 0; round < 50; round++) {
			if (round === 25) {
				first.child.kill("SIGTERM");
				second.child.kill("SIGKILL");
			}
			const work: Promise<void>[] = [];
			for (const { client } of stateless)
				work.push(ask(client, round, "modern").catch((error: unknown) => void statelessErrors.push(error)));
			for (let k = 0; k < 3; k++) {
				const session = sessions[(round * 3 + k) % 6];
				if (!session) continue;
				work.push(
					ask(session.client, round, "session").catch(async (error: unknown) => {
						session.failures.push(error);
						// The clear error: 404, so the client initializes again, through nginx, on an instance that lives.
						await session.client.close();
						const again = await connectClient(front);
						session.client = again.client;
						session.reconnected++;
						await ask(session.client, round, "session");
					}),
				);
			}
			await Promise.all(work);
			if (round === 30) drainProbe = (await fetchText(`${first.base}/readyz`)).status;
		}

		expect(statelessErrors).toEqual([]);
		for (const session of sessions) {
			if (session.instance === "s3") expect(session.failures).toEqual([]);
			for (const failure of session.failures) {
				expect(failure).toBeInstanceOf(SdkHttpError);
				expect((failure as SdkHttpError).status).toBe(404);
				expect(String((failure as Error).message)).toContain("Session not found");
			}
		}
		// Every session of the two stopped instances was asked again after the stop, failed once, and came back.
		for (const session of sessions.filter((s) => s.instance !== "s3")) expect(session.reconnected).toBe(1);
		for (const protocol of ["modern", "session"] as const) {
			expect(answers[protocol].length).toBeGreaterThan(10);
			for (const answer of answers[protocol]) expect(answer).toBe([...listings[protocol]][0]);
		}

		// s1 drained: not ready, and nginx stopped sending it work after its first refusals.
		expect(drainProbe).toBe(503);
		const refusedWhileDraining = requestLines(first).filter((line) => line.status === 503).length;
		expect(refusedWhileDraining).toBeLessThan(25);
		expect(requestLines(third).length).toBeGreaterThan(100);
		held.finish();
		expect((await held.answered).status).toBe(200);
		expect(await first.exited).toBe(0);
		expect(await second.exited).toBe(null);
		for (const { client } of [...stateless, ...sessions]) await client.close();
	}, 300_000);
});

/** A POST through node:http, which sends the `Host` given (fetch sets its own). */
async function rawPost(
	url: string,
	headers: Record<string, string>,
	body: string,
): Promise<{ status: number; text: string }> {
	const { request } = await import("node:http");
	return new Promise((resolve, reject) => {
		const req = request(url, { method: "POST", headers, timeout: 20_000 }, (res) => {
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

/** A `ping` in a new session of the instance at `base`, its body sent in two parts: answered once `finish` is called. */
async function holdRequest(base: string) {
	const { request } = await import("node:http");
	const opened = await fetchText(`${base}/mcp`, { method: "POST", headers: MCP_POST, body: initializeBody() });
	const body = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
	const headers = {
		...MCP_POST,
		"mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
		"mcp-protocol-version": "2025-11-25",
		"content-length": String(Buffer.byteLength(body)),
	};
	let answer: (value: { status: number }) => void = () => undefined;
	const answered = new Promise<{ status: number }>((resolve) => {
		answer = resolve;
	});
	const req = request(`${base}/mcp`, { method: "POST", headers }, (res) => {
		res.resume();
		res.on("end", () => answer({ status: res.statusCode ?? 0 }));
	});
	req.on("error", () => answer({ status: -1 }));
	req.write(body.slice(0, 10));
	await new Promise((resolve) => setTimeout(resolve, 100));
	return { answered, finish: () => req.end(body.slice(10)) };
}
