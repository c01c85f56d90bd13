import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { CatalogBudget, CatalogFormat } from "../catalog/index.ts";
import {
	COLLISION_POLICIES,
	type CollisionPolicy,
	type DiscoverOptions,
	PRESET_NAMES,
	type PresetName,
} from "../discovery/index.ts";
import { UsageError } from "./io.ts";

/** `skillset.config.json`: discovery and catalog settings. Paths are relative to the file. */
export interface SkillsetConfig {
	roots?: string[];
	defaultRoots?: boolean;
	conventions?: string[];
	presets?: PresetName[];
	userRoots?: string[];
	adminRoots?: string[];
	adminLocked?: boolean;
	pluginRoots?: string[];
	builtinRoots?: string[];
	policy?: CollisionPolicy;
	trustWorkspace?: boolean;
	disabled?: string[];
	followSymlinks?: boolean;
	allowSymlinkedSkillFile?: boolean;
	limits?: { maxDepth?: number; maxDirs?: number; maxEntries?: number };
	catalog?: { format?: CatalogFormat; location?: boolean } & CatalogBudget;
}

// The catalog's formats, spelled here so that reading a config does not load the catalog stage (start-up time);
// the type check below fails if this list and `CatalogFormat` ever differ.
const CATALOG_FORMATS = ["xml", "markdown", "json"] as const satisfies readonly CatalogFormat[];
const _formatsComplete: [Exclude<CatalogFormat, (typeof CATALOG_FORMATS)[number]>] extends [never] ? true : never =
	true;

/** The config file name looked for in the working directory. */
const CONFIG_FILE_NAME = "skillset.config.json";

type Check = (value: unknown, where: string) => void;

const string: Check = (value, where) => {
	if (typeof value !== "string" || value === "") throw new UsageError(`${where} must be a non-empty string`);
};
const boolean: Check = (value, where) => {
	if (typeof value !== "boolean") throw new UsageError(`${where} must be true or false`);
};
const positive: Check = (value, where) => {
	if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
		throw new UsageError(`${where} must be a positive number`);
	}
};
const oneOf =
	(allowed: readonly string[]): Check =>
	(value, where) => {
		if (typeof value !== "string" || !allowed.includes(value)) {
			throw new UsageError(`${where} must be one of ${allowed.join(", ")}`);
		}
	};
const list =
	(item: Check): Check =>
	(value, where) => {
		if (!Array.isArray(value)) throw new UsageError(`${where} must be a list`);
		value.forEach((entry, index) => {
			item(entry, `${where}[${index}]`);
		});
	};
const object =
	(shape: Readonly<Record<string, Check>>): Check =>
	(value, where) => {
		if (value === null || typeof value !== "object" || Array.isArray(value)) {
			throw new UsageError(`${where} must be an object`);
		}
		for (const [key, child] of Object.entries(value)) {
			const check = Object.hasOwn(shape, key) ? shape[key] : undefined;
			if (!check) throw new UsageError(`${where}: unknown key '${key}' (known: ${Object.keys(shape).join(", ")})`);
			check(child, `${where}.${key}`);
		}
	};

const CONFIG_SHAPE: Check = object({
	roots: list(string),
	defaultRoots: boolean,
	conventions: list(string),
	presets: list(oneOf(PRESET_NAMES)),
	userRoots: list(string),
	adminRoots: list(string),
	adminLocked: boolean,
	pluginRoots: list(string),
	builtinRoots: list(string),
	policy: oneOf(COLLISION_POLICIES),
	trustWorkspace: boolean,
	disabled: list(string),
	followSymlinks: boolean,
	allowSymlinkedSkillFile: boolean,
	limits: object({ maxDepth: positive, maxDirs: positive, maxEntries: positive }),
	catalog: object({
		format: oneOf(CATALOG_FORMATS),
		location: boolean,
		tokens: positive,
		chars: positive,
		contextWindow: positive,
		fraction: positive,
	}),
});

/**
 * Reads and checks a config file. Without `path`, `skillset.config.json` in `cwd` is used when it exists.
 * Mistakes (bad JSON, unknown keys, wrong types) are usage errors naming the file and the key.
 */
export async function loadConfig(path: string | undefined, cwd: string): Promise<SkillsetConfig> {
	const file = resolve(cwd, path ?? CONFIG_FILE_NAME);
	let text: string;
	try {
		text = await readFile(file, "utf8");
	} catch (error) {
		if (path === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") return {};
		throw new UsageError(`cannot read config ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
	}
	CONFIG_SHAPE(data, file);
	return relativeTo(dirname(file), data as SkillsetConfig);
}

function relativeTo(base: string, config: SkillsetConfig): SkillsetConfig {
	const paths = (list: string[] | undefined) => list?.map((path) => resolve(base, path));
	const out: SkillsetConfig = { ...config };
	for (const key of ["roots", "userRoots", "adminRoots", "pluginRoots", "builtinRoots"] as const) {
		const resolved = paths(config[key]);
		if (resolved) out[key] = resolved;
	}
	return out;
}

/** Settings from `SKILLSET_*` environment variables, checked like the config file; `where` names the source. */
export function configFromEnv(
	env: Readonly<Record<string, string | undefined>>,
	cwd: string,
	where = "SKILLSET_* environment",
): SkillsetConfig {
	const config: SkillsetConfig = {};
	const roots = env.SKILLSET_ROOTS;
	if (roots)
		config.roots = roots
			.split(roots.includes(";") ? ";" : ":")
			.filter(Boolean)
			.map((p) => resolve(cwd, p));
	const presets = env.SKILLSET_PRESETS;
	if (presets) config.presets = presets.split(",").map((p) => p.trim()) as PresetName[];
	if (env.SKILLSET_POLICY) config.policy = env.SKILLSET_POLICY as CollisionPolicy;
	if (env.SKILLSET_DEFAULT_ROOTS)
		config.defaultRoots = parseBoolean(env.SKILLSET_DEFAULT_ROOTS, "SKILLSET_DEFAULT_ROOTS");
	if (env.SKILLSET_TRUST_WORKSPACE) {
		config.trustWorkspace = parseBoolean(env.SKILLSET_TRUST_WORKSPACE, "SKILLSET_TRUST_WORKSPACE");
	}
	const catalog: NonNullable<SkillsetConfig["catalog"]> = {};
	if (env.SKILLSET_FORMAT) catalog.format = env.SKILLSET_FORMAT as CatalogFormat;
	if (env.SKILLSET_BUDGET_TOKENS) catalog.tokens = Number(env.SKILLSET_BUDGET_TOKENS);
	if (env.SKILLSET_CONTEXT_WINDOW) catalog.contextWindow = Number(env.SKILLSET_CONTEXT_WINDOW);
	if (Object.keys(catalog).length > 0) config.catalog = catalog;
	CONFIG_SHAPE(config, where);
	return config;
}

function parseBoolean(value: string, name: string): boolean {
	if (/^(1|true|yes|on)$/i.test(value)) return true;
	if (/^(0|false|no|off)$/i.test(value)) return false;
	throw new UsageError(`${name} must be true or false, not '${value}'`);
}

/** Discovery options from a merged config (later sources already applied over earlier ones). */
export function discoverOptionsFrom(config: SkillsetConfig, cwd: string, home: string): DiscoverOptions {
	const { catalog: _catalog, ...rest } = config;
	return { ...rest, cwd, home };
}

/** The home folder: `SKILLSET_HOME`, else `HOME`, else the system's. */
export function homeFrom(env: Readonly<Record<string, string | undefined>>, fallback: string): string {
	return env.SKILLSET_HOME ?? env.HOME ?? fallback;
}
