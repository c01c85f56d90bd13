import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkRelativePath } from "../runtime/index.ts";
import { SourceError, type SourceErrorCode } from "./errors.ts";
import { checkGitRefShape, checkGitUrl } from "./git-values.ts";
import { archiveKindOf } from "./unpack.ts";

/** Where skills come from, once the user's text is understood. */
export type SourceSpec =
	| { kind: "dir"; path: string }
	| { kind: "git"; url: string; ref?: string; subpath?: string }
	| { kind: "archive"; url: URL }
	| { kind: "index"; url: URL };

const GIT_HOSTS: ReadonlySet<string> = new Set(["github.com", "gitlab.com", "codeberg.org", "bitbucket.org"]);
const SHORTHAND = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)((?:\/[^@#\s]+)*)(?:@([^\s]+))?$/;

/**
 * Reads a SOURCE as `skillset add` takes it: a local folder or archive; a git URL (`https:` ending in `.git` or on a
 * known git host, `ssh:`, `git@host:path`, a `file:` URL or path of a repository, bare or not) with `#ref`; `owner/repo[/path][@ref]` for GitHub;
 * an archive URL (`.tar.gz`, `.tgz`, `.zip`); any other `http(s):`/`file:` URL is a well-known index origin.
 */
export function parseSource(text: string, cwd: string): SourceSpec {
	const source = text.trim();
	if (source === "") throw new SourceError("source.invalid", "the source is empty");
	if (/^git@[^:]+:/.test(source) || source.startsWith("ssh://") || source.startsWith("git+")) {
		return gitSpec(source.replace(/^git\+/, ""));
	}
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return urlSpec(source);
	const local = resolve(cwd, source);
	if (existsSync(local)) return localSpec(local);
	const short = SHORTHAND.exec(source);
	if (short && !isAbsolute(source) && !source.startsWith(".")) {
		const [, owner, repo, path, ref] = short;
		const subpath = path ? checkSubpath(path.slice(1), "source.invalid") : undefined;
		return {
			kind: "git",
			url: checkGitUrl(`https://github.com/${owner}/${repo?.replace(/\.git$/, "")}.git`, "source.invalid"),
			...(ref ? { ref: checkGitRefShape(ref, "source.invalid") } : {}),
			...(subpath ? { subpath } : {}),
		};
	}
	throw new SourceError("source.not-found", `${source} is not a folder, archive, URL or owner/repo`);
}

function urlSpec(source: string): SourceSpec {
	let url: URL;
	try {
		url = new URL(source);
	} catch {
		throw new SourceError("source.invalid", `${source} is not a valid URL`);
	}
	if (url.protocol === "file:") {
		const hash = url.hash.slice(1);
		url.hash = "";
		return localSpec(fileURLToPath(url), { ref: decodeURIComponent(hash) });
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") {
		throw new SourceError("source.invalid", `${url.protocol} sources are not supported`);
	}
	if (archiveKindOf(url.pathname)) return { kind: "archive", url };
	if (url.pathname.endsWith(".git") || url.hash || GIT_HOSTS.has(url.hostname)) return gitSpec(source);
	return { kind: "index", url };
}

function localSpec(named: string, fromUrl?: { ref: string }): SourceSpec {
	if (!existsSync(named)) throw new SourceError("source.not-found", `${named} does not exist`);
	// Links in the path the user named are theirs to choose; every read below it is contained (no link followed).
	const file = realpathSync(named);
	const stats = statSync(file);
	if (stats.isFile()) {
		if (archiveKindOf(file)) return { kind: "archive", url: pathToFileURL(file) };
		if (file.endsWith(".json")) return { kind: "index", url: pathToFileURL(file) };
		throw new SourceError("source.invalid", `${file} is a file but not a .tar.gz, .tgz or .zip archive`);
	}
	if (!stats.isDirectory()) throw new SourceError("source.invalid", `${file} is not a folder or a file`);
	if (existsSync(join(file, ".well-known", "agent-skills", "index.json")))
		return { kind: "index", url: pathToFileURL(`${file}/`) };
	// A repository, bare or not, named by a `file:` URL or a path, is a git source: a commit is recorded, and only
	// committed files come (a bare one has no files on disk at all). Any other folder is copied.
	if (isGitRepository(file)) {
		const ref = fromUrl?.ref ? checkGitRefShape(fromUrl.ref, "source.invalid") : undefined;
		return { kind: "git", url: pathToFileURL(file).href, ...(ref ? { ref } : {}) };
	}
	return { kind: "dir", path: file };
}

/**
 * Whether `dir` is a repository, read from its shape only (git is not run on it before the hardened clone): a bare
 * repository's `HEAD` file beside its `objects/` and `refs/` folders, in `dir` itself or in its `.git` folder, or a
 * `.git` file (a linked worktree). A folder with a stray `.git/hooks` is not one: it is copied, and audited as such.
 */
function isGitRepository(dir: string): boolean {
	const git = lstatSync(join(dir, ".git"), { throwIfNoEntry: false });
	if (git?.isFile()) return true;
	return hasRepositoryShape(dir) || (git?.isDirectory() === true && hasRepositoryShape(join(dir, ".git")));
}

function hasRepositoryShape(dir: string): boolean {
	const kind = (name: string) => lstatSync(join(dir, name), { throwIfNoEntry: false });
	return Boolean(kind("HEAD")?.isFile() && kind("objects")?.isDirectory() && kind("refs")?.isDirectory());
}

function gitSpec(source: string): SourceSpec {
	const hash = source.indexOf("#");
	const url = checkGitUrl(hash < 0 ? source : source.slice(0, hash), "source.invalid");
	const ref = hash < 0 ? "" : source.slice(hash + 1);
	return { kind: "git", url, ...(ref ? { ref: checkGitRefShape(ref, "source.invalid") } : {}) };
}

/** Returns `path` when it is a plain relative folder path (no `..`, not absolute, no NUL). Throws `code` otherwise. */
export function checkSubpath(path: unknown, code: SourceErrorCode): string {
	const segments = checkRelativePath(path);
	if (!Array.isArray(segments)) throw new SourceError(code, `${JSON.stringify(path)}: ${segments.message}`);
	return segments.join("/");
}
