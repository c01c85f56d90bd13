// The error class alone: importing the skill stage here would load it before any skill is found.
import { SkillsetError } from "../skill/errors.ts";
import type { LoadOptions } from "./load.ts";
import type { OriginProvider } from "./origin-provider.ts";
import { COLLISION_POLICIES, type CollisionPolicy } from "./resolve.ts";
import { DEFAULT_SCOPE_ORDER, PRESET_NAMES, type RootOptions } from "./roots.ts";
import type { WalkLimits } from "./walk.ts";

/** Everything discovery can be told. All of it is optional. */
export interface DiscoverOptions extends RootOptions, LoadOptions {
	/** What to do with one name in several roots. Default `precedence`. */
	policy?: CollisionPolicy;
	/**
	 * Walk bounds for every root. Unset bounds default to `DEFAULT_EXPLICIT_WALK_LIMITS` for the roots the
	 * caller named and `DEFAULT_WALK_LIMITS` for conventional and preset folders.
	 */
	limits?: Partial<WalkLimits>;
	/** Follow links to folders (default true). */
	followSymlinks?: boolean;
	/** Accept a SKILL.md that is itself a link (default false). */
	allowSymlinkedSkillFile?: boolean;
	/** Scan hidden folders below each root (collections such as `skills/.curated`). Default false. */
	includeHidden?: boolean;
	/** Skills to switch off, by name or qualified name. */
	disabled?: readonly string[];
	/** Remote origins (MCP servers, well-known indexes); their skills never shadow local ones. */
	origins?: readonly OriginProvider[];
	/**
	 * The user's cache folder (`~/.cache/skillset` by default). When set, the folder listings and frontmatter results
	 * of each root are kept in its `discovery/` folder between processes, so a run over unchanged files costs one
	 * stat per folder and SKILL.md. Unset (the default for the library): nothing is written.
	 */
	cacheDir?: string;
}

type Check = (value: unknown, name: string) => void;

const fail = (name: string, expected: string, value: unknown): never => {
	throw new SkillsetError(
		"invalid-option",
		`${name} must be ${expected}, not ${JSON.stringify(value) ?? String(value)}`,
		{
			data: { option: name },
		},
	);
};
const text: Check = (value, name) => {
	if (typeof value !== "string" || value === "") fail(name, "a non-empty string", value);
};
const flag: Check = (value, name) => {
	if (typeof value !== "boolean") fail(name, "true or false", value);
};
const count: Check = (value, name) => {
	if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) fail(name, "a positive number", value);
};
const oneOf =
	(allowed: readonly string[]): Check =>
	(value, name) => {
		if (typeof value !== "string" || !allowed.includes(value)) fail(name, `one of ${allowed.join(", ")}`, value);
	};
const listOf =
	(item: Check): Check =>
	(value, name) => {
		if (!Array.isArray(value)) fail(name, "a list", value);
		(value as unknown[]).forEach((entry, index) => {
			item(entry, `${name}[${index}]`);
		});
	};

const CHECKS: Readonly<Partial<Record<keyof DiscoverOptions, Check>>> = {
	cwd: text,
	home: text,
	defaultRoots: flag,
	conventions: listOf(text),
	roots: listOf(text),
	presets: listOf(oneOf(PRESET_NAMES)),
	userRoots: listOf(text),
	adminRoots: listOf(text),
	adminLocked: flag,
	pluginRoots: listOf(text),
	builtinRoots: listOf(text),
	scopeOrder: listOf(oneOf(DEFAULT_SCOPE_ORDER)),
	trustWorkspace: flag,
	policy: oneOf(COLLISION_POLICIES),
	followSymlinks: flag,
	allowSymlinkedSkillFile: flag,
	includeHidden: flag,
	disabled: listOf(text),
	maxFileBytes: count,
	maxFrontmatterBytes: count,
	cacheDir: text,
};
const LIMIT_CHECKS: Readonly<Record<string, Check>> = { maxDepth: count, maxDirs: count, maxEntries: count };

/**
 * Checks discovery options at run time, as the CLI checks its flags: JavaScript callers get no type check, and a
 * typo must not silently mean the default. A bad value is a `SkillsetError` naming the option.
 */
export function validateDiscoverOptions(options: DiscoverOptions): void {
	if (options === null || typeof options !== "object") fail("options", "an object", options);
	for (const [key, value] of Object.entries(options)) {
		if (value === undefined) continue;
		if (key === "limits") {
			if (value === null || typeof value !== "object") fail("limits", "an object", value);
			for (const [limit, number] of Object.entries(value as object)) {
				const check = LIMIT_CHECKS[limit];
				if (!check) fail(`limits.${limit}`, `one of ${Object.keys(LIMIT_CHECKS).join(", ")}`, limit);
				else if (number !== undefined) check(number, `limits.${limit}`);
			}
			continue;
		}
		CHECKS[key as keyof DiscoverOptions]?.(value, key);
	}
}
