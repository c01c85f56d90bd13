import { type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type DiscoveryResult, discover } from "../discovery/index.ts";
import { homeFrom, type ResolvedSettings, resolveSettings, type SettingsFlags } from "../settings/index.ts";
import { type CliIo, UsageError } from "./io.ts";
import type { OriginSummary } from "./origin-providers.ts";
import { announceBounds } from "./render-bounds.ts";
import { terminalSafe } from "./terminal-text.ts";

/** The options every command that discovers takes. */
export const discoveryFlags: NonNullable<ParseArgsConfig["options"]> = {
	root: { type: "string", multiple: true },
	"no-default-roots": { type: "boolean" },
	preset: { type: "string", multiple: true },
	policy: { type: "string" },
	config: { type: "string" },
	untrusted: { type: "boolean" },
	"trust-store": { type: "boolean" },
	"include-hidden": { type: "boolean" },
	"no-cache": { type: "boolean" },
	mcp: { type: "string", multiple: true },
	index: { type: "string", multiple: true },
	"origin-timeout": { type: "string" },
	"no-origins": { type: "boolean" },
	"allow-unverified": { type: "boolean" },
	"allow-offline": { type: "boolean" },
};

/** Usage lines for {@link discoveryFlags}. */
export const discoveryUsage: string = `Discovery options:
  --root DIR                 an extra workspace root, highest precedence first (repeatable; must exist)
  --no-default-roots         scan only the roots given (no .agents/skills, .claude/skills, .skills)
  --preset NAME              add a client's folders: claude, codex, opencode, gemini, copilot, cline,
                             kilo, pi, workbuddy (repeatable)
  --policy NAME              collisions: precedence (default), reject, keep-all, qualify
  --config FILE              settings file (default: ./skillset.config.json when present)
  --untrusted                treat the workspace as untrusted: its skills stay out of the catalog
  --trust-store              trust the workspace only if the trust store says so ('skillset trust')
  --include-hidden           also scan hidden folders below each root (e.g. skills/.curated)
  --no-cache                 neither use nor write the discovery index in the cache folder
                             (also SKILLSET_NO_CACHE=1)
  --mcp LABEL=COMMAND ARGS   an MCP server as an origin of skills: a command line (split like a shell would,
                             never run by one) or LABEL=https://URL (repeatable)
  --index LABEL=URL          a well-known skills index as an origin (https:, http: or file:; repeatable)
  --origin-timeout MS        how long an origin may take: a whole MCP load (default 20000), a whole index load
                             with its artifacts (default 30000)
  --no-origins               ignore the origins of the config file and SKILLSET_* (flags still count)
  --allow-unverified         read a v0.1.0 index (no digests, so its files cannot be verified); never a
                             fallback over plain http: name the v0.1.0 index URL there
  --allow-offline            exit 0 when an origin fails with nothing cached (it is still named on stderr;
                             also the config key allowOffline and SKILLSET_ALLOW_OFFLINE=1)`;

/** The parsed values of {@link discoveryFlags}. */
export interface DiscoveryFlagValues {
	root?: string[];
	"no-default-roots"?: boolean;
	preset?: string[];
	policy?: string;
	config?: string;
	untrusted?: boolean;
	"trust-store"?: boolean;
	"include-hidden"?: boolean;
	"no-cache"?: boolean;
	mcp?: string[];
	index?: string[];
	"origin-timeout"?: string;
	"no-origins"?: boolean;
	"allow-unverified"?: boolean;
	"allow-offline"?: boolean;
}

/** The settings of the discovery flags, as the resolver takes them. */
export function settingsFlags(values: DiscoveryFlagValues): SettingsFlags {
	const flags: SettingsFlags = {};
	if (values.root) flags.roots = values.root;
	if (values["no-default-roots"]) flags.defaultRoots = false;
	if (values.preset) flags.presets = values.preset;
	if (values.policy !== undefined) flags.policy = values.policy;
	if (values.untrusted) flags.untrusted = true;
	if (values["trust-store"]) flags.trustStore = true;
	if (values["include-hidden"]) flags.includeHidden = true;
	if (values["no-cache"]) flags.cache = false;
	if (values.mcp) flags.mcp = values.mcp;
	if (values.index) flags.index = values.index;
	if (values["origin-timeout"] !== undefined) flags.originTimeout = values["origin-timeout"];
	if (values["no-origins"]) flags.origins = false;
	if (values["allow-unverified"]) flags.allowUnverified = true;
	if (values["allow-offline"]) flags.allowOffline = true;
	return flags;
}

/** The resolved settings of a command, with the configured origins summarised and their providers made. */
export interface CommandSettings extends ResolvedSettings {
	/** The configured remote origins (never their tokens), and where their verified copies are cached. */
	originList: OriginSummary[];
}

/**
 * Runs discovery for a command: settings from everywhere, the workspace at `dir` (default: the cwd). A root a walk
 * bound cut short is announced on stderr, unless the command reports it itself (`announceBounds: false`).
 */
export async function discoverFor(
	values: DiscoveryFlagValues,
	dir: string | undefined,
	io: CliIo,
	options: { announceBounds?: boolean; flags?: SettingsFlags; failOnOrigins?: boolean } = {},
): Promise<CommandSettings & DiscoveryResult> {
	const settings = await settingsFor(values, dir, io, options.flags);
	const startedAt = Date.now();
	const result = await discover(settings.discover);
	result.report.diagnostics.unshift(...settings.diagnostics);
	if (options.announceBounds !== false) announceBounds(result.report, io);
	const failRun = options.failOnOrigins !== false;
	if (settings.originList.length > 0) {
		// Only a run with remote origins has failures to name: start-up pays for every module.
		const { warnFailedOrigins } = await import("./origin-warnings.ts");
		await warnFailedOrigins(settings.originList, settings.origins, result.report, startedAt, io, { failRun });
	}
	return { ...settings, ...result };
}

/**
 * The settings {@link discoverFor} scans with, without scanning (for commands that scan on their own). `extra` are
 * the command's own settings (catalog flags, chat's `--mcp` and permissions), at the precedence of flags; without
 * catalog flags the catalog budget is not checked (the command builds no catalog).
 */
export async function settingsFor(
	values: DiscoveryFlagValues,
	dir: string | undefined,
	io: CliIo,
	extra: SettingsFlags = {},
): Promise<CommandSettings> {
	const workspace = resolve(io.cwd, dir ?? ".");
	if (dir !== undefined) checkFolder(`DIR ${dir}`, workspace);
	const settings = await resolveSettings({
		cwd: io.cwd,
		workspace,
		env: io.env,
		flags: { ...settingsFlags(values), ...extra },
		...(values.config !== undefined ? { configFile: values.config } : {}),
		isTrusted: (path) => trustedByStore(path, io),
		checkCatalog: extra.catalog !== undefined,
	});
	// Only when the user chose no roots: `--root` or `--no-default-roots` already say where the skills are.
	if (dir !== undefined && !values.root?.length && !values["no-default-roots"]) {
		const { conventionNames, isPlainSkillsFolder } = await import("./plain-folder.ts");
		const conventions = settings.discover.conventions;
		if (await isPlainSkillsFolder(workspace, conventions)) {
			io.stderr(
				`skillset: ${terminalSafe(dir)} holds skill folders and no conventional skills folder (${conventionNames(conventions)}): using it as a skills root\n`,
			);
			return settingsFor({ ...values, root: [workspace] }, dir, io, extra);
		}
	}
	const { mcpServers, indexes } = settings.origins;
	if (Object.keys(mcpServers).length === 0 && Object.keys(indexes).length === 0) return { ...settings, originList: [] };
	// The origin code loads only when an origin is configured: start-up pays for every module.
	const { createOriginProviders, summarizeOrigins } = await import("./origin-providers.ts");
	const originList = await summarizeOrigins(settings.origins, settings.cacheDir);
	if (originList.length > 0) {
		settings.discover.origins = await createOriginProviders(settings.origins, io.env, settings.cacheDir);
	}
	return { ...settings, originList };
}

/**
 * A folder the user named (a workspace DIR) must be one: anything else is a usage error, never silence. One stat,
 * synchronous: the promise API would cost every command that discovers its module and a thread pool.
 */
function checkFolder(what: string, path: string): void {
	const info = statOrError(path);
	if (info instanceof Error) {
		const missing = info.code === "ENOENT" || info.code === "ENOTDIR";
		throw new UsageError(missing ? `${what} does not exist` : `cannot read ${what}: ${info.code}`);
	}
	if (!info.isDirectory()) throw new UsageError(`${what} is not a folder`);
}

/**
 * The trust store every command uses (`trust`, `--trust-store`, and the file `chat` keeps the model from writing):
 * SKILLSET_TRUST_FILE, else the default file under the skillset home (SKILLSET_HOME, else HOME).
 */
export function trustFileFor(env: CliIo["env"], defaultTrustFile: (env: CliIo["env"], home: string) => string): string {
	return env.SKILLSET_TRUST_FILE ?? defaultTrustFile(env, homeFrom(env, homedir()));
}

/** Whether the trust store (SKILLSET_TRUST_FILE, else the default file) trusts the workspace. */
async function trustedByStore(workspace: string, io: CliIo): Promise<boolean> {
	// Loaded here, not at the top: only --trust-store needs the policy stage, and start-up pays for every module.
	const { defaultTrustFile, loadTrustStore } = await import("../policy/index.ts");
	const file = trustFileFor(io.env, defaultTrustFile);
	try {
		return (await loadTrustStore(file)).isTrusted(workspace);
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
}

function statOrError(path: string): Stats | NodeJS.ErrnoException {
	try {
		return statSync(path);
	} catch (error) {
		return error as NodeJS.ErrnoException;
	}
}
