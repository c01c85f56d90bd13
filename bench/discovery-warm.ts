// Warm runs (issue 23): with nothing changed since the last run, `list`, `scan --json` (to a file), `catalog` and
// `mcp` start-up (`mcp --check`: discover, plan, exit) read the persistent index instead of every SKILL.md. Each is
// measured against a Node process that walks the tree and only `lstat`s every folder and SKILL.md, interleaved in
// the same run.
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { settle } from "./discovery-fast.ts";
import { generateTree } from "./generate.ts";
import { BIN, type FastRow, interleaved, processContext, ratio, versus } from "./process.ts";

const RUNS = 5;
const LSTAT = fileURLToPath(new URL("./discovery-lstat.js", import.meta.url));

/** The warm rows for each size; the trees and the cache live under the system temp folder and are removed. */
export async function benchDiscoveryWarm(sizes: readonly number[] = [1000, 10_000]): Promise<FastRow[]> {
	const work = join(tmpdir(), `skillset-bench-warm-${process.pid}`);
	const home = join(work, "home");
	await mkdir(home, { recursive: true });
	const context = { ...(await processContext(work, home)), env: { SKILLSET_CACHE_DIR: join(work, "cache") } };
	const rows: FastRow[] = [];
	try {
		for (const count of sizes) {
			const root = join(work, `tree-${count}`);
			await generateTree(root, count);
			await settle();
			const roots = ["--no-default-roots", "--root", root];
			const commands = [
				[LSTAT, root],
				[BIN, "list", root, ...roots],
				[BIN, "scan", root, ...roots, "--json", "--exit-zero"],
				[BIN, "catalog", root, ...roots],
				[BIN, "mcp", root, ...roots, "--check", "--no-tools"],
			];
			interleaved(commands, 1, context); // writes the index, warms the page cache
			const [floor, list, scan, catalog, mcp] = interleaved(commands, RUNS, context);
			if (!floor || !list || !scan || !catalog || !mcp) continue;
			rows.push(
				versus(count, "warm `skillset list` vs lstat walk", list, floor, "≤ 1.3×"),
				versus(count, "warm `skillset scan --json` (to a file) vs lstat walk", scan, floor, "≤ 1.3×"),
				versus(count, "warm `skillset catalog` vs lstat walk", catalog, floor, "≤ 1.3×"),
				versus(count, "warm `skillset mcp` start-up (`--check`) vs lstat walk", mcp, floor, "≤ 1.3×"),
				// What the plan adds to the scan: its own lstat of every skill folder and subfolder (a folder unchanged
				// since the last run stands for its files, and the scan's stat for SKILL.md), the start-up cache and
				// the catalog.
				versus(count, "warm `skillset mcp` start-up (`--check`) vs warm `skillset list`", mcp, list, "—"),
				{
					skills: count,
					measure: "warm `skillset catalog`: peak RSS MiB vs the lstat walk's",
					medianMs: catalog.maxRssMiB,
					baselineMs: floor.maxRssMiB,
					note: ratio(catalog.maxRssMiB, floor.maxRssMiB),
				},
			);
			await rm(root, { recursive: true, force: true });
		}
		return rows;
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}
