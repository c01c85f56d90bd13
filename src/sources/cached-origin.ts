import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { DiscoveryDiagnostic, OriginLoad, OriginProvider } from "../discovery/index.ts";
import { readRegularFile } from "../runtime/index.ts";
import { MAX_STATE_BYTES, OriginCache, type OriginState } from "./cache.ts";

/**
 * An origin served from its verified copies in the cache alone, with no network: what `skillset trust --skill`
 * approves is exactly the copy the host last verified. When the label was used with several URLs, the copy
 * refreshed last serves. A copy that no longer matches its digests is refused, as when online.
 */
export function createCachedOrigin(origin: string, options: { cacheDir: string }): OriginProvider {
	return {
		origin,
		async load(): Promise<OriginLoad> {
			const diagnostics: DiscoveryDiagnostic[] = [];
			const state = await latestState(options.cacheDir, origin);
			if (!state) {
				const message = `nothing from ${origin} is cached in ${options.cacheDir}`;
				diagnostics.push({ code: "origin.failed", severity: "warning", message, file: origin });
				return { folder: "", skills: [], diagnostics };
			}
			const cache = new OriginCache(options.cacheDir, origin, state.url);
			const skills: OriginLoad["skills"] = [];
			for (const record of Object.values(state.skills)) {
				if (cache.verify(record)) skills.push({ dir: record.dir, pins: record.files });
				else {
					const message = `${record.name}: the cached copy no longer matches its digests`;
					diagnostics.push({ code: "origin.refused", severity: "error", message, file: origin });
				}
			}
			return { folder: cache.skillsFolder, skills, diagnostics };
		},
	};
}

async function latestState(cacheDir: string, origin: string): Promise<OriginState | undefined> {
	const folder = join(cacheDir, "origins");
	const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
		if (error.code === "ENOENT") return [] as string[];
		throw error;
	});
	let latest: OriginState | undefined;
	for (const name of names) {
		const state = await readState(join(folder, name, "state.json"));
		if (state?.origin !== origin || typeof state.url !== "string") continue;
		if (!latest || (state.refreshedAt ?? "") > (latest.refreshedAt ?? "")) latest = state;
	}
	return latest;
}

async function readState(file: string): Promise<OriginState | undefined> {
	try {
		const state = JSON.parse(await readRegularFile(file, MAX_STATE_BYTES)) as OriginState;
		return typeof state === "object" && state !== null && typeof state.skills === "object" && state.skills !== null
			? state
			: undefined;
	} catch {
		// Not a state file (or a broken one): it names no origin, so it serves nothing.
		return undefined;
	}
}
