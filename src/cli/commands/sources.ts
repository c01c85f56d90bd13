import type { ParseArgsConfig } from "node:util";
import { describeIndexShape, type IndexShape } from "../../sources/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { type OriginStatus, originStatuses } from "../origin-status.ts";
import { plural, renderDiagnostic } from "../render-diagnostics.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset sources [DIR] [options]

Load every configured origin (mcpServers and indexes of skillset.config.json, SKILLSET_MCP_SERVERS,
SKILLSET_INDEXES, --mcp, --index) and list each with its status: reachable (read now), cached (unreachable, its
last verified copies serve) or failed (nothing to serve); an index's shape (v0.2.0 with $schema and an artifact
digest per skill, v0.2.0 with version and a digest per file, or v0.1.0 without digests); its skill count, last
refresh and cache size.

${discoveryUsage}

Options:
  --json                     print the origins as a JSON array (tokens are never included)

Exit status: 0 every origin answered or served its cache, 1 an origin failed, 2 usage error.`;

/** Loads the origins and reports on each. */
export async function run(
	values: DiscoveryFlagValues,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<OriginStatus[]>> {
	if (positionals.length > 1) throw new UsageError("sources takes at most one DIR");
	const startedAt = Date.now();
	const { report, originList: origins } = await discoverFor(values, positionals[0], io);
	const data = await originStatuses(origins, report, startedAt, { sizes: true });
	return { exitCode: data.some((o) => o.status === "failed") ? 1 : 0, data };
}

/** One block per origin: label, status, skills, refresh and size, then its diagnostics. */
export function render(data: readonly OriginStatus[], style: Style): string {
	if (data.length === 0) {
		return "No origins configured: add mcpServers or indexes to skillset.config.json, or use --mcp / --index.\n";
	}
	const width = Math.max(...data.map((o) => o.origin.length));
	const lines: string[] = [];
	for (const origin of data) {
		const refreshed = origin.refreshedAt ? `refreshed ${origin.refreshedAt}` : "never refreshed";
		const facts = [origin.status, plural(origin.skills, "skill"), refreshed, formatBytes(origin.cacheBytes ?? 0)];
		if (origin.indexShape) facts.push(`index ${describeIndexShape(origin.indexShape as IndexShape)}`);
		lines.push(`${origin.origin.padEnd(width)}  ${facts.join(", ")}  ${style.dim(origin.where)}`);
		for (const d of origin.diagnostics) {
			if (d.severity !== "info") lines.push(`  ${renderDiagnostic(d, style, false)}`);
		}
	}
	return `${lines.join("\n")}\n`;
}

/** Bytes as B, KiB or MiB with one decimal. */
export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
