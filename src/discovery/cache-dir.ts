import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The user's cache folder for skillset: `SKILLSET_CACHE_DIR` (relative to `cwd`), else `$XDG_CACHE_HOME/skillset`,
 * else `~/.cache/skillset`. The persistent discovery index lives in its `discovery/` folder and verified remote
 * copies in its `origins/` folder; this is the one place the rule is spelled.
 */
export function defaultCacheDir(
	env: Readonly<Record<string, string | undefined>> = process.env,
	cwd: string = process.cwd(),
): string {
	if (env.SKILLSET_CACHE_DIR) return resolve(cwd, env.SKILLSET_CACHE_DIR);
	return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "skillset");
}
