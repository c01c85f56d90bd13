import { codePointLength } from "../skill/index.ts";
import type { CatalogEntry } from "./render.ts";

/** The ellipsis that ends a cut description (and joins the parts of one cut in the middle). */
export const ELLIPSIS = "…";

/** Cuts `text` to at most `max` code points at a word boundary, ending in an ellipsis; unchanged when short. */
export function cutAtWord(text: string, max: number): string {
	if (codePointLength(text) <= max) return text;
	const points = [...text].slice(0, Math.max(0, max - 1));
	const head = points.join("");
	const boundary = head.search(/\s+\S*$/);
	const cut = boundary > 0 ? head.slice(0, boundary) : head;
	return `${cut.trimEnd()}${ELLIPSIS}`;
}

/** The entry with its description cut to `max` code points (itself when it is short enough). */
export function capDescription(entry: CatalogEntry, max: number): CatalogEntry {
	const description = cutAtWord(entry.description, max);
	return description === entry.description ? entry : { ...entry, description };
}

/** For each kept entry whose description was cut: how many code points of the original it lost. */
export function truncationsOf(
	original: readonly CatalogEntry[],
	kept: readonly CatalogEntry[],
): { name: string; droppedChars: number }[] {
	return kept.flatMap((entry, index) => {
		const before = original[index]?.description ?? "";
		if (entry.description === before) return [];
		// The kept text without the marks of the cut: ` … ` between kept parts, `…` at the end.
		const joined = entry.description.replaceAll(` ${ELLIPSIS} `, " ");
		const keptChars = codePointLength(joined.endsWith(ELLIPSIS) ? joined.slice(0, -1) : joined);
		return [{ name: entry.name, droppedChars: Math.max(0, codePointLength(before) - keptChars) }];
	});
}
