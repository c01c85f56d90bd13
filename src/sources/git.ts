import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { SourceError } from "./errors.ts";

/** A checked-out repository: its folder and the commit it holds. */
export interface GitCheckout {
	dir: string;
	commit: string;
}

// Nothing from the repository may run: no hooks (post-checkout runs on clone), no submodules, links checked out as
// plain files, no fsmonitor, and no prompt for credentials that would hang a non-interactive run.
const SAFE_CONFIG = [
	"-c",
	"core.hooksPath=/dev/null",
	"-c",
	"core.symlinks=false",
	"-c",
	"core.fsmonitor=false",
	"-c",
	"submodule.recurse=false",
	"-c",
	"protocol.file.allow=always",
	"-c",
	"advice.detachedHead=false",
];

/**
 * Fetches one commit of `url` (a branch, tag or commit id as `ref`; the default branch without) into the empty
 * folder `dir`, shallow, with the `git` program and a deadline for every step.
 */
export async function checkoutRepository(
	url: string,
	ref: string | undefined,
	dir: string,
	timeoutMs: number,
): Promise<GitCheckout> {
	await git(["init", "--quiet", dir], undefined, timeoutMs);
	await git(["remote", "add", "origin", url], dir, timeoutMs);
	await git(
		["fetch", "--quiet", "--depth", "1", "--no-tags", "--no-recurse-submodules", "origin", ref ?? "HEAD"],
		dir,
		timeoutMs,
	);
	await git(["checkout", "--quiet", "--detach", "FETCH_HEAD"], dir, timeoutMs);
	const commit = (await git(["rev-parse", "HEAD"], dir, timeoutMs)).trim();
	// The repository's own metadata is not part of any skill in it.
	await rm(join(dir, ".git"), { recursive: true, force: true });
	return { dir, commit };
}

/** The commit `ref` (default: HEAD) points to on the remote now, without fetching content; undefined if none. */
export async function remoteCommit(
	url: string,
	ref: string | undefined,
	timeoutMs: number,
): Promise<string | undefined> {
	if (ref && /^[0-9a-f]{40}$/i.test(ref)) return ref.toLowerCase();
	const out = await git(["ls-remote", url, ref ?? "HEAD"], undefined, timeoutMs);
	const lines = out
		.split("\n")
		.filter(Boolean)
		.map((line) => line.split("\t"));
	// A tag's peeled commit (`refs/tags/v1^{}`) is the commit; prefer it over the tag object.
	const peeled = lines.find(([, name]) => name?.endsWith("^{}"));
	return (peeled ?? lines[0])?.[0];
}

function git(args: readonly string[], cwd: string | undefined, timeoutMs: number): Promise<string> {
	const env = { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "", GIT_CONFIG_NOSYSTEM: "1" };
	return new Promise((resolve, reject) => {
		execFile(
			"git",
			[...SAFE_CONFIG, ...args],
			{ cwd, env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 4 << 20 },
			(error, stdout, stderr) => {
				if (!error) return resolve(stdout);
				if ((error as NodeJS.ErrnoException).code === "ENOENT") {
					return reject(new SourceError("source.git", "git is not installed (it is needed for git sources)"));
				}
				if (error.killed)
					return reject(new SourceError("source.timeout", `git ${args[0]} took longer than ${timeoutMs} ms`));
				const detail = stderr.trim().split("\n").at(-1) ?? error.message;
				reject(new SourceError("source.git", `git ${args[0]} failed: ${detail}`));
			},
		);
	});
}
