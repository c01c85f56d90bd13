import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { defaultTrustFile, loadTrustStore } from "../../policy/index.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { renderSkillTrust, type SkillTrustChange, trustSkill } from "../trust-skill.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	untrust: { type: "boolean", default: false },
	list: { type: "boolean", default: false },
	store: { type: "string" },
	skill: { type: "string" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset trust [DIR] [options]

Trust the workspace DIR (default: the current folder): its skills may then reach the catalog when discovery
consults the trust store (--trust-store). The store is a per-user file, written atomically.

Options:
  --untrust                  record DIR as untrusted instead
  --list                     list the trusted and untrusted workspaces
  --skill NAME@ORIGIN        approve a remote skill (NAME@mcp:LABEL, NAME@index:LABEL) as cached now, bound to
                             every file and digest; any change revokes it. With --untrust: revoke the approval
  --store FILE               the store (default: $SKILLSET_TRUST_FILE, else ~/.config/skillset/trust.json)
  --json                     print the result as JSON`;

/** The store's entries after the change. */
export interface TrustResult {
	store: string;
	changed?: { path: string; trusted: boolean };
	workspaces: { path: string; trusted: boolean; at: string }[];
	/** With --skill: the approval given or revoked. */
	skill?: SkillTrustChange;
}

/** Trusts, untrusts or lists. */
export async function run(
	values: { untrust?: boolean; list?: boolean; store?: string; skill?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<TrustResult>> {
	if (positionals.length > 1) throw new UsageError("trust takes at most one DIR");
	const file = values.store ? resolve(io.cwd, values.store) : (io.env.SKILLSET_TRUST_FILE ?? defaultTrustFile(io.env));
	const store = await loadTrustStore(file).catch((error: Error) => {
		throw new UsageError(error.message);
	});
	if (values.list) return { exitCode: 0, data: { store: file, workspaces: store.list() } };
	if (values.skill !== undefined) {
		if (positionals.length > 0) throw new UsageError("trust --skill takes no DIR");
		const skill = await trustSkill(store, values.skill, values.untrust === true, io);
		return { exitCode: 0, data: { store: file, workspaces: store.list(), skill } };
	}
	const path = resolve(io.cwd, positionals[0] ?? ".");
	if (values.untrust) await store.untrust(path);
	else await store.trust(path);
	return { exitCode: 0, data: { store: file, changed: { path, trusted: !values.untrust }, workspaces: store.list() } };
}

/** What changed, or the list. */
export function render(data: TrustResult, style: Style): string {
	if (data.skill) return renderSkillTrust(data.skill, style);
	if (data.changed) return `${data.changed.trusted ? "trusted" : style.yellow("untrusted")}: ${data.changed.path}\n`;
	if (data.workspaces.length === 0) return `No workspaces in ${data.store}\n`;
	return `${data.workspaces.map((w) => `${w.trusted ? "trusted  " : "untrusted"}  ${w.path}  ${style.dim(w.at)}`).join("\n")}\n`;
}
