// The MCP SDK loads only on the MCP paths: the root entry and every other command never pay for it (issue 12).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { unbundled } from "../helpers/bundle.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const DIST = join(ROOT, "dist");
let dir: string;

beforeAll(async () => {
	dir = await tempDir();
	// A module hook that records every module URL the process resolves.
	writeFileSync(
		join(dir, "hooks.mjs"),
		`import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
	const result = await next(specifier, context);
	appendFileSync(process.env.MODULE_LOG, result.url + "\\n");
	return result;
}
`,
	);
	// The built CLI is CommonJS chunks and packages it requires, which the hook does not see: list the require cache.
	writeFileSync(
		join(dir, "require-log.cjs"),
		`const { appendFileSync } = require("node:fs");
const { pathToFileURL } = require("node:url");
process.on("exit", () => {
	for (const file of Object.keys(require.cache)) appendFileSync(process.env.MODULE_LOG, pathToFileURL(file).href + "\\n");
});
`,
	);
	writeFileSync(
		join(dir, "register.mjs"),
		`import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
	);
});

/** Runs node with the hook and returns every module URL it resolved (a chunk of the CLI's bundle as its modules). */
function modulesLoaded(name: string, args: string[]): string[] {
	const log = join(dir, `${name}.log`);
	writeFileSync(log, "");
	const preload = ["--import", join(dir, "register.mjs"), "--require", join(dir, "require-log.cjs")];
	const run = spawnSync(process.execPath, [...preload, ...args], {
		cwd: ROOT,
		encoding: "utf8",
		env: { ...process.env, MODULE_LOG: log, NO_COLOR: "1" },
	});
	expect(run.status, run.stderr).toBe(0);
	return unbundled(readFileSync(log, "utf8").split("\n").filter(Boolean));
}

describe("loading the MCP SDK", () => {
	it("never happens when the root entry is imported", () => {
		const script = `const { discover } = await import(${JSON.stringify(pathToFileURL(join(DIST, "index.js")).href)}); if (typeof discover !== "function") process.exit(1);`;
		const loaded = modulesLoaded("root", ["--input-type=module", "-e", script]);
		expect(loaded.some((url) => url.endsWith("/dist/index.js"))).toBe(true);
		expect(loaded.filter((url) => url.includes("@modelcontextprotocol"))).toEqual([]);
	});

	it("never happens for another command", () => {
		const loaded = modulesLoaded("validate", [join(DIST, "cli", "bin.js"), "validate", "examples/skills/csv-profile"]);
		expect(loaded.some((url) => url.endsWith("/commands/validate.js"))).toBe(true);
		expect(loaded.filter((url) => url.includes("@modelcontextprotocol"))).toEqual([]);
	});

	it("never happens for mcp --check, which plans as the server would without the protocol", () => {
		const args = ["mcp", "examples/skills", "--check", "--json", "--no-default-roots", "--root", "examples/skills"];
		const loaded = modulesLoaded("check", [join(DIST, "cli", "bin.js"), ...args]);
		expect(loaded.some((url) => url.endsWith("/dist/mcp/check.js"))).toBe(true);
		expect(loaded.filter((url) => url.includes("@modelcontextprotocol"))).toEqual([]);
	});

	it("happens for skillset/mcp (so the hook does see the SDK)", () => {
		const script = `await import(${JSON.stringify(pathToFileURL(join(DIST, "mcp", "index.js")).href)});`;
		const loaded = modulesLoaded("mcp", ["--input-type=module", "-e", script]);
		expect(loaded.some((url) => url.includes("@modelcontextprotocol/server"))).toBe(true);
	});
});
