// Stage-level access for tests that need to act between the walk and the read (the package entry hides both).
import { DEFAULT_WALK_LIMITS, type ListDir, walkRoot } from "../../src/discovery/index.ts";
import { loadCandidate } from "../../src/discovery/load.ts";

/** Walks `dir` as a workspace root (optionally listing folders with `listDir`); candidates load on demand. */
export async function walkRootForTest(dir: string, listDir?: ListDir) {
	const root = { path: dir, scope: "workspace", rank: 0, trusted: true, locked: false, source: "option" } as const;
	const walk = await walkRoot(root, {
		limits: DEFAULT_WALK_LIMITS,
		followSymlinks: true,
		allowSymlinkedSkillFile: false,
		...(listDir ? { listDir } : {}),
	});
	const candidates = walk.candidates.map((candidate) => ({
		candidate,
		load() {
			const loaded = loadCandidate(candidate);
			return { name: candidate.relDir, codes: loaded.diagnostics.map((d) => d.code) };
		},
	}));
	return { walk, candidates };
}
