import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, writeTree } from "./helpers/temp.ts";

/** A stage folder and its public entries: the only files a later stage may import from it. */
interface Stage {
	name: string;
	/**
	 * Default `["index.ts"]`. A second entry is a module that must stay lazy for start-up; its header comment says
	 * why it is an entry of its own.
	 */
	entries?: readonly string[];
}

// Stages in pipeline order; a stage may import only from stages before it, and only through their entries.
const STAGES: readonly Stage[] = [
	{ name: "skill", entries: ["index.ts", "errors.ts"] },
	{ name: "discovery", entries: ["index.ts", "watch.ts", "derived-cache.ts"] },
	{ name: "catalog" },
	{ name: "runtime" },
	{ name: "shell" },
	{ name: "audit" },
	{ name: "policy" },
	{ name: "sandbox" },
	{ name: "settings" },
	{ name: "tools" },
	{ name: "authoring" },
	{ name: "sources", entries: ["index.ts", "mcp-origin.ts"] },
	{ name: "mcp", entries: ["index.ts", "check.ts"] },
	{ name: "agent" },
	{ name: "cli" },
];
const NAMES = STAGES.map((stage) => stage.name);
const SRC = join(import.meta.dirname, "..", "src");
/** Longest a file under src/ may be. */
const MAX_LINES = 400;
/** Files over the bound by design: a table that reads best whole (code, severity per profile, description, hint). */
const TABLES: ReadonlySet<string> = new Set(["skill/codes.ts"]);

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? sourceFiles(join(dir, entry.name))
			: entry.name.endsWith(".ts")
				? [join(dir, entry.name)]
				: [],
	);
}

/** Every relative module a file imports: static, dynamic, type-only and re-exports alike. */
function relativeImports(file: string): string[] {
	const text = readFileSync(file, "utf8");
	return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
}

/** `src/`-relative path of the module `specifier` names from `file`, with `/` separators. */
function target(file: string, specifier: string): string {
	return relative(SRC, resolve(dirname(file), specifier))
		.split(sep)
		.join("/");
}

/**
 * The import cycles among the `.ts` files under `root`: each group of files that reach one another through their
 * imports (a strongly connected component, found with Tarjan's algorithm), names sorted.
 */
function findCycles(root: string): string[][] {
	const name = (file: string) => relative(root, file).split(sep).join("/");
	const graph = new Map(
		sourceFiles(root).map((file) => [
			name(file),
			relativeImports(file).map((specifier) => name(resolve(dirname(file), specifier))),
		]),
	);
	const order = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const cycles: string[][] = [];
	const visit = (node: string): void => {
		order.set(node, order.size);
		low.set(node, order.get(node) ?? 0);
		stack.push(node);
		for (const next of graph.get(node) ?? []) {
			if (!graph.has(next)) continue;
			if (!order.has(next)) visit(next);
			if (stack.includes(next)) low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
		}
		if (low.get(node) !== order.get(node)) return;
		const group = stack.splice(stack.indexOf(node));
		if (group.length > 1 || graph.get(node)?.includes(node)) cycles.push(group.sort());
	};
	for (const node of graph.keys()) if (!order.has(node)) visit(node);
	return cycles.sort((x, y) => (x[0] ?? "").localeCompare(y[0] ?? ""));
}

describe("module layering", () => {
	const files = sourceFiles(SRC);

	it("knows every stage folder, and every declared entry exists", () => {
		const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory());
		for (const folder of folders) expect(NAMES).toContain(folder.name);
		for (const stage of STAGES)
			for (const entry of stage.entries ?? ["index.ts"])
				expect(files.map((file) => relative(SRC, file).split(sep).join("/"))).toContain(`${stage.name}/${entry}`);
	});

	it.each(
		STAGES.flatMap((stage) => (stage.entries ?? []).filter((e) => e !== "index.ts").map((e) => `${stage.name}/${e}`)),
	)("%s says at its top why it is an entry of its own", (entry) => {
		const head = readFileSync(join(SRC, entry), "utf8").split("\n\n")[0] ?? "";
		expect(head).toMatch(/^\/\/ A second public entry of the `\w+\/` stage/);
	});

	it.each(files.map((file) => [relative(SRC, file), file]))(
		"%s imports only earlier stages via their entries",
		(_name, file) => {
			const path = relative(SRC, file).split(sep);
			// Files at the top of src/ (the public entry) may use any stage.
			const rank = path.length === 1 ? STAGES.length : NAMES.indexOf(path[0] ?? "");
			for (const specifier of relativeImports(file)) {
				const [folder = "", ...rest] = target(file, specifier).split("/");
				if (folder === path[0] || rest.length === 0) continue;
				const stage = NAMES.indexOf(folder);
				expect(stage, `${specifier} is a later stage`).toBeLessThan(rank);
				const entries = STAGES[stage]?.entries ?? ["index.ts"];
				expect(entries, `${specifier} must go through one of the stage's entries`).toContain(rest.join("/"));
			}
		},
	);

	it("has no import cycle (type imports included)", () => {
		expect(findCycles(SRC)).toEqual([]);
	});

	it("finds a cycle that runs through a type-only import", async () => {
		const dir = await tempDir();
		await writeTree(dir, {
			"a.ts": 'import { b } from "./b.ts";\nexport const a = b;\n',
			"b.ts": 'import type { C } from "./c/c.ts";\nexport const b: C = 1;\n',
			"c/c.ts": 'import type { a } from "../a.ts";\nexport type C = typeof a | number;\n',
			"d.ts": 'import { a } from "./a.ts";\nexport const d = a;\n',
		});
		expect(findCycles(dir)).toEqual([["a.ts", "b.ts", "c/c.ts"]]);
		await writeTree(dir, { "c/c.ts": "export type C = number;\n", "e.ts": 'export * from "./e.ts";\n' });
		expect(findCycles(dir)).toEqual([["e.ts"]]);
		await writeTree(dir, { "e.ts": "export const e = 1;\n" });
		expect(findCycles(dir)).toEqual([]);
	});

	it("matches the module map in docs/architecture.md: every stage in order, and no stage using one the map leaves out", () => {
		const readme = readFileSync(join(SRC, "..", "docs", "architecture.md"), "utf8");
		const map = readme.slice(readme.indexOf("## Module map"));
		const rows = [...map.matchAll(/^\| `(\w+)\/` \| [^|]+ \| ([^|]+) \|$/gm)].map((m) => ({
			name: m[1] ?? "",
			listed: (m[2] ?? "").trim(),
		}));
		expect(rows.map((row) => row.name)).toEqual(NAMES);
		for (const { name, listed } of rows) {
			if (listed === "any stage above") continue;
			const declared = listed === "—" ? [] : listed.split(", ");
			const used = new Set(
				files
					.filter((file) => relative(SRC, file).split(sep)[0] === name)
					.flatMap((file) => relativeImports(file).map((specifier) => target(file, specifier).split("/")))
					.filter((parts) => parts.length > 1 && parts[0] !== name)
					.map((parts) => parts[0] ?? ""),
			);
			expect([...used].sort(), `docs/architecture.md's "depends on" for ${name}/`).toEqual([...declared].sort());
		}
	});

	it.each(files.map((file) => [relative(SRC, file).split(sep).join("/"), file]))(
		"%s is at most 400 lines",
		(name, file) => {
			const text = readFileSync(file, "utf8");
			// A file excepted as a table holds only data and types: no function, arrow or class.
			if (TABLES.has(name)) return expect(text).not.toMatch(/\bfunction\b|=>|\bclass\b/);
			const lines = text.split("\n").length - 1;
			expect(lines, `${name} has ${lines} lines; split it where its concerns part`).toBeLessThanOrEqual(MAX_LINES);
		},
	);
});
