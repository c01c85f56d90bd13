import { spawn } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadTrustStore } from "skillset";
import { describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

// The built trust store module (`npm test` builds before the tests run), for real child processes.
const BUILT_STORE = join(import.meta.dirname, "..", "..", "dist", "policy", "trust.js");

function child(script: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
	return new Promise((done) => {
		const proc = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "ignore", "pipe"], timeout: 60_000 });
		let stderr = "";
		proc.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		proc.on("close", (code) => done({ code, stderr }));
	});
}

describe("trust store under concurrent writers", () => {
	it("two processes trusting different workspaces lose no update", async () => {
		const dir = await tempDir();
		const module = BUILT_STORE;
		const script = join(dir, "writer.mjs");
		await writeFile(
			script,
			`import { loadTrustStore } from ${JSON.stringify(module)};
const [file, tag, count, start] = process.argv.slice(2);
const store = await loadTrustStore(file);
// Both writers begin at the same moment, so their updates interleave.
await new Promise((done) => setTimeout(done, Math.max(0, Number(start) - Date.now())));
for (let i = 0; i < Number(count); i++) await store.trust("/ws/" + tag + "/" + i);
`,
		);
		const file = join(dir, "config", "trust.json");
		const count = 60;
		const start = String(Date.now() + 1500);
		const runs = await Promise.all(["a", "b"].map((tag) => child(script, [file, tag, String(count), start])));
		expect(runs).toEqual([
			{ code: 0, stderr: "" },
			{ code: 0, stderr: "" },
		]);
		const store = await loadTrustStore(file);
		expect(store.list()).toHaveLength(2 * count);
		expect(store.isTrusted("/ws/a/0") && store.isTrusted(`/ws/b/${count - 1}`)).toBe(true);
		expect((await readdir(join(dir, "config"))).sort()).toEqual(["trust.json"]);
	});

	it("keeps what another process wrote since this store was loaded", async () => {
		const file = join(await tempDir(), "trust.json");
		const first = await loadTrustStore(file);
		const second = await loadTrustStore(file);
		await first.trust("/one");
		await second.trust("/two");
		expect((await loadTrustStore(file)).list().map((e) => e.path)).toEqual(["/one", "/two"]);
		expect(second.isTrusted("/one")).toBe(true);
	});
});

describe("trust store values", () => {
	it.each<[string, unknown]>([
		["a string", "yes"],
		["a number", 1],
		["null", null],
		["an object", { value: true }],
	])("a `trusted` that is %s is untrusted", async (_, trusted) => {
		const dir = await tempDir();
		await writeTree(dir, {
			"trust.json": JSON.stringify({ version: 1, workspaces: { "/ws": { trusted, at: "2026-01-01" } } }),
		});
		const store = await loadTrustStore(join(dir, "trust.json"));
		expect(store.isTrusted("/ws/project")).toBe(false);
		expect(store.list()).toEqual([{ path: "/ws", trusted: false, at: "2026-01-01" }]);
	});

	it("an entry that is not an object untrusts its folder", async () => {
		const dir = await tempDir();
		await writeTree(dir, {
			"trust.json": JSON.stringify({ version: 1, workspaces: { "/ws": { trusted: true, at: "" }, "/ws/sub": "yes" } }),
		});
		const store = await loadTrustStore(join(dir, "trust.json"));
		expect([store.isTrusted("/ws/x"), store.isTrusted("/ws/sub/x")]).toEqual([true, false]);
	});
});
