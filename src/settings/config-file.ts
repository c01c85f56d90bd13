import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { checkOneBudget } from "./catalog.ts";
import { filePlace, type Place, SettingsError } from "./errors.ts";
import { checkConfig, type McpServerSetting, type SkillsetConfig } from "./shape.ts";

/** The config file looked for in the workspace. */
export const CONFIG_FILE_NAME = "skillset.config.json";

/** Largest config file read: far above any real one, and a bound on what a cloned workspace can make us read. */
export const MAX_CONFIG_BYTES: number = 1024 * 1024;

/** A config file as read: its settings (paths made absolute), and where it is. */
export interface LoadedConfig {
	config: SkillsetConfig;
	/** The file read; undefined when the workspace has no config file. */
	file: string | undefined;
	place: Place;
}

/**
 * Reads and checks a config file: `path` when given (it must exist), else `skillset.config.json` in `workspace`
 * when it exists. Mistakes (bad JSON, unknown keys, wrong types) are errors naming the file and the key.
 */
export async function loadConfigFile(path: string | undefined, workspace: string): Promise<LoadedConfig> {
	const file = resolve(workspace, path ?? CONFIG_FILE_NAME);
	const place = filePlace(file);
	let text: string;
	try {
		// Looked at first, so that a workspace without a config never loads the runtime stage (start-up time).
		await stat(file);
		const { readRegularFile } = await import("../runtime/index.ts");
		// Bounded, and a regular file only: a cloned workspace's config may be a FIFO or a link to /dev/zero.
		text = await readRegularFile(file, MAX_CONFIG_BYTES);
	} catch (error) {
		if (path === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") {
			return { config: {}, file: undefined, place };
		}
		const message = `cannot read config ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`;
		throw new SettingsError("settings.unreadable", message, { source: { from: "file", file }, cause: error });
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		const message = `${file} is not valid JSON: ${(error as Error).message}`;
		throw new SettingsError("settings.not-json", message, { source: { from: "file", file }, cause: error });
	}
	checkConfig(data, place);
	checkOneBudget((data as SkillsetConfig).catalog, place);
	return { config: relativeTo(dirname(file), data as SkillsetConfig), file, place };
}

function relativeTo(base: string, config: SkillsetConfig): SkillsetConfig {
	const paths = (list: string[] | undefined) => list?.map((path) => resolve(base, path));
	const out: SkillsetConfig = { ...config };
	for (const key of ["roots", "userRoots", "adminRoots", "pluginRoots", "builtinRoots"] as const) {
		const resolved = paths(config[key]);
		if (resolved) out[key] = resolved;
	}
	// A server's folder is relative to the file too; without one it starts in the file's folder.
	if (config.mcpServers) out.mcpServers = serversIn(base, config.mcpServers);
	return out;
}

/** Stdio servers with their `cwd` resolved against `base` (and `base` when none is given). */
export function serversIn(
	base: string,
	servers: Readonly<Record<string, McpServerSetting>>,
): Record<string, McpServerSetting> {
	const entries = Object.entries(servers).map(([name, server]) => [
		name,
		"command" in server ? { ...server, cwd: resolve(base, server.cwd ?? ".") } : server,
	]);
	return Object.fromEntries(entries);
}
