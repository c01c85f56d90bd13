import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// The built CLI is bundled into chunks (scripts/bundle-cli.mjs); the build's manifest names the modules each holds.
const DIST = join(import.meta.dirname, "..", "..", "dist");
const BUNDLE = `${pathToFileURL(join(DIST, "cli", "bundle")).href}/`;

/** Module URLs as loaded, with each chunk of the CLI's bundle replaced by the `dist/` URLs of the modules it holds. */
export function unbundled(urls: readonly string[]): string[] {
	let chunks: Record<string, string[]> | undefined;
	return urls.flatMap((url) => {
		if (!url.startsWith(BUNDLE)) return [url];
		chunks ??= JSON.parse(readFileSync(join(DIST, "cli", "bundle", "modules.json"), "utf8")) as Record<
			string,
			string[]
		>;
		const modules = chunks[url.slice(BUNDLE.length)];
		if (!modules) throw new Error(`the bundle's manifest does not name ${url}`);
		return modules.map((module) => pathToFileURL(join(DIST, module)).href);
	});
}
