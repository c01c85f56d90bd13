import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// `npm test` builds before vitest runs, so `npm pack --dry-run` sees the dist/ a publish would ship.
const ROOT = join(import.meta.dirname, "..");
const INSTALLED_BUDGET_BYTES = 8 * 1024 * 1024;

interface PackFile {
	path: string;
	size: number;
}

function pack(): { files: PackFile[]; unpackedSize: number } {
	const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
	const [result] = JSON.parse(out) as [{ files: PackFile[]; unpackedSize: number }];
	return result;
}

function folderBytes(dir: string): number {
	return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
		const path = join(dir, entry.name);
		return sum + (entry.isDirectory() ? folderBytes(path) : statSync(path).size);
	}, 0);
}

/** Installed bytes of a runtime dependency and, recursively, of its own runtime dependencies. */
function dependencyBytes(name: string, seen = new Set<string>()): number {
	if (seen.has(name)) return 0;
	seen.add(name);
	const dir = join(ROOT, "node_modules", name);
	const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
		dependencies?: Record<string, string>;
	};
	return Object.keys(manifest.dependencies ?? {}).reduce(
		(sum, dep) => sum + dependencyBytes(dep, seen),
		folderBytes(dir),
	);
}

describe("the published package", () => {
	const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;
	const { files, unpackedSize } = pack();
	const paths = files.map((file) => file.path);

	it("ships the build, its types, the vocabulary, README, LICENSE and NOTICE, and no source maps or sources", () => {
		for (const path of [
			"README.md",
			"LICENSE",
			"NOTICE",
			"package.json",
			"dist/index.js",
			"dist/index.d.ts",
			"dist/cli/bin.js",
			"dist/catalog/o200k_base.tiktoken",
		]) {
			expect(paths).toContain(path);
		}
		expect(paths.filter((path) => path.endsWith(".map") || path.startsWith("src/"))).toEqual([]);
		expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toContain("Apache License");
	});

	it("builds before packing and names its entry and types at the top level", () => {
		expect((manifest.scripts as Record<string, string>).prepack).toMatch(/npm run build/);
		expect(manifest.types).toBe("./dist/index.d.ts");
		expect(manifest.main).toBe("./dist/index.js");
	});

	it("installs within 8 MiB with its runtime dependencies", () => {
		const dependencies = Object.keys((manifest.dependencies ?? {}) as Record<string, string>);
		const total = unpackedSize + dependencies.reduce((sum, name) => sum + dependencyBytes(name), 0);
		expect(total).toBeLessThanOrEqual(INSTALLED_BUDGET_BYTES);
	});

	it("has a README whose links stay inside the package (its docs/ pages) or go to the web", () => {
		const readme = readFileSync(join(ROOT, "README.md"), "utf8");
		// Links outside inline code: `handlers["parse"](payload)` in a code span is not a link.
		const prose = readme.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
		const targets = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "");
		const local = targets.filter((target) => !/^(https?:|#)/.test(target)).map((target) => target.split("#")[0]);
		expect(local.length).toBeGreaterThan(0);
		for (const target of local) expect(paths, `README links to ${target}`).toContain(target);
		expect(readme).not.toMatch(/\.\.\/shared/);
	});
});
