import { isAbsolute } from "node:path";
import type { LockedSkill } from "../runtime/index.ts";
import { isValidSkillName } from "../skill/index.ts";
import { SourceError } from "./errors.ts";
import { checkCommitId, checkGitRefShape, checkGitUrl } from "./git-values.ts";
import { checkSubpath, type SourceSpec } from "./source.ts";
import { archiveKindOf } from "./unpack.ts";

/** How to fetch an installed skill again: the source, and the skill's folder inside what is fetched. */
export interface LockedFetch {
	spec: SourceSpec;
	/** The skill's folder below the staged source ("" for its root). */
	path: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Reads an installed skill's lock entry as untrusted input (a cloned repository ships its lock): its name, folder
 * path, and every source value (type, URL, ref, commit, sub-folder, digest) are checked as strictly as a user's
 * own text is by `parseSource`, before anything is fetched or run on its behalf. Throws `lock.invalid`.
 */
export function lockedFetch(name: string, skill: LockedSkill): LockedFetch {
	const refuse = (what: string) =>
		new SourceError("lock.invalid", `the lock entry of ${JSON.stringify(name)}: ${what}`);
	if (!isValidSkillName(name)) throw refuse("its name is not a skill name");
	checkSubpath(skill.path, "lock.invalid");
	const source = skill.source;
	if (typeof source !== "object" || source === null) throw refuse("it has no source");
	const { type, url, ref, commit, subpath, digest } = source;
	if (digest !== undefined && (typeof digest !== "string" || !DIGEST.test(digest))) throw refuse("its digest");
	if (commit !== undefined) checkCommitId(commit, "lock.invalid");
	if (type !== "git" && ref !== undefined) throw refuse(`a ${type} source has no ref`);
	if ((type === "index" || type === "dir") && subpath !== undefined) throw refuse(`a ${type} source has no subpath`);
	const inside = subpath === undefined ? undefined : checkSubpath(subpath, "lock.invalid");
	if (type === "git") {
		const spec: SourceSpec = { kind: "git", url: checkGitUrl(url, "lock.invalid") };
		if (ref !== undefined) spec.ref = checkGitRefShape(ref, "lock.invalid");
		if (inside) spec.subpath = inside;
		return { spec, path: "" };
	}
	if (type === "archive") {
		const parsed = fetchableUrl(url, refuse);
		if (!archiveKindOf(parsed.pathname)) throw refuse("its archive URL does not end in .tar.gz, .tgz or .zip");
		return { spec: { kind: "archive", url: parsed }, path: inside ?? "" };
	}
	if (type === "index") return { spec: { kind: "index", url: fetchableUrl(url, refuse) }, path: name };
	if (type === "dir") {
		if (typeof url !== "string" || !isAbsolute(url) || CONTROL.test(url))
			throw refuse("its folder is not an absolute path");
		return { spec: { kind: "dir", path: url }, path: "" };
	}
	throw refuse(`its source type ${JSON.stringify(type)} is not git, archive, index or dir`);
}

/** An `https:`, `http:` or absolute `file:` URL, as `parseSource` takes them. */
function fetchableUrl(url: unknown, refuse: (what: string) => SourceError): URL {
	if (typeof url !== "string" || CONTROL.test(url)) throw refuse("its URL");
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw refuse("its URL is not a URL");
	}
	const web = parsed.protocol === "https:" || parsed.protocol === "http:";
	if (!web && !(parsed.protocol === "file:" && parsed.hostname === "")) {
		throw refuse(`its URL is ${parsed.protocol} (https, http and file are fetched)`);
	}
	return parsed;
}
