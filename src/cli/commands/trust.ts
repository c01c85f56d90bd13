import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, parse, relative, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { defaultTrustFile, loadTrustStore } from "../../policy/index.ts";
import { homeFrom } from "../../settings/index.ts";
import { trustFileFor } from "../discovery-flags.ts";
import { confirm } from "../install-flags.ts";
import { type CliIo, type CommandResult, type Rendered, type Style, UsageError } from "../io.ts";
import { terminalSafe } from "../terminal-text.ts";
import { renderSkillGrant, renderSkillTrust, type SkillTrustChange, trustSkill } from "../trust-skill.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	untrust: { type: "boolean", default: false },
	list: { type: "boolean", default: false },
	store: { type: "string" },
	force: { type: "boolean", default: false },
	skill: { type: "string" },
	yes: { type: "boolean", short: "y", default: false },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset trust [DIR] [options]

Trust the workspace DIR (default: the current folder): its skills may then reach the catalog when discovery
consults the trust store (--trust-store). The store is a per-user file, written atomically.

Options:
  --untrust                  record DIR as untrusted instead
  --list                     list the trusted and untrusted workspaces (with DIR: the entries that cover DIR)
  --force                    trust / or the home folder (every workspace below it) anyway
  --list                     list the trusted and untrusted workspaces
  --skill NAME@ORIGIN        approve a remote skill (NAME@mcp:LABEL, NAME@index:LABEL) as cached now, bound to
                             every file and digest; any change revokes it. Shows what it grants and asks
                             first (no terminal: needs --yes). With --untrust: revoke the approval
  -y, --yes                  with --skill: approve without asking
  --store FILE               the store (default: $SKILLSET_TRUST_FILE, else ~/.config/skillset/trust.json)
  --json                     print the result as JSON

Exit status: 0 done, 1 refused (DIR does not exist, / or home without --force, the store cannot be written, a
skill approval not confirmed),
2 usage error.`;

/** The store's entries after the change, or why nothing changed. */
export interface TrustResult {
	store: string;
	changed?: { path: string; trusted: boolean };
	/** With `--list DIR`: DIR and whether the store trusts it (the entries listed are the ones that cover it). */
	covers?: { path: string; trusted: boolean };
	workspaces: { path: string; trusted: boolean; at: string }[];
	refused?: string;
	/** With --skill: the approval given or revoked. */
	skill?: SkillTrustChange;
}

/** Trusts, untrusts or lists. */
export async function run(
	values: { untrust?: boolean; list?: boolean; store?: string; force?: boolean; skill?: string; yes?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<TrustResult>> {
	if (positionals.length > 1) throw new UsageError("trust takes at most one DIR");
	const home = homeFrom(io.env, homedir());
	const file = values.store ? resolve(io.cwd, values.store) : trustFileFor(io.env, defaultTrustFile);
	const store = await loadTrustStore(file).catch((error: Error) => {
		throw new UsageError(error.message);
	});
	if (values.skill !== undefined) {
		if (positionals.length > 0) throw new UsageError("trust --skill takes no DIR");
		const ask = async (change: SkillTrustChange): Promise<boolean> => {
			io.stderr(terminalSafe(renderSkillGrant(change)));
			if (values.yes) return true;
			if (!io.isTTY || !process.stdin.isTTY) {
				io.stderr("skillset: not approved: no terminal to ask; pass --yes to approve\n");
				return false;
			}
			return confirm(io, `Approve ${terminalSafe(change.name)}?`);
		};
		const skill = await trustSkill(store, values.skill, values.untrust === true, io, ask);
		return { exitCode: skill.declined ? 1 : 0, data: { store: file, workspaces: store.list(), skill } };
	}
	const path = resolve(io.cwd, positionals[0] ?? ".");
	if (values.list) {
		if (positionals[0] === undefined) return { exitCode: 0, data: { store: file, workspaces: store.list() } };
		const covering = store.list().filter((w) => w.path === path || isInside(w.path, path));
		const covers = { path, trusted: store.isTrusted(path) };
		return { exitCode: 0, data: { store: file, covers, workspaces: covering } };
	}
	const refused = await refusal(path, values, home);
	if (refused) return { exitCode: 1, data: { store: file, workspaces: store.list(), refused } };
	try {
		if (values.untrust) await store.untrust(path);
		else await store.trust(path);
	} catch (error) {
		const reason = `cannot write the trust store ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`;
		return { exitCode: 1, data: { store: file, workspaces: store.list(), refused: reason } };
	}
	return { exitCode: 0, data: { store: file, changed: { path, trusted: !values.untrust }, workspaces: store.list() } };
}

/** Why trusting `path` is refused: it does not exist, or it is / or home (everything below) without --force. */
async function refusal(path: string, values: { untrust?: boolean; force?: boolean }, home: string) {
	const info = await stat(path).catch(() => undefined);
	if (!info) return `${path} does not exist: nothing was recorded`;
	if (!info.isDirectory()) return `${path} is not a folder: trust takes a workspace folder`;
	if (values.untrust || values.force) return undefined;
	if (path === parse(path).root || path === resolve(home)) {
		return `refusing to trust ${path}: that trusts every workspace below it. Pass --force if you mean it`;
	}
	return undefined;
}

function isInside(parent: string, child: string): boolean {
	const rel = relative(parent, child);
	return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** What changed or the list on stdout; a refusal on stderr. */
export function render(data: TrustResult, style: Style): Rendered {
	if (data.refused) return { stdout: "", stderr: `skillset: ${data.refused}\n` };
	if (data.skill) return { stdout: renderSkillTrust(data.skill, style), stderr: "" };
	if (data.changed) {
		return {
			stdout: `${data.changed.trusted ? "trusted" : style.yellow("untrusted")}: ${data.changed.path}\n`,
			stderr: "",
		};
	}
	const lines = data.workspaces.map((w) => `${w.trusted ? "trusted  " : "untrusted"}  ${w.path}  ${style.dim(w.at)}`);
	if (data.covers) {
		const verdict = `${data.covers.path} is ${data.covers.trusted ? "trusted" : "not trusted"}`;
		const by = data.workspaces.length === 0 ? ": no entry in the store covers it" : ", by:";
		return { stdout: `${[`${verdict}${by}`, ...lines.map((l) => `  ${l}`)].join("\n")}\n`, stderr: "" };
	}
	if (lines.length === 0) return { stdout: `No workspaces in ${data.store}\n`, stderr: "" };
	return { stdout: `${lines.join("\n")}\n`, stderr: "" };
}
