import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CachedFile } from "../../src/discovery/cache.ts";
import type { DiscoveryDiagnostic } from "../../src/discovery/codes.ts";
import { savable } from "../../src/discovery/index-values.ts";
import type { DiscoveryRoot } from "../../src/discovery/roots.ts";
import type { RootWalk } from "../../src/discovery/walk.ts";
import { encodeResult, type FinishedScan } from "../../src/discovery/warm-result.ts";
import { tempDir } from "../helpers/temp.ts";

// A saved diagnostic must come back exactly as it went in (a warm run equals a cold one down to key order). One
// that would not (a field the saved row has no cell for, fields out of order, a line without a column, no hint)
// is never written: not as a file's own diagnostic in a root's index, not in a saved result. No diagnostic the
// code makes today is like that, so the rule is shown on the encoders themselves.

const FILE = "/skills/demo/SKILL.md";
const CANONICAL = {
	code: "path.not-found",
	severity: "error",
	message: "No such file.",
	file: FILE,
	line: 2,
	column: 1,
	field: "x",
	hint: "Remove it.",
} as DiscoveryDiagnostic;

const ODD: [string, DiscoveryDiagnostic][] = [
	["a field the saved row has no cell for", { ...CANONICAL, data: { x: 1 } } as DiscoveryDiagnostic],
	["its fields out of order", Object.fromEntries(Object.entries(CANONICAL).reverse()) as DiscoveryDiagnostic],
	["a line without a column", { ...CANONICAL, column: undefined } as DiscoveryDiagnostic],
	["no hint", { ...CANONICAL, hint: undefined } as DiscoveryDiagnostic],
];

function cachedFile(own: DiscoveryDiagnostic[]): CachedFile {
	const signature = { dev: 1, ino: 2, size: 100, mtimeMs: 1000, ctimeMs: 1000 };
	const properties = null;
	return { signature, dir: "/skills/demo", properties, own, bodyOffset: 10, bodyLine: 3, size: 100, racy: false };
}

/** A finished scan of one root that does not exist, with `diagnostic` on a file below it. */
async function scanWith(diagnostic: DiscoveryDiagnostic): Promise<FinishedScan> {
	const path = join(await tempDir(), "absent");
	const root = {
		path,
		scope: "workspace",
		rank: 0,
		trusted: true,
		locked: false,
		source: "flag",
	} as unknown as DiscoveryRoot;
	const counts = { dirs: 0, entries: 0 };
	const bounds = { depth: false, dirs: false, entries: false };
	const walk: RootWalk = { root, exists: false, candidates: [], rejected: [], diagnostics: [], counts, bounds };
	const d = { ...diagnostic, file: join(path, "demo", "SKILL.md") };
	return {
		roots: [{ root, walk, cache: undefined, indexFile: "" }],
		skills: [],
		rejected: [],
		diagnostics: [d],
		scanStart: 0,
	};
}

describe("a diagnostic that would not come back exactly", () => {
	it("keeps a read out of a root's index file", () => {
		expect(savable(FILE, cachedFile([CANONICAL]))).toBe(true);
		for (const [what, d] of ODD) expect(savable(FILE, cachedFile([d])), what).toBe(false);
	});

	it("keeps a whole result from being saved", async () => {
		expect(encodeResult("key", await scanWith(CANONICAL))).toBeTypeOf("string");
		for (const [what, d] of ODD) expect(encodeResult("key", await scanWith(d)), what).toBeUndefined();
	});
});
