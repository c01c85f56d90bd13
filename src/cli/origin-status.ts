import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DiscoveryDiagnostic, DiscoveryReport } from "../discovery/index.ts";
import type { OriginSummary } from "./origin-providers.ts";

/** How an origin's load went: refreshed from the origin now, served from the cache, or nothing to serve. */
export type OriginHealth = "reachable" | "cached" | "failed";

/** One configured origin after a discovery: its status, skills, last refresh and cache size. */
export interface OriginStatus extends OriginSummary {
	status: OriginHealth;
	/** Skills it brought (verified copies served). */
	skills: number;
	/** When the origin was last read successfully (from the cache's state), or null if never. */
	refreshedAt: string | null;
	/** For an index: the shape it was last read in (`0.2.0-schema`, `0.2.0-version` or `0.1.0`), when known. */
	indexShape?: string;
	/** Bytes in its cache folder (only when asked for). */
	cacheBytes?: number;
	diagnostics: DiscoveryDiagnostic[];
}

/**
 * The status of each origin after a discovery that began at `startedAt` (ms): a refresh recorded since then means the
 * origin answered; otherwise its skills, if any, came from the cache.
 */
export async function originStatuses(
	origins: readonly OriginSummary[],
	report: DiscoveryReport,
	startedAt: number,
	options: { sizes?: boolean } = {},
): Promise<OriginStatus[]> {
	return Promise.all(
		origins.map(async (origin) => {
			const { refreshedAt, shape } = await readState(origin.cacheFolder);
			const skills = report.roots.find((root) => root.origin === origin.origin)?.counts.candidates ?? 0;
			const fresh = refreshedAt !== null && Date.parse(refreshedAt) >= startedAt;
			const status: OriginHealth = fresh ? "reachable" : skills > 0 ? "cached" : "failed";
			const diagnostics = report.diagnostics.filter(
				(d) => d.file === origin.origin || d.file.startsWith(`${origin.origin} `),
			);
			const out: OriginStatus = { ...origin, status, skills, refreshedAt, diagnostics };
			if (origin.kind === "index" && shape) out.indexShape = shape;
			if (options.sizes) out.cacheBytes = await treeBytes(origin.cacheFolder);
			return out;
		}),
	);
}

// The cache's state file is data read back: only a known shape is shown.
const SHAPES = new Set(["0.2.0-schema", "0.2.0-version", "0.1.0"]);

async function readState(folder: string): Promise<{ refreshedAt: string | null; shape?: string }> {
	try {
		const state = JSON.parse(await readFile(join(folder, "state.json"), "utf8")) as {
			refreshedAt?: unknown;
			shape?: unknown;
		};
		const refreshedAt = typeof state.refreshedAt === "string" ? state.refreshedAt : null;
		return typeof state.shape === "string" && SHAPES.has(state.shape)
			? { refreshedAt, shape: state.shape }
			: { refreshedAt };
	} catch {
		// Never refreshed (no state file yet) or a broken one: no known refresh.
		return { refreshedAt: null };
	}
}

/** The bytes of every file under `path`, links counted as links and never followed; 0 when it does not exist. */
export async function treeBytes(path: string): Promise<number> {
	const info = await lstat(path).catch(() => undefined);
	if (!info) return 0;
	if (!info.isDirectory()) return info.size;
	const entries = await readdir(path).catch(() => [] as string[]);
	let total = 0;
	for (const entry of entries) total += await treeBytes(join(path, entry));
	return total;
}
