import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type PublishResult, publishSkills } from "../../sources/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Rendered, type Style, UsageError } from "../io.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	out: { type: "string" },
	include: { type: "string", multiple: true },
	check: { type: "boolean", default: false },
	html: { type: "boolean", default: false },
	"site-url": { type: "string" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset publish [DIR] --out OUT [options]

Write a static Agent Skills Discovery index (v0.2.0) of DIR's selected skills (workspace scope only: never a
user-scope or remote origin's skill, whatever else discovery finds): OUT/.well-known/agent-skills/
index.json, SKILL.md artifacts for single-file skills and deterministic .tar.gz archives for the others, with their
sha256 digests. Serve OUT from any static web server or CDN; 'skillset add https://your.host' installs from it.

Left out, and named: dot-files and dot-folders (.env, .git, ...) and editor backups (file~, #file#, *.swp, *.bak,
*.orig, ...). Refused: a skill holding a link, or a file that looks like a credential by name (id_rsa, *.pem, *.key,
credentials.json, .npmrc, .pypirc, ...) or by content (a private key block, a GitHub, npm, Slack or AWS token).
Nothing is written through a link in OUT. A skill whose description is over 1,024 characters (the discovery RFC's
limit, past which clients skip the entry) is left out with a warning; the others are published.

${discoveryUsage}

Options:
  --out OUT                  the folder to write (required)
  --include PATH             publish this file or folder anyway (relative to the skill folder, or SKILL/PATH;
                             repeatable); a credential-like file must be named itself
  --check                    write nothing: list what would be published, left out and refused
  --html                     also write OUT/index.html, a self-contained page to browse and search the skills
  --site-url URL             the URL OUT is served at, for the page's install commands (default: the page's own)
  --json                     print the result as JSON: entries, omitted, refused, leftOut, failure, otherScopes

Exit status: 0 published, 1 nothing to publish, a skill refused or OUT not written (with --check: a skill would be
left out or refused), 2 usage error.`;

/** What `publish` prints: the library's result, and the selected skills of other scopes it did not publish. */
export interface PublishData extends PublishResult {
	otherScopes: { skill: string; scope: string }[];
}

/** Publishes. */
export async function run(
	values: DiscoveryFlagValues & {
		out?: string;
		include?: string[];
		check?: boolean;
		html?: boolean;
		"site-url"?: string;
	},
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<PublishData>> {
	if (!values.out && !values.check) throw new UsageError("publish needs --out OUT");
	const siteUrl = values["site-url"];
	if (siteUrl !== undefined && !values.html) throw new UsageError("--site-url goes with --html");
	if (siteUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(siteUrl))
		throw new UsageError(`--site-url ${JSON.stringify(siteUrl)}: give the http(s) URL OUT is served at`);
	if (positionals.length > 1) throw new UsageError("publish takes at most one DIR");
	const { index } = await discoverFor(values, positionals[0], io);
	// Only the workspace's own skills: the user's personal skills (~/.agents/skills, ~/.claude/skills…) are not
	// DIR's to publish, and a skill from an origin is that origin's.
	const own = index.selected.filter((skill) => skill.scope === "workspace" && !skill.origin);
	const otherScopes = index.selected
		.filter((skill) => !own.includes(skill))
		.map((skill) => ({ skill: skill.id, scope: skill.scope }));
	const skills = own.map((skill) => ({ name: skill.id, description: skill.properties.description, dir: skill.dir }));
	const result = await publishSkills(skills, resolve(io.cwd, values.out ?? "."), {
		include: values.include ?? [],
		check: values.check === true,
		html: values.html ? { ...(siteUrl ? { siteUrl } : {}) } : false,
	});
	const data = { ...result, otherScopes };
	const ok =
		!data.failure && data.refused.length === 0 && (values.check ? data.leftOut.length === 0 : data.entries.length > 0);
	return { exitCode: ok ? 0 : 1, data };
}

/** One line per entry on stdout; what was left out, refused or failed on stderr. */
export function render(data: PublishData, style: Style): Rendered {
	const err: string[] = [];
	for (const o of data.otherScopes)
		err.push(style.dim(`not published: ${shown(o.skill)} (${o.scope} scope, not DIR's)`));
	for (const o of data.omitted) {
		err.push(
			style.dim(
				`left out ${shown(`${o.skill}/${o.path}`)} (${o.reason === "hidden" ? "a dot-file" : "an editor backup"})`,
			),
		);
	}
	for (const l of data.leftOut) err.push(style.yellow(`left out ${shown(l.skill)}: ${shown(l.message)} [${l.code}]`));
	for (const r of data.refused) err.push(style.red(`refused ${shown(r.skill)}: ${shown(r.message)} [${r.code}]`));
	if (data.failure) err.push(style.red(`skillset: ${shown(data.failure.message)} [${data.failure.code}]`));
	const lines = data.entries.map((e) => `${e.name}  ${e.type}  ${e.url}  ${e.digest}`);
	if (lines.length === 0 && !data.failure) err.push("no skills published");
	return {
		stdout: lines.length > 0 ? `${lines.join("\n")}\n` : "",
		stderr: err.length > 0 ? `${err.join("\n")}\n` : "",
	};
}

/** Text from a skill folder (file names) with its control characters shown as escapes, never sent to the terminal. */
function shown(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
	return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
