import type { DiscoverOptions } from "../discovery/index.ts";
import { SettingsError } from "./errors.ts";
import type { ResolvedSettings } from "./resolve-settings.ts";

/**
 * The discovery options a library host scans with: the resolved settings' under the host's own `discover`, key by
 * key. Remote origins the settings name need their providers in `discover.origins` (the sources stage makes them):
 * without them this is a `settings.incomplete` error, never origins left out unsaid.
 */
export function discoverOptionsFor(settings: ResolvedSettings, discover: DiscoverOptions = {}): DiscoverOptions {
	const merged = { ...settings.discover, ...discover };
	const named = [
		...Object.keys(settings.origins.mcpServers).map((label) => `mcp:${label}`),
		...Object.keys(settings.origins.indexes).map((label) => `index:${label}`),
	];
	if (named.length > 0 && merged.origins === undefined) {
		const message = `the settings name remote origins (${named.join(", ")}): pass their providers as discover.origins`;
		const setting = Object.keys(settings.origins.mcpServers).length > 0 ? "mcpServers" : "indexes";
		const source = settings.sources[setting] ?? { from: "default" };
		throw new SettingsError("settings.incomplete", message, { setting, source });
	}
	return merged;
}
