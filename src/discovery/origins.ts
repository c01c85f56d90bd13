import { join } from "node:path";
import { discoveryDiagnostic } from "./codes.ts";
import type { Candidate } from "./folder.ts";
import type { OriginLoad, OriginProvider } from "./origin-provider.ts";
import type { DiscoveryRoot } from "./roots.ts";
import type { RootWalk } from "./walk.ts";

/** Loads every origin at once; each becomes a root of scope `remote`, ranked after every folder root. */
export async function walkOrigins(providers: readonly OriginProvider[], firstRank: number): Promise<RootWalk[]> {
	const loads = await Promise.all(providers.map((provider) => loadSafely(provider)));
	return loads.map((load, i) => {
		const provider = providers[i] as OriginProvider;
		const root: DiscoveryRoot = {
			path: load.folder,
			scope: "remote",
			rank: firstRank + i,
			trusted: true,
			locked: false,
			source: "origin",
			origin: provider.origin,
		};
		const candidates: Candidate[] = load.skills.map((skill) => {
			const dir = join(load.folder, ...skill.dir.split("/"));
			const file = join(dir, "SKILL.md");
			// A frozen copy: the provider's records can change after this load without changing what was verified.
			const pins = skill.pins ? { pins: Object.freeze({ ...skill.pins }) } : {};
			return { root, dir, file, realFile: file, relDir: skill.dir, diagnostics: skill.diagnostics ?? [], ...pins };
		});
		const walk: RootWalk = {
			root,
			exists: true,
			candidates,
			rejected: [],
			diagnostics: load.diagnostics,
			counts: { dirs: 0, entries: 0 },
			bounds: { depth: false, dirs: false, entries: false },
		};
		return walk;
	});
}

async function loadSafely(provider: OriginProvider): Promise<OriginLoad> {
	try {
		return await provider.load();
	} catch (error) {
		const message = `${provider.origin} failed: ${(error as Error).message ?? String(error)}`;
		return { folder: "", skills: [], diagnostics: [discoveryDiagnostic("origin.failed", message, provider.origin)] };
	}
}
