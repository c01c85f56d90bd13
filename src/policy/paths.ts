import { lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { SkillsetError } from "../skill/index.ts";

const MAX_LINKS = 40;

/**
 * Where `path` (relative to `base`) really leads, the way the kernel walks it: one component at a time, following
 * every link — dangling ones included — before a later `..` is applied, so `link/../x` is the sibling of the link's
 * target, not of the link. Names past the last existing component are appended as they are. Throws
 * `SkillsetError` `invalid-argument` on a link loop.
 */
export function resolvePath(base: string, path: string): string {
	const pending = components(isAbsolute(path) ? path : `${base}/${path}`);
	let current = "/";
	let links = 0;
	while (pending.length > 0) {
		const name = pending.shift() as string;
		if (name === "..") {
			current = dirname(current);
			continue;
		}
		const next = join(current, name);
		const target = linkTarget(next);
		if (target === undefined) {
			current = next;
			continue;
		}
		if (++links > MAX_LINKS) throw new SkillsetError("invalid-argument", `too many links resolving ${path}`);
		pending.unshift(...components(target));
		if (isAbsolute(target)) current = "/";
	}
	return current;
}

/** The real path of `path`: every link on the way resolved (see {@link resolvePath}), missing names appended. */
export function realOrResolved(path: string): string {
	return resolvePath(process.cwd(), path);
}

function components(path: string): string[] {
	return path.split("/").filter((part) => part !== "" && part !== ".");
}

// A link's target, or undefined for anything that is not a link (or does not exist).
function linkTarget(path: string): string | undefined {
	try {
		if (!lstatSync(path).isSymbolicLink()) return undefined;
		return readlinkSync(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return undefined;
		throw error;
	}
}
