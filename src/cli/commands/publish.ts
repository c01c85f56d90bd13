import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type PublishedEntry, publishSkills } from "../../sources/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	out: { type: "string" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset publish [DIR] --out OUT [options]

Write a static Agent Skills Discovery index (v0.2.0) of DIR's selected skills: OUT/.well-known/agent-skills/
index.json, SKILL.md artifacts for single-file skills and deterministic .tar.gz archives for the others, with their
sha256 digests. Serve OUT from any static web server or CDN; 'skillset add https://your.host' installs from it.

${discoveryUsage}

Options:
  --out OUT                  the folder to write (required)
  --json                     print the entries as JSON

Exit status: 0 published, 1 nothing to publish or a skill could not be published, 2 usage error.`;

/** Publishes. */
export async function run(
	values: DiscoveryFlagValues & { out?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<PublishedEntry[]>> {
	if (!values.out) throw new UsageError("publish needs --out OUT");
	if (positionals.length > 1) throw new UsageError("publish takes at most one DIR");
	const { index } = await discoverFor(values, positionals[0], io);
	// Only the workspace's own skills: a skill from an origin is that origin's to publish.
	const skills = index.selected
		.filter((skill) => !skill.origin)
		.map((skill) => ({
			name: skill.id,
			description: skill.properties.description,
			dir: skill.dir,
		}));
	const entries = await publishSkills(skills, resolve(io.cwd, values.out));
	return { exitCode: entries.length > 0 ? 0 : 1, data: entries };
}

/** One line per entry. */
export function render(data: PublishedEntry[], _style: Style): string {
	if (data.length === 0) return "no skills to publish\n";
	return `${data.map((e) => `${e.name}  ${e.type}  ${e.url}  ${e.digest}`).join("\n")}\n`;
}
