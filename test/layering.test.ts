import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

// Stages in pipeline order; a stage may import only from stages before it, and only through their index.ts.
const STAGES = [
	"skill",
	"discovery",
	"catalog",
	"runtime",
	"policy",
	"settings",
	"authoring",
	"tools",
	"sources",
	"mcp",
	"agent",
	"cli",
];
const SRC = join(import.meta.dirname, "..", "src");
// Imported on their own, past their stage's index.ts: the one error class (checking an option must not load a whole
// stage at start-up), and the MCP origin (it needs only the client SDK; the stage's entry loads the server's too).
const DIRECT_ENTRIES: ReadonlySet<string> = new Set(["skill/errors.ts", "mcp/origin.ts"]);

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? sourceFiles(join(dir, entry.name))
			: entry.name.endsWith(".ts")
				? [join(dir, entry.name)]
				: [],
	);
}

function relativeImports(file: string): string[] {
	const text = readFileSync(file, "utf8");
	return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
}

describe("module layering", () => {
	const files = sourceFiles(SRC);

	it("knows every stage folder", () => {
		const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory());
		for (const folder of folders) expect(STAGES).toContain(folder.name);
	});

	it.each(files.map((file) => [relative(SRC, file), file]))(
		"%s imports only earlier stages via index.ts",
		(_name, file) => {
			const path = relative(SRC, file).split(sep);
			// Files at the top of src/ (the public entry) may use any stage.
			const rank = path.length === 1 ? STAGES.length : STAGES.indexOf(path[0] ?? "");
			for (const specifier of relativeImports(file)) {
				const target = relative(SRC, join(file, "..", specifier)).split(sep);
				if (target[0] === path[0] || target.length === 1) continue;
				expect(STAGES.indexOf(target[0] ?? ""), `${specifier} is a later stage`).toBeLessThan(rank);
				if (DIRECT_ENTRIES.has(target.join("/"))) continue;
				expect(target.slice(1), `${specifier} must go through the stage's index.ts`).toEqual(["index.ts"]);
			}
		},
	);
});
