import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "..", "src");

/** Every package a source file reaches through its static imports, following relative imports. */
function packagesReached(entry: string): Set<string> {
	const seen = new Set<string>();
	const packages = new Set<string>();
	const visit = (file: string) => {
		if (seen.has(file)) return;
		seen.add(file);
		const text = readFileSync(file, "utf8");
		for (const match of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms)) {
			const specifier = match[1] as string;
			if (/^import\s+type\s/.test(match[0]) || /^export\s+type\s/.test(match[0])) continue;
			if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
			else packages.add(specifier);
		}
	};
	visit(entry);
	return packages;
}

describe("entry points", () => {
	it("the root import never loads the openai SDK; skillset/agent does", () => {
		expect([...packagesReached(join(SRC, "index.ts"))].filter((p) => p.startsWith("openai"))).toEqual([]);
		expect([...packagesReached(join(SRC, "agent", "index.ts"))]).toContain("openai");
	});
});
