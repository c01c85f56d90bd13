import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { checkRelativePath, isInside } from "../runtime/index.ts";
import { SourceError, type SourceErrorCode } from "./errors.ts";

/**
 * The real path of `rel` below `base`, proven to stay inside the real path of `base` once every link on the way is
 * resolved (a link that stays inside is followed, one that leads out refuses). Parts that do not exist yet are
 * joined as they are: they will be created below a proven folder. A dangling link on the way refuses too (writing
 * through it would create its target). Throws `code` when the path leaves `base`, lexically or through a link.
 */
export async function realPathInside(base: string, rel: string, code: SourceErrorCode): Promise<string> {
	const root = await realpath(base);
	const segments = rel === "" || rel === "." ? [] : checkRelativePath(rel);
	if (!Array.isArray(segments)) throw new SourceError(code, `${rel} is not a path below ${base}: ${segments.message}`);
	let current = root;
	for (const [index, segment] of segments.entries()) {
		const next = join(current, segment);
		let real = await realpath(next).catch((error: NodeJS.ErrnoException) => {
			if (error.code !== "ENOENT") throw error;
			return undefined;
		});
		if (real === undefined) {
			const info = await lstat(next).catch(() => undefined);
			if (!info) return join(next, ...segments.slice(index + 1));
			if (info.isSymbolicLink()) {
				throw new SourceError(code, `${join(base, ...segments.slice(0, index + 1))} is a link to nowhere`);
			}
			// Created meanwhile (by another install, say): resolve it now.
			real = await realpath(next);
		}
		if (real === root || !isInside(root, real)) {
			throw new SourceError(
				code,
				`${join(base, ...segments.slice(0, index + 1))} leads outside ${base} through a link (to ${real})`,
			);
		}
		current = real;
	}
	return current;
}

/** The real path of `path`: its nearest existing ancestor resolved through links, the rest joined as it is. */
export async function realPathOf(path: string): Promise<string> {
	const rest: string[] = [];
	for (let current = resolve(path); ; current = dirname(current)) {
		try {
			return join(await realpath(current), ...rest.reverse());
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOENT" || dirname(current) === current) throw error;
			rest.push(basename(current));
		}
	}
}
