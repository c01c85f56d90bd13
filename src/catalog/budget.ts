import { capDescription } from "./cut.ts";
import { type FitOptions, type FitResult, Fitter } from "./fitter.ts";
import type { CatalogEntry } from "./render.ts";
import type { Slot } from "./slot.ts";

/**
 * Fits entries into `limit`: (1) everything as is; (2) every description capped; (3) every skill described at
 * least at its floor, the rest of the room shared round-robin one word at a time; (4) when not every floor fits
 * but every name does: every name listed, and as many skills as fit described at their floors in `priority`
 * order, the others on one line of names; (5) when not even every name fits: the names that fit in `priority`
 * order and a line saying how many more exist. So every description shrinks before any skill loses its
 * description, and a skill leaves the catalog only when its name does not fit. Entries keep their order in the
 * text. Work is bounded by the budget, not the number of skills; the final text is measured exactly and trimmed
 * until it fits (down to the "more" line, its brief form, or no text).
 */
export function fitCatalog(entries: readonly CatalogEntry[], options: FitOptions): FitResult {
	const prepared: CatalogEntry[] = [];
	const prepare = options.prepare ?? ((entry: CatalogEntry) => entry);
	const at = (i: number) => (prepared[i] ??= prepare(entries[i] as CatalogEntry));
	const fitter = new Fitter(options, entries, at);
	const all = range(entries.length);
	const asIs = fitter.fitsWhole(entries.length, at);
	if (asIs !== undefined) return fitter.result("fits", all.map(at), all.map(at), [], [], asIs);
	// Entries are prepared, capped and turned into slots only as far as the budget reaches.
	const capped: CatalogEntry[] = [];
	const cappedAt = (i: number) => (capped[i] ??= capDescription(at(i), options.maxDescriptionCodePoints));
	const cappedText = fitter.fitsWhole(entries.length, cappedAt);
	if (cappedText !== undefined) return fitter.result("capped", all.map(at), all.map(cappedAt), [], [], cappedText);
	const slots: Slot[] = [];
	const slotAt = (i: number) => (slots[i] ??= fitter.slot(cappedAt(i), i));
	const everyone = fitter.roomFor(all, slotAt);
	if (everyone >= 0) return fitter.share("shared", all.map(slotAt), [], everyone);
	const order = options.priority ?? all;
	const named = fitter.namesRoom(order);
	if (named < 0) {
		const { names, room } = fitter.namesThatFit(order);
		return fitter.share("dropped", [], names, room);
	}
	const { described, room } = fitter.describeFirst(order, slotAt, named);
	const rest = order.filter((i) => !described.has(i));
	return fitter.share("named", [...described].map(slotAt), rest, room);
}

/** Indices 0 to count - 1. */
export function range(count: number): number[] {
	return Array.from({ length: count }, (_, i) => i);
}
