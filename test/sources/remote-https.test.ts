import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redirectRefusal } from "../../src/sources/fetch.ts";
import { skillMd, tempDir } from "../helpers/temp.ts";

// Issue 18: over https a 404 at the v0.2.0 path may fall back to the unverified v0.1.0 index, but only when the user
// says --allow-unverified. A real https peer on loopback, with a certificate the built CLI (a child process) is told
// to trust through NODE_EXTRA_CA_CERTS; nothing in this process trusts it.

const ROOT = join(import.meta.dirname, "..", "..");
const V1 = "/.well-known/skills/index.json";
let server: Server;
let base = "";
let ca = "";
const hits: string[] = [];

beforeAll(async () => {
	const dir = await tempDir();
	ca = join(dir, "cert.pem");
	execFileSync(
		"openssl",
		[
			"req",
			"-x509",
			"-newkey",
			"ec",
			"-pkeyopt",
			"ec_paramgen_curve:prime256v1",
			"-nodes",
			"-days",
			"1",
			"-subj",
			"/CN=127.0.0.1",
			"-addext",
			"subjectAltName=IP:127.0.0.1",
			"-keyout",
			join(dir, "key.pem"),
			"-out",
			ca,
		],
		{ stdio: "ignore" },
	);
	const files: Record<string, string> = {
		[V1]: JSON.stringify({ skills: [{ name: "old", description: "Old.", files: ["SKILL.md"] }] }),
		"/.well-known/skills/old/SKILL.md": skillMd("old"),
	};
	server = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(ca) }, (req, res) => {
		const path = new URL(req.url ?? "/", "https://x").pathname;
		hits.push(path);
		const body = files[path];
		if (body === undefined) return void res.writeHead(404).end();
		res.writeHead(200, { "content-type": "application/json" }).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
	server.closeAllConnections();
	return new Promise<void>((resolve) => server.close(() => resolve()));
});

/** `skillset add` through the built CLI, trusting the test's certificate. */
async function add(cwd: string, ...args: string[]): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		const child = execFile(
			process.execPath,
			[join(ROOT, "dist/cli/bin.cjs"), "add", ...args],
			{ cwd, env: { ...process.env, HOME: cwd, NODE_EXTRA_CA_CERTS: ca }, timeout: 30_000 },
			(error, stdout, stderr) => resolve({ code: child.exitCode ?? (error ? 1 : 0), output: stdout + stderr }),
		);
	});
}

describe("issue 18: the https fallback to a v0.1.0 index", () => {
	it("is refused without --allow-unverified, before the v0.1.0 index is asked for", async () => {
		const cwd = await tempDir();
		hits.length = 0;
		const run = await add(cwd, base, "--skill", "old");
		expect(run.code).toBe(1);
		expect(run.output).toMatch(/index\.unverified/);
		expect(hits).not.toContain(V1);
		expect(existsSync(join(cwd, ".agents", "skills", "old"))).toBe(false);
	}, 40_000);

	it("is taken with --allow-unverified, with a warning that nothing was verified", async () => {
		const cwd = await tempDir();
		const run = await add(cwd, base, "--skill", "old", "--allow-unverified");
		expect(run.output).toMatch(/no digests/);
		expect(run.code).toBe(0);
		const installed = readFileSync(join(cwd, ".agents", "skills", "old", "SKILL.md"), "utf8");
		expect(createHash("sha256").update(installed).digest("hex")).toBe(
			createHash("sha256").update(skillMd("old")).digest("hex"),
		);
	}, 40_000);
});

describe("redirectRefusal", () => {
	const named = new URL("https://skills.example.com/.well-known/agent-skills/index.json");
	it.each([
		["another host", "https://evil.example.net/index.json", /another host/],
		["a subdomain", "https://cdn.skills.example.com/index.json", /another host/],
		["another port", "https://skills.example.com:8443/index.json", /another host/],
		["https to http on the same host", "http://skills.example.com/index.json", /plain http/],
		["a file: URL", "file:///etc/passwd", /only http\(s\)/],
	])("refuses %s", (_what, to, message) => {
		expect(redirectRefusal(named, named, new URL(to))).toMatch(message);
	});

	it.each([
		["another path on the named host", named, "https://skills.example.com/v2/index.json"],
		[
			"http upgraded to https on the named host",
			new URL("http://skills.example.com/x.json"),
			"https://skills.example.com/x.json",
		],
	])("follows %s", (_what, from, to) => {
		expect(redirectRefusal(from, from, new URL(to))).toBeUndefined();
	});
});
