// A second public entry of the `discovery/` stage (beside index.ts): only `catalog` and `mcp` keep derived values,
// so a scan does not load this (start-up pays for every module).

import { createHash } from "node:crypto";
import { join } from "node:path";
import { codeStamp, readKept, usableFolder, writeKept } from "./index-file.ts";

export { type ResultName, resultDigestOf, resultNameOf } from "./result-digest.ts";

// Values a later stage derives from discovery's results (the fitted catalog of an index), kept beside the index
// in `<cacheDir>/<kind>/` with the index's file rules: no links, ours, writable by no one else, a digest over the
// content, written whole. A value is found only by a key that names every input it was made from, so it never
// depends on when the inputs were read: a changed input is a different key.

const KIND = /^[a-z][a-z-]{0,31}$/;

/**
 * The key of a derived value: a digest of the code stamp (with the deriving stage's `codeFolder`) and `inputs`,
 * or undefined when an input is not plain data JSON carries unchanged (a function, a non-finite number). `plain`
 * are further inputs the caller has checked to be such data; they are not checked value by value again, and the
 * key is the one they would give as part of `inputs`.
 */
export function derivedKey(
	codeFolder: string,
	inputs: readonly unknown[],
	plain: readonly unknown[] = [],
): string | undefined {
	let stamp: string;
	try {
		stamp = codeStamp([codeFolder]);
	} catch {
		return undefined;
	}
	let checked = true;
	const text = JSON.stringify([stamp, ...inputs], (_key, value: unknown) => {
		const type = typeof value;
		if (type === "function" || type === "symbol" || type === "bigint") checked = false;
		if (type === "number" && !Number.isFinite(value as number)) checked = false;
		return value;
	});
	if (!checked) return undefined;
	const hash = createHash("sha256");
	if (plain.length === 0) return hash.update(text).digest("hex");
	// The text of `[stamp, ...inputs, ...plain]`, without making it as one string.
	const rest = JSON.stringify(plain);
	return hash.update(text.slice(0, -1)).update(",").update(rest.slice(1)).digest("hex");
}

/**
 * The value saved under `key` in `<cacheDir>/<kind>/`, with `tail` the text saved after it as it is (see
 * {@link writeDerived}; without `tail`, a file with a text after its value is refused),
 * and when it was written (its file's mtime, for the racy-git rule), or undefined when there is none or it cannot
 * be trusted.
 */
export function readDerived(
	cacheDir: string,
	kind: string,
	key: string,
	options: { tail?: boolean } = {},
): { value: unknown; tail?: string; mtimeMs: number } | undefined {
	const folder = derivedFolder(cacheDir, kind);
	const read = folder === undefined ? undefined : readKept(folder, key);
	if (!read) return undefined;
	// JSON text holds no raw line break: the first one ends the value, and the tail follows it.
	const split = read.text.indexOf("\n");
	// Only a kind that keeps a text asks for one: any other value is the whole file, as it was written.
	if (split !== -1 && options.tail !== true) return undefined;
	try {
		const saved = JSON.parse(split === -1 ? read.text : read.text.slice(0, split)) as {
			key?: unknown;
			value?: unknown;
		};
		if (saved?.key !== key) return undefined;
		const found = { value: saved.value, mtimeMs: read.mtimeMs };
		return split === -1 ? found : { ...found, tail: read.text.slice(split + 1) };
	} catch {
		return undefined;
	}
}

/**
 * Saves `value` under `key`, and `tail` after it as it is: a large text (a 10k-skill catalog's is 3 MB) read back as
 * a part of the file's text, neither escaped nor parsed into a copy. A failed write only costs the next run its speed.
 */
export function writeDerived(cacheDir: string, kind: string, key: string, value: unknown, tail?: string): void {
	const folder = derivedFolder(cacheDir, kind);
	const text = () =>
		tail === undefined ? JSON.stringify({ key, value }) : `${JSON.stringify({ key, value })}\n${tail}`;
	if (folder) writeKept(folder, key, text, Date.now());
}

/** The checked folder of `kind`, or undefined when it cannot be used. */
function derivedFolder(cacheDir: string, kind: string): string | undefined {
	return KIND.test(kind) ? usableFolder(join(cacheDir, kind)) : undefined;
}
