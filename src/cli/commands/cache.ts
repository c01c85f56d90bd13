import { lstat, readdir, realpath, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { readRegularFile } from "../../runtime/index.ts";
import { type DiscoveryFlagValues, discoveryFlags, discoveryUsage, settingsFor } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { treeBytes } from "../origin-status.ts";
import { formatBytes } from "./sources.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	"dry-run": { type: "boolean", default: false },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset cache prune [DIR] [options]

Remove from the origin cache (SKILLSET_CACHE_DIR, else the user cache folder) every origin folder that no origin
configured for the workspace DIR uses any more, and every superseded copy of a skill (each configured origin
keeps its current copies). Origins are the ones 'skillset sources' lists: config file, SKILLSET_* and flags.
Links are never followed: a link found in the cache (skillset makes none) is removed as a link, and nothing is
pruned when the cache's origins folder itself is a link.

${discoveryUsage}

Options:
  --dry-run                  say what would be removed, remove nothing
  --json                     print {removed, bytes, dryRun} as JSON`;

/** One folder pruned (or that would be). */
export interface PrunedFolder {
	path: string;
	/** `origin` (no configured origin uses it) or `superseded` (not an origin's current copy). */
	reason: "origin" | "superseded";
	/** The origin it belonged to, as its cache recorded it, when known. */
	origin?: string;
	bytes: number;
}

/** What `cache prune` did. */
export interface PruneResult {
	cacheDir: string;
	dryRun: boolean;
	removed: PrunedFolder[];
	bytes: number;
	/** Why nothing was pruned, when the cache's own folders cannot be trusted (a link where a folder belongs). */
	error?: string;
}

/** Prunes the cache. */
export async function run(
	values: DiscoveryFlagValues & { "dry-run"?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<PruneResult>> {
	const [action, dir, ...extra] = positionals;
	if (action !== "prune")
		throw new UsageError(
			action === undefined ? "cache needs an action: prune" : `unknown cache action '${action}' (known: prune)`,
		);
	if (extra.length > 0) throw new UsageError("cache prune takes at most one DIR");
	const settings = await settingsFor(values, dir, io);
	const dryRun = values["dry-run"] === true;
	const data: PruneResult = { cacheDir: settings.cacheDir, dryRun, removed: [], bytes: 0 };
	// The cache folder the user named may be reached through links; nothing below it is.
	const cacheDir = await realpath(settings.cacheDir).catch(() => undefined);
	const folders = cacheDir && join(cacheDir, "origins");
	const info = folders && (await lstat(folders).catch(() => undefined));
	if (!folders || !info) return { exitCode: 0, data };
	if (!info.isDirectory()) {
		data.error = `${folders} is ${info.isSymbolicLink() ? "a link" : "not a folder"}: nothing was pruned`;
		return { exitCode: 1, data };
	}
	const kept = new Set(settings.originList.map((origin) => origin.cacheFolder));
	for (const name of await readdir(folders)) {
		const folder = join(folders, name);
		// An origin's folder that is a link is not the origin's: it is removed as a link, never listed through.
		const isFolder = (await lstat(folder)).isDirectory();
		const state = isFolder ? await readState(folder) : undefined;
		if (kept.has(folder) && isFolder) data.removed.push(...(await supersededCopies(folder, state)));
		else
			data.removed.push({
				path: folder,
				reason: "origin",
				...(state?.origin ? { origin: state.origin } : {}),
				bytes: await treeBytes(folder),
			});
	}
	if (!dryRun) {
		for (const entry of data.removed) await removeBelow(cacheDir, entry.path);
		await dropEmptyDigestFolders(settings.originList.map((origin) => join(origin.cacheFolder, "skills")));
	}
	data.bytes = data.removed.reduce((sum, entry) => sum + entry.bytes, 0);
	return { exitCode: 0, data };
}

/**
 * Removes `path` (a folder, or a link as a link) after proving that its parent is still the real folder it was
 * when listed: a link swapped in above it since would otherwise lead the delete out of the cache.
 */
async function removeBelow(cacheDir: string, path: string): Promise<void> {
	const parent = dirname(path);
	const real = await realpath(parent).catch(() => undefined);
	if (real !== parent || !real.startsWith(`${cacheDir}/`)) return;
	await rm(path, { recursive: true, force: true });
}

interface State {
	origin?: string;
	skills: Record<string, { dir?: unknown }>;
}

async function readState(folder: string): Promise<State | undefined> {
	try {
		const text = await readRegularFile(join(folder, "state.json"), 16 << 20);
		const state = JSON.parse(text) as Partial<State> | null;
		if (state && typeof state.skills === "object" && state.skills !== null) return state as State;
	} catch {
		// No state (never refreshed) or a broken one: nothing in the folder is a current copy.
	}
	return undefined;
}

/**
 * Copies under `<folder>/skills/<digest>/<name>` that the origin's state does not name as current; a link where a
 * folder belongs is itself an entry to remove (never listed through).
 */
async function supersededCopies(folder: string, state: State | undefined): Promise<PrunedFolder[]> {
	const current = new Set(Object.values(state?.skills ?? {}).map((skill) => String(skill.dir)));
	const skills = join(folder, "skills");
	const out: PrunedFolder[] = [];
	const info = await lstat(skills).catch(() => undefined);
	if (!info) return out;
	if (!info.isDirectory()) return [{ path: skills, reason: "superseded", bytes: info.size }];
	for (const digest of await readdir(skills)) {
		const digestFolder = join(skills, digest);
		if (!(await lstat(digestFolder)).isDirectory()) {
			out.push({ path: digestFolder, reason: "superseded", bytes: await treeBytes(digestFolder) });
			continue;
		}
		for (const name of await readdir(digestFolder)) {
			if (current.has(`${digest}/${name}`)) continue;
			const path = join(digestFolder, name);
			out.push({
				path,
				reason: "superseded",
				...(state?.origin ? { origin: state.origin } : {}),
				bytes: await treeBytes(path),
			});
		}
	}
	return out;
}

/** Removes the digest folders the pruning left empty (in a skills folder that is a real folder, not a link). */
async function dropEmptyDigestFolders(skillFolders: readonly string[]): Promise<void> {
	for (const skills of skillFolders) {
		if ((await realpath(skills).catch(() => undefined)) !== skills) continue;
		for (const digest of await readdir(skills).catch(() => [] as string[])) {
			// rmdir removes only an empty folder: one that still holds a current copy stays.
			await rmdir(join(skills, digest)).catch(() => undefined);
		}
	}
}

/** Each removed folder and why, then the total freed. */
export function render(data: PruneResult, style: Style): string {
	const verb = data.dryRun ? "would remove" : "removed";
	const lines = data.removed.map((entry) => {
		const why =
			entry.reason === "origin"
				? `origin no longer configured${entry.origin ? ` (${entry.origin})` : ""}`
				: `superseded copy${entry.origin ? ` (${entry.origin})` : ""}`;
		return `${verb} ${entry.path}  ${style.dim(`${why}, ${formatBytes(entry.bytes)}`)}`;
	});
	const total = data.dryRun ? `${formatBytes(data.bytes)} would be freed` : `${formatBytes(data.bytes)} freed`;
	if (data.error) return `${style.red(`skillset: ${data.error}`)}\n`;
	if (lines.length === 0) return `Nothing to prune in ${data.cacheDir}.\n`;
	return `${lines.join("\n")}\n${data.removed.length} folder(s), ${total}.\n`;
}
