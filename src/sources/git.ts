import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SourceError, type SourceErrorCode } from "./errors.ts";
import { checkGitRefShape, checkGitUrl } from "./git-values.ts";

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
	"advice.detachedHead=false",
];

// The transports git may use, whatever any config says: none that runs a program (`ext::`) or reads a descriptor
// (`fd::`). This overrides every `protocol.*.allow` setting.
const ALLOWED_PROTOCOLS = "https:http:ssh:file";

// The user's own preferences for reaching a server (ssh program, TLS, proxies, tracing) are kept; everything else
// named GIT_* is dropped: an inherited GIT_DIR or GIT_WORK_TREE (skillset run from a hook) would point git at
// another repository, and GIT_CONFIG_* would add configuration behind the settings above.
const KEPT_GIT_VARIABLES = /^GIT_(SSH|SSH_COMMAND|SSH_VARIANT|SSL_\w+|HTTP_\w+|PROXY_\w+|TRACE\w*|CURL_VERBOSE)$/;

/**
 * Fetches one commit of `url` (a branch, tag or commit id as `ref`; the default branch without) into the folder
 * `dir` (which must not exist; its parent is a fresh private folder), shallow, with the `git` program and a
 * deadline for every step. The URL and ref are checked first (`source.invalid`); options and operands are separated
 * in every call. The fetched tree is measured before it is checked out: more than `maxBytes` in all or
 * {@link MAX_CHECKOUT_FILES} files is refused (`source.too-large`), so a small pack cannot expand into a full disk.
 */
export async function checkoutRepository(
	url: string,
	ref: string | undefined,
	dir: string,
	timeoutMs: number,
	maxBytes: number = DEFAULT_CHECKOUT_BYTES,
): Promise<GitCheckout> {
	const scratch = dirname(dir);
	const source = checkGitUrl(url, "source.invalid");
	const wanted = ref === undefined ? "HEAD" : await checkGitRef(ref, "source.invalid", timeoutMs, scratch);
	await git(["init", "--quiet", "--template=", "--", dir], scratch, timeoutMs);
	const fetch = ["fetch", "--quiet", "--depth", "1", "--no-tags", "--no-recurse-submodules"];
	await git([...fetch, "--end-of-options", source, wanted], dir, timeoutMs);
	await checkTreeSize(dir, timeoutMs, maxBytes);
	await git(["checkout", "--quiet", "--detach", "FETCH_HEAD"], dir, timeoutMs);
	const commit = (await git(["rev-parse", "--verify", "HEAD^{commit}"], dir, timeoutMs)).trim();
	// The repository's own metadata is not part of any skill in it.
	await rm(join(dir, ".git"), { recursive: true, force: true });
	return { dir, commit };
}

/** The largest checkout by default (256 MiB), and the most files one may hold. */
export const DEFAULT_CHECKOUT_BYTES: number = 256 << 20;
export const MAX_CHECKOUT_FILES = 20_000;

/** Sums the blob sizes of the fetched tree (`git ls-tree -r -l`), refusing a tree over the caps before checkout. */
async function checkTreeSize(dir: string, timeoutMs: number, maxBytes: number): Promise<void> {
	const listing = await git(["ls-tree", "-r", "-l", "-z", "--full-tree", "FETCH_HEAD"], dir, timeoutMs, 64 << 20);
	let total = 0;
	let count = 0;
	for (const entry of listing.split("\0")) {
		if (entry === "") continue;
		count++;
		const size = Number(entry.slice(0, entry.indexOf("\t")).trim().split(/\s+/)[3]);
		if (Number.isFinite(size)) total += size;
		if (count > MAX_CHECKOUT_FILES || total > maxBytes) {
			throw new SourceError(
				"source.too-large",
				`the repository holds more than ${count > MAX_CHECKOUT_FILES ? `${MAX_CHECKOUT_FILES} files` : `${maxBytes} bytes`}`,
			);
		}
	}
}

/** The commit `ref` (default: HEAD) points to on the remote now, without fetching content; undefined if none. */
export async function remoteCommit(
	url: string,
	ref: string | undefined,
	timeoutMs: number,
): Promise<string | undefined> {
	const source = checkGitUrl(url, "source.invalid");
	if (ref && /^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(ref)) return ref.toLowerCase();
	// git runs in a fresh empty folder: never inside a repository whose config it would read.
	const scratch = await mkdtemp(join(tmpdir(), "skillset-git-"));
	try {
		const wanted = ref === undefined ? "HEAD" : await checkGitRef(ref, "source.invalid", timeoutMs, scratch);
		const out = await git(["ls-remote", "--end-of-options", source, wanted], scratch, timeoutMs);
		const lines = out
			.split("\n")
			.filter(Boolean)
			.map((line) => line.split("\t"));
		// A tag's peeled commit (`refs/tags/v1^{}`) is the commit; prefer it over the tag object.
		const peeled = lines.find(([, name]) => name?.endsWith("^{}"));
		return (peeled ?? lines[0])?.[0];
	} finally {
		await rm(scratch, { recursive: true, force: true });
	}
}

/**
 * Returns `ref` when it is a ref name (or commit id) git accepts: first its shape (never an option or a refspec),
 * then `git check-ref-format --allow-onelevel`. Throws `code` otherwise.
 */
export async function checkGitRef(ref: string, code: SourceErrorCode, timeoutMs: number, cwd: string): Promise<string> {
	checkGitRefShape(ref, code);
	try {
		await git(["check-ref-format", "--allow-onelevel", ref], cwd, timeoutMs);
	} catch (error) {
		if (error instanceof SourceError && error.message.startsWith("git check-ref-format failed")) {
			throw new SourceError(code, `${JSON.stringify(ref)} is not a git ref (git check-ref-format refuses it)`);
		}
		throw error;
	}
	return ref;
}

/** The environment git runs with: the user's, without repository-locating or config-adding GIT_* variables. */
function gitEnvironment(cwd: string): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (!name.startsWith("GIT_") || KEPT_GIT_VARIABLES.test(name)) env[name] = value;
	}
	return {
		...env,
		GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
		GIT_TERMINAL_PROMPT: "0",
		GIT_ASKPASS: "",
		SSH_ASKPASS: "",
		GIT_CONFIG_NOSYSTEM: "1",
		// A user's git-lfs would fetch from a server the repository's .lfsconfig names while checking out.
		GIT_LFS_SKIP_SMUDGE: "1",
		// git never looks above the private folder it works in for a repository (a planted `/tmp/.git`, say).
		GIT_CEILING_DIRECTORIES: dirname(cwd),
	};
}

function git(args: readonly string[], cwd: string, timeoutMs: number, maxBuffer = 4 << 20): Promise<string> {
	return new Promise((resolve, reject) => {
		execFile(
			"git",
			[...SAFE_CONFIG, ...args],
			{ cwd, env: gitEnvironment(cwd), timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer },
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
