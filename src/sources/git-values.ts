import { SourceError, type SourceErrorCode } from "./errors.ts";

// The values that reach git's argv (a URL and a ref) come from a user's text or from a lock file, which a cloned
// repository can ship. Each is checked here, whole, before git sees it: no value can start with `-` (an option),
// name a transport that runs a program (`ext::`, `fd::`, any `helper::`), or hide an ssh option in a host or user.

const MAX_URL_CHARS = 2048;
const MAX_REF_CHARS = 255;
// Control characters, spaces, and what git refuses in a ref name (`git check-ref-format`).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const REF_FORBIDDEN = /[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\/|\/\.|\.lock(\/|$)|^[./]|^@$|[./]$/;
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
// `user@host:path` (scp-like ssh): a plain user and host name, and a path that is not an option either.
const SCP_LIKE = /^([A-Za-z0-9_][A-Za-z0-9._~-]*)@([A-Za-z0-9][A-Za-z0-9.-]*):(?!-)([^\s]+)$/;

/**
 * Returns `url` when it is a git URL skillset fetches from: `https:`, `http:`, `ssh:` (host and user plain names,
 * never an option), `file:` of an absolute path, or scp-like `user@host:path`. Throws `code` otherwise.
 */
export function checkGitUrl(url: unknown, code: SourceErrorCode): string {
	const refuse = (why: string) =>
		new SourceError(code, `${JSON.stringify(url)} is not a git URL skillset uses: ${why}`);
	if (typeof url !== "string" || url === "") throw refuse("it is empty");
	if (url.length > MAX_URL_CHARS) throw refuse(`it is longer than ${MAX_URL_CHARS} characters`);
	if (CONTROL_OR_SPACE.test(url)) throw refuse("it holds a space or a control character");
	if (url.startsWith("-")) throw refuse("it starts with '-'");
	const scp = SCP_LIKE.exec(url);
	if (scp) return url;
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw refuse("use https://, ssh://, file:// or user@host:path");
	}
	const { protocol, hostname } = parsed;
	if (protocol === "file:") {
		if (hostname !== "" || !parsed.pathname.startsWith("/")) throw refuse("a file: URL names an absolute local path");
		return url;
	}
	if (protocol !== "https:" && protocol !== "http:" && protocol !== "ssh:") {
		throw refuse(`the ${protocol} transport is not used (https, http, ssh and file are)`);
	}
	if (!/^[A-Za-z0-9[]/.test(hostname)) throw refuse("its host is not a host name");
	if (parsed.username && !/^[A-Za-z0-9_]/.test(decodeURIComponent(parsed.username))) {
		throw refuse("its user name is not a plain name");
	}
	return url;
}

/**
 * Returns `ref` when it has the shape of a git ref name or commit id (`main`, `v1.2.0`, `release/2026-01`, a hex
 * id): never an option or a refspec, and nothing `git check-ref-format` refuses. Throws `code` otherwise.
 */
export function checkGitRefShape(ref: unknown, code: SourceErrorCode): string {
	const refuse = (why: string) => new SourceError(code, `${JSON.stringify(ref)} is not a git ref: ${why}`);
	if (typeof ref !== "string" || ref === "") throw refuse("it is empty");
	if (ref.length > MAX_REF_CHARS) throw refuse(`it is longer than ${MAX_REF_CHARS} characters`);
	if (ref.startsWith("-") || ref.startsWith("+")) throw refuse(`it starts with '${ref[0]}'`);
	if (REF_FORBIDDEN.test(ref)) throw refuse("it holds what a ref name cannot (see git check-ref-format)");
	return ref;
}

/** Returns `commit` when it is a full commit id (40 or 64 lowercase hex digits). Throws `code` otherwise. */
export function checkCommitId(commit: unknown, code: SourceErrorCode): string {
	if (typeof commit !== "string" || !COMMIT.test(commit)) {
		throw new SourceError(code, `${JSON.stringify(commit)} is not a full commit id`);
	}
	return commit;
}

/** A git URL as it may be recorded in a lock file: without a password (a lock is committed and shared). */
export function withoutPassword(url: string): string {
	if (!/^[a-z+]+:\/\//i.test(url)) return url;
	try {
		const parsed = new URL(url);
		if (!parsed.password) return url;
		parsed.password = "";
		return parsed.href;
	} catch {
		return url;
	}
}
