import { codePointLength } from "../skill/index.ts";
import type { CatalogEntry, FormatParts } from "./render.ts";

/** What a budget counts. */
export type BudgetUnit = "tokens" | "chars";

/** Measures text in the budget's unit. */
export interface Meter {
	unit: BudgetUnit;
	measure(text: string): number;
}

/** How far the fitter had to go: DESIGN.md §4 steps 1-4. */
export type FitStep = "fits" | "capped" | "shared" | "dropped";

/** Options for {@link fitCatalog}. */
export interface FitOptions {
	parts: FormatParts;
	meter: Meter;
	limit: number;
	/** Step 2's cap on every description, in code points. */
	maxDescriptionCodePoints: number;
	/** Step 4: the description share each kept skill should at least get, in the budget's unit. */
	minShare: number;
}

/** The fitted catalog: entries kept (descriptions possibly cut), entries left out, and the text. */
export interface FitResult {
	step: FitStep;
	kept: CatalogEntry[];
	omitted: CatalogEntry[];
	truncated: { name: string; droppedChars: number }[];
	text: string;
	cost: number;
}

/** The ellipsis that ends a cut description. */
export const ELLIPSIS = "…";

/**
 * Fits entries (highest precedence first) into `limit`: (1) everything as is; (2) every description capped;
 * (3) every skill kept, the remaining room shared round-robin among descriptions one word at a time, cuts ending in
 * an ellipsis; (4) only then the lowest-precedence skills dropped, with a line saying how many. Work is bounded by
 * the budget, not the number of skills, and the final text is measured exactly and trimmed until it fits.
 */
export function fitCatalog(entries: readonly CatalogEntry[], options: FitOptions): FitResult {
	const fitter = new Fitter(options);
	const asIs = fitter.fitsWhole(entries.length, (i) => entries[i] as CatalogEntry);
	if (asIs !== undefined) return fitter.result("fits", entries, entries, [], asIs);
	// Entries are capped and turned into slots only as far as the budget reaches: the work is bounded by the
	// budget, not by the number of skills.
	const capped: CatalogEntry[] = [];
	const cappedAt = (i: number) =>
		(capped[i] ??= capDescription(entries[i] as CatalogEntry, options.maxDescriptionCodePoints));
	const cappedText = fitter.fitsWhole(entries.length, cappedAt);
	if (cappedText !== undefined)
		return fitter.result("capped", entries, range(entries.length).map(cappedAt), [], cappedText);
	const slots: Slot[] = [];
	const slotAt = (i: number) => (slots[i] ??= fitter.slot(cappedAt(i)));
	const everyone = fitter.roomFor(entries.length, slotAt, 0);
	if (everyone >= 0) return fitter.share("shared", entries, range(entries.length).map(slotAt), [], everyone);
	const keep = fitter.howManyFit(entries.length, slotAt);
	const kept = range(keep).map(slotAt);
	const omitted = entries.slice(keep);
	return fitter.share("dropped", entries, kept, omitted, fitter.roomFor(keep, slotAt, omitted.length));
}

function range(count: number): number[] {
	return Array.from({ length: count }, (_, i) => i);
}

/** Cuts `text` to at most `max` code points at a word boundary, ending in an ellipsis; unchanged when short. */
export function cutAtWord(text: string, max: number): string {
	if (codePointLength(text) <= max) return text;
	const points = [...text].slice(0, Math.max(0, max - 1));
	const head = points.join("");
	const boundary = head.search(/\s+\S*$/);
	const cut = boundary > 0 ? head.slice(0, boundary) : head;
	return `${cut.trimEnd()}${ELLIPSIS}`;
}

/** For each kept entry whose description was cut: how many code points of the original it lost. */
export function truncationsOf(
	original: readonly CatalogEntry[],
	kept: readonly CatalogEntry[],
): { name: string; droppedChars: number }[] {
	return kept.flatMap((entry, index) => {
		const before = original[index]?.description ?? "";
		if (entry.description === before) return [];
		const keptChars = codePointLength(
			entry.description.endsWith(ELLIPSIS) ? entry.description.slice(0, -1) : entry.description,
		);
		return [{ name: entry.name, droppedChars: codePointLength(before) - keptChars }];
	});
}

/** The entry with its description cut to `max` code points (itself when it is short enough). */
export function capDescription(entry: CatalogEntry, max: number): CatalogEntry {
	const description = cutAtWord(entry.description, max);
	return description === entry.description ? entry : { ...entry, description };
}

/** A skill during sharing: its description as words, and how many are taken. */
interface Slot {
	entry: CatalogEntry;
	words: string[];
	costs: (number | undefined)[];
	taken: number;
	base: number;
}

class Fitter {
	readonly #options: FitOptions;
	readonly #costs = new Map<string, number>();

	constructor(options: FitOptions) {
		this.#options = options;
	}

	/** The whole catalog's text when it fits, checked entry by entry so a hopeless case stops early. */
	fitsWhole(count: number, entryAt: (i: number) => CatalogEntry): string | undefined {
		const { parts, meter, limit } = this.#options;
		let sum = meter.measure(parts.assemble([], 0));
		for (let i = 0; i < count; i++) {
			sum += meter.measure(`${parts.entry(entryAt(i))}\n`);
			if (sum > limit) return undefined;
		}
		const text = parts.assemble(
			range(count).map((i) => parts.entry(entryAt(i))),
			0,
		);
		return meter.measure(text) <= limit ? text : undefined;
	}

	slot(entry: CatalogEntry): Slot {
		// Words carry their leading space, as BPE pre-tokenisers split text, so their costs add up closely.
		const words = entry.description.match(/\s*\S+/g) ?? [];
		const base = this.#options.meter.measure(`${this.#options.parts.entry({ ...entry, description: "" })}\n`);
		return { entry, words, costs: new Array(words.length), taken: 0, base };
	}

	/** The room left for descriptions with the first `count` slots kept with empty ones; negative when too many. */
	roomFor(count: number, slotAt: (i: number) => Slot, omitted: number): number {
		const { parts, meter, limit } = this.#options;
		let room = limit - meter.measure(parts.assemble([], omitted));
		for (let i = 0; i < count; i++) {
			room -= slotAt(i).base;
			if (room < 0) return room;
		}
		return room;
	}

	/** How many slots (in precedence order) fit, each with at least the minimum description share. */
	howManyFit(count: number, slotAt: (i: number) => Slot): number {
		const { parts, meter, limit, minShare } = this.#options;
		let used = meter.measure(parts.assemble([], count));
		for (let i = 0; i < count; i++) {
			const slot = slotAt(i);
			const share = Math.min(minShare, meter.measure(parts.escape(slot.entry.description)));
			used += slot.base + share;
			if (used > limit) return i;
		}
		return count;
	}

	share(
		step: FitStep,
		original: readonly CatalogEntry[],
		slots: Slot[],
		omitted: CatalogEntry[],
		room: number,
	): FitResult {
		this.#roundRobin(slots, room);
		const kept = [...slots];
		const left = [...omitted];
		let text = this.#assemble(kept, left.length);
		// Per-word costs are close to, not exactly, the cost of the whole: trim until the real count fits.
		for (let excess = this.#excess(text); excess > 0 && kept.length > 0; excess = this.#excess(text)) {
			this.#trim(kept, left, excess);
			text = this.#assemble(kept, left.length);
		}
		return this.result(left.length > 0 ? "dropped" : step, original, kept.map(describe), left, text);
	}

	result(
		step: FitStep,
		original: readonly CatalogEntry[],
		kept: readonly CatalogEntry[],
		omitted: CatalogEntry[],
		text: string,
	): FitResult {
		const truncated = truncationsOf(original, kept);
		return { step, kept: [...kept], omitted, truncated, text, cost: this.#options.meter.measure(text) };
	}

	/** One word per slot per round while the room lasts; a slot whose next word does not fit stops growing. */
	#roundRobin(slots: readonly Slot[], room: number): void {
		const ellipsis = this.#measureWord(ELLIPSIS);
		const open = new Set(slots.filter((slot) => slot.words.length > 0));
		let left = room;
		while (open.size > 0) {
			for (const slot of open) {
				const last = slot.taken === slot.words.length - 1;
				let cost = this.#wordCost(slot, slot.taken);
				if (slot.taken === 0 && !last) cost += ellipsis;
				if (slot.taken > 0 && last) cost -= ellipsis;
				if (cost > left) {
					open.delete(slot);
					continue;
				}
				left -= cost;
				slot.taken++;
				if (slot.taken === slot.words.length) open.delete(slot);
			}
		}
	}

	#wordCost(slot: Slot, index: number): number {
		const known = slot.costs[index];
		if (known !== undefined) return known;
		const cost = this.#measureWord(this.#options.parts.escape(slot.words[index] ?? ""));
		slot.costs[index] = cost;
		return cost;
	}

	#measureWord(word: string): number {
		let cost = this.#costs.get(word);
		if (cost === undefined) {
			cost = this.#options.meter.measure(word);
			this.#costs.set(word, cost);
		}
		return cost;
	}

	#assemble(slots: readonly Slot[], omitted: number): string {
		return this.#options.parts.assemble(
			slots.map((slot) => this.#options.parts.entry(describe(slot))),
			omitted,
		);
	}

	#excess(text: string): number {
		return this.#options.meter.measure(text) - this.#options.limit;
	}

	/** Takes back about `excess` units: words from the fullest descriptions first, then whole skills from the end. */
	#trim(kept: Slot[], omitted: CatalogEntry[], excess: number): void {
		for (let n = 0; n < Math.max(1, excess); n++) {
			let fullest: Slot | undefined;
			for (const slot of kept) if (slot.taken > (fullest?.taken ?? 0)) fullest = slot;
			if (fullest) {
				fullest.taken--;
				continue;
			}
			const dropped = kept.pop();
			if (!dropped) return;
			omitted.unshift(dropped.entry);
		}
	}
}

/** The entry with the slot's taken words as its description. */
function describe(slot: Slot): CatalogEntry {
	if (slot.taken === slot.words.length) return slot.entry;
	const head = slot.words.slice(0, slot.taken).join("").trim();
	return { ...slot.entry, description: head ? `${head}${ELLIPSIS}` : "" };
}
