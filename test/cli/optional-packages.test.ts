import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp.ts";

// An install with only the runtime dependencies (`npm i skillset --omit=dev`, no optional peers): the built CLI
// in a folder whose node_modules holds yaml and yauzl and nothing else.
const ROOT = join(import.meta.dirname, "..", "..");

async function leanInstall(): Promise<string> {
	const dir = await tempDir();
	await cp(join(ROOT, "dist"), join(dir, "dist"), { recursive: true });
	await cp(join(ROOT, "package.json"), join(dir, "package.json"));
	await mkdir(join(dir, "node_modules"));
	for (const name of ["yaml", "yauzl", "pend"])
		await symlink(join(ROOT, "node_modules", name), join(dir, "node_modules", name));
	return dir;
}

// The package's own bin, as `npx skillset` runs it.
const bin = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin
	.skillset as string;

function run(dir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((done) => {
		execFile(process.execPath, [join(dir, bin), ...args], { cwd: dir, timeout: 20_000 }, (error, stdout, stderr) =>
			done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
		);
	});
}

describe("a lean install without the optional packages", () => {
	it("runs the core commands and names the package a command needs, with how to add it", async () => {
		const dir = await leanInstall();
		expect((await run(dir, ["--version"])).code).toBe(0);
		expect((await run(dir, ["scan", "--json"])).stdout).toContain('"roots"');
		const chat = await run(dir, ["chat", "-p", "hello"]);
		expect(chat.code).toBe(1);
		expect(chat.stderr).toMatch(/^skillset: 'chat' needs the optional package openai@6\.30\.1, which is not installed/);
		expect(chat.stderr).not.toContain("at ");
	});
});
