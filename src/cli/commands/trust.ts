import { resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { defaultTrustFile, loadTrustStore } from "../../policy/index.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	untrust: { type: "boolean", default: false },
	list: { type: "boolean", default: false },
	store: { type: "string" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset trust [DIR] [options]

Trust the workspace DIR (default: the current folder): its skills may then reach the catalog when discovery
consults the trust store (--trust-store). The store is a per-user file, written atomically.

Options:
  --untrust                  record DIR as untrusted instead
  --list                     list the trusted and untrusted workspaces
  --store FILE               the store (default: $SKILLSET_TRUST_FILE, else ~/.config/skillset/trust.json)
  --json                     print the result as JSON`;

/** The store's entries after the change. */
export interface TrustResult {
	store: string;
	changed?: { path: string; trusted: boolean };
	workspaces: { path: string; trusted: boolean; at: string }[];
}

/** Trusts, untrusts or lists. */
export async function run(
	values: { untrust?: boolean; list?: boolean; store?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<TrustResult>> {
	if (positionals.length > 1) throw new UsageError("trust takes at most one DIR");
	const file = values.store ? resolve(io.cwd, values.store) : (io.env.SKILLSET_TRUST_FILE ?? defaultTrustFile(io.env));
	const store = await loadTrustStore(file).catch((error: Error) => {
		throw new UsageError(error.message);
	});
	if (values.list) return { exitCode: 0, data: { store: file, workspaces: store.list() } };
	const path = resolve(io.cwd, positionals[0] ?? ".");
	if (values.untrust) await store.untrust(path);
	else await store.trust(path);
	return { exitCode: 0, data: { store: file, changed: { path, trusted: !values.untrust }, workspaces: store.list() } };
}

/** What changed, or the list. */
export function render(data: TrustResult, style: Style): string {
	if (data.changed) return `${data.changed.trusted ? "trusted" : style.yellow("untrusted")}: ${data.changed.path}\n`;
	if (data.workspaces.length === 0) return `No workspaces in ${data.store}\n`;
	return `${data.workspaces.map((w) => `${w.trusted ? "trusted  " : "untrusted"}  ${w.path}  ${style.dim(w.at)}`).join("\n")}\n`;
}
