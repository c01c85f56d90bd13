import { lstat, readdir, readFile, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { ParseArgsConfig } from "node:util";
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
	const kept = new Set(settings.origins.map((origin) => origin.cacheFolder));
	const folders = join(settings.cacheDir, "origins");
	const removed: PrunedFolder[] = [];
	for (const name of await readdir(folders).catch(() => [] as string[])) {
		const folder = join(folders, name);
		const state = await readState(folder);
		if (kept.has(folder)) removed.push(...(await supersededCopies(folder, state)));
		else
			removed.push({
				path: folder,
				reason: "origin",
				...(state?.origin ? { origin: state.origin } : {}),
				bytes: await treeBytes(folder),
			});
	}
	if (!dryRun) {
		for (const entry of removed) await rm(entry.path, { recursive: true, force: true });
		await dropEmptyDigestFolders(settings.origins.map((origin) => join(origin.cacheFolder, "skills")));
	}
	const bytes = removed.reduce((sum, entry) => sum + entry.bytes, 0);
	return { exitCode: 0, data: { cacheDir: settings.cacheDir, dryRun, removed, bytes } };
}

interface State {
	origin?: string;
	skills: Record<string, { dir?: unknown }>;
}

async function readState(folder: string): Promise<State | undefined> {
	try {
		const state = JSON.parse(await readFile(join(folder, "state.json"), "utf8")) as Partial<State> | null;
		if (state && typeof state.skills === "object" && state.skills !== null) return state as State;
	} catch {
		// No state (never refreshed) or a broken one: nothing in the folder is a current copy.
	}
	return undefined;
}

/** Copies under `<folder>/skills/<digest>/<name>` that the origin's state does not name as current. */
async function supersededCopies(folder: string, state: State | undefined): Promise<PrunedFolder[]> {
	const current = new Set(Object.values(state?.skills ?? {}).map((skill) => String(skill.dir)));
	const skills = join(folder, "skills");
	const out: PrunedFolder[] = [];
	for (const digest of await readdir(skills).catch(() => [] as string[])) {
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

/** Removes the digest folders the pruning left empty. */
async function dropEmptyDigestFolders(skillFolders: readonly string[]): Promise<void> {
	for (const skills of skillFolders) {
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
	if (lines.length === 0) return `Nothing to prune in ${data.cacheDir}.\n`;
	return `${lines.join("\n")}\n${data.removed.length} folder(s), ${total}.\n`;
}
