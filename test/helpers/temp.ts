import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";

// One hook for the whole test file, registered while the file is collected: a hook registered from inside a running
// test is never called, so folders made in tests used to stay behind in the temp folder.
const made: string[] = [];
// A server process a test spawned may still be writing its cache there as it exits: retry a folder that refills.
afterAll(async () => {
	const remove = (dir: string) => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
	await Promise.all(made.splice(0).map(remove));
});

/** A fresh temporary directory for the current test file, removed after all its tests. */
export async function tempDir(): Promise<string> {
	const dir = await mkdtemp(join(tmpdir(), "skillset-test-"));
	made.push(dir);
	return dir;
}

/** Writes `files` (relative path → text or bytes) under `root`, creating folders. Returns `root`. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<string> {
	for (const [path, content] of Object.entries(files)) {
		const target = join(root, path);
		await mkdir(dirname(target), { recursive: true });
		await writeFile(target, content);
	}
	return root;
}

/** The shared folder beside the checkout (specs, conformance cases, corpus). */
export const SHARED_DIR: string = join(import.meta.dirname, "..", "..", "..", "shared");

/** A minimal valid SKILL.md for `name`, with an optional description and extra frontmatter lines. */
export function skillMd(name: string, description = `Does ${name} things.`, extra = ""): string {
	return `---\nname: ${name}\ndescription: ${description}\n${extra ? `${extra}\n` : ""}---\n# ${name}\n\nSteps.\n`;
}

/** Writes skills under a fresh root and discovers them: the index, and the root. */
export async function indexOf(files: Record<string, string | Uint8Array>) {
	const { discover } = await import("skillset");
	const root = await writeTree(await tempDir(), files);
	const { index } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [root] });
	return { index, root };
}
