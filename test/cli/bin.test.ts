import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
// The package's bin (CommonJS) and the ES entry kept for `node dist/cli/bin.js` run one bundle: both must behave.
describe.each(["bin.cjs", "bin.js"])("the built skillset binary %s (npm test builds it first)", (entry) => {
	const BIN = join(ROOT, "dist", "cli", entry);
	const run = (...args: string[]) =>
		spawnSync(process.execPath, [BIN, ...args], {
			cwd: ROOT,
			encoding: "utf8",
			env: { ...process.env, NO_COLOR: "1" },
		});

	it("exists", () => {
		expect(existsSync(BIN), "run `npm run build` first").toBe(true);
	});

	it("sets the exit status: 0 valid, 1 invalid, 2 usage", () => {
		expect(run("validate", "examples/skills/csv-profile").status).toBe(0);
		expect(run("validate", "examples/broken/duplicate-keys").status).toBe(1);
		const usage = run("validate");
		expect([usage.status, usage.stdout]).toEqual([2, ""]);
		expect(usage.stderr).toContain("Run 'skillset validate --help' for usage.");
	});

	it("writes the JSON result to stdout only", () => {
		const result = run("validate", "--json", "examples/skills/release-notes");
		expect(result.stderr).toBe("");
		expect(JSON.parse(result.stdout)[0].skill.name).toBe("release-notes");
	});
});

describe("the built binary without the optional MCP SDK", () => {
	it("says which package an MCP origin needs, and other commands and --index origins never load it", async () => {
		const { cp, mkdir, readdir, symlink } = await import("node:fs/promises");
		const { tempDir } = await import("../helpers/temp.ts");
		// A copy of the package whose node_modules has everything but @modelcontextprotocol.
		const copy = await tempDir();
		await cp(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
		await cp(join(ROOT, "package.json"), join(copy, "package.json"));
		await mkdir(join(copy, "node_modules"));
		for (const name of await readdir(join(ROOT, "node_modules"))) {
			if (name === "@modelcontextprotocol" || name.startsWith(".")) continue;
			await symlink(join(ROOT, "node_modules", name), join(copy, "node_modules", name));
		}
		const bin = (...args: string[]) =>
			spawnSync(process.execPath, [join(copy, "dist", "cli", "bin.cjs"), ...args], {
				cwd: copy,
				encoding: "utf8",
				env: { PATH: process.env.PATH, HOME: copy, SKILLSET_CACHE_DIR: join(copy, "cache"), NO_COLOR: "1" },
			});
		const mcp = bin("list", "--mcp", "acme=node server.mjs");
		expect(mcp.status).toBe(1);
		expect(mcp.stderr).toMatch(
			/'list' needs the optional package @modelcontextprotocol\/client@[\d.]+, which is not installed/,
		);
		// The index is missing (a failed origin, named on stderr): --allow-offline lets the command succeed without it.
		const index = bin("list", "--index", `acme=file://${join(copy, "none")}`, "--allow-offline");
		expect(index.stderr).not.toMatch(/optional package/);
		expect(index.status).toBe(0);
		expect(bin("list").status).toBe(0);
	});
});
