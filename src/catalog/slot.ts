import { ELLIPSIS } from "./cut.ts";
import { planWords } from "./floor.ts";
import type { CatalogEntry } from "./render.ts";

/** A skill while the fitter shares room: its description as words, the order a cut keeps them, how many it keeps. */
export interface Slot {
	entry: CatalogEntry;
	/** The entry's index in the input. */
	index: number;
	/** The description's words, each with the whitespace before it (as BPE pre-tokenisers split text). */
	words: string[];
	/** Word indices in the order a cut keeps them; the first `floor` are the floor. */
	order: number[];
	/** Measured cost of each word by word index, filled on demand. */
	costs: (number | undefined)[];
	/** Words the description never goes below while the skill keeps a description. */
	floor: number;
	/** How many words of `order` are kept. */
	taken: number;
	/** Cost of the whole entry at its floor, separator included: what describing the skill costs at least. */
	base: number;
}

/** A slot for `entry` at its floor (`base` still to be measured). */
export function createSlot(entry: CatalogEntry, index: number, floorWords: number): Slot {
	const words = entry.description.match(/\s*\S+/g) ?? [];
	const { order, floor } = planWords(words, floorWords);
	return { entry, index, words, order, costs: new Array(words.length), floor, taken: floor, base: 0 };
}

/**
 * The entry with the slot's kept words as its description: runs of consecutive words joined by ` … `, and `…` at
 * the end when the last word is not kept. The entry itself when every word is kept.
 */
export function describeSlot(slot: Slot): CatalogEntry {
	if (slot.taken >= slot.words.length) return slot.entry;
	const kept = slot.order.slice(0, slot.taken).sort((a, b) => a - b);
	const runs: string[] = [];
	let run = "";
	for (const [k, i] of kept.entries()) {
		if (k > 0 && i !== (kept[k - 1] as number) + 1) {
			runs.push(run.trim());
			run = "";
		}
		run += slot.words[i] ?? "";
	}
	if (run.trim()) runs.push(run.trim());
	const text = runs.join(` ${ELLIPSIS} `);
	const ends = kept.at(-1) === slot.words.length - 1;
	return { ...slot.entry, description: text && !ends ? `${text}${ELLIPSIS}` : text };
}
