import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SourceError } from "./errors.ts";
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
 * known git host, `ssh:`, `git@host:path`, `file:` of a repository) with `#ref`; `owner/repo[/path][@ref]` for GitHub;
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
		const subpath = path ? path.slice(1) : undefined;
		return {
			kind: "git",
			url: `https://github.com/${owner}/${repo?.replace(/\.git$/, "")}.git`,
			...(ref ? { ref } : {}),
			...(subpath ? { subpath } : {}),
		};
	}
	throw new SourceError("source.not-found", `${source} is not a folder, archive, URL or owner/repo`);
}

function urlSpec(source: string): SourceSpec {
	const url = new URL(source);
	if (url.protocol === "file:") return localSpec(fileURLToPath(url), { ref: decodeURIComponent(url.hash.slice(1)) });
	if (url.protocol !== "https:" && url.protocol !== "http:") {
		throw new SourceError("source.invalid", `${url.protocol} sources are not supported`);
	}
	if (archiveKindOf(url.pathname)) return { kind: "archive", url };
	if (url.pathname.endsWith(".git") || url.hash || GIT_HOSTS.has(url.hostname)) return gitSpec(source);
	return { kind: "index", url };
}

function localSpec(file: string, fromUrl?: { ref: string }): SourceSpec {
	if (!existsSync(file)) throw new SourceError("source.not-found", `${file} does not exist`);
	const stats = statSync(file);
	if (stats.isFile()) {
		if (archiveKindOf(file)) return { kind: "archive", url: pathToFileURL(file) };
		if (file.endsWith(".json")) return { kind: "index", url: pathToFileURL(file) };
		throw new SourceError("source.invalid", `${file} is a file but not a .tar.gz, .tgz or .zip archive`);
	}
	if (!stats.isDirectory()) throw new SourceError("source.invalid", `${file} is not a folder or a file`);
	if (existsSync(join(file, ".well-known", "agent-skills", "index.json")))
		return { kind: "index", url: pathToFileURL(`${file}/`) };
	// A `file:` URL of a repository is a git source (a commit is recorded); a plain path is a folder copy.
	if (fromUrl && existsSync(join(file, ".git"))) {
		return { kind: "git", url: pathToFileURL(file).href, ...(fromUrl.ref ? { ref: fromUrl.ref } : {}) };
	}
	return { kind: "dir", path: file };
}

function gitSpec(source: string): SourceSpec {
	const hash = source.indexOf("#");
	const url = hash < 0 ? source : source.slice(0, hash);
	const ref = hash < 0 ? "" : source.slice(hash + 1);
	if (ref.startsWith("-") || /\s/.test(ref)) throw new SourceError("source.invalid", `'${ref}' is not a git ref`);
	return { kind: "git", url, ...(ref ? { ref } : {}) };
}
