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
	/** The floor: no description is cut below its first sentence or this many words, whichever is shorter. 0: none. */
	floorWords: number;
	/** Entry indices, the skill to keep first at the front; step 4 drops from the back. Default: entry order. */
	priority?: readonly number[];
	/**
	 * Makes an entry ready to show (folds and cleans its fields). Called only for entries the fitter measures, so
	 * skills the budget drops unseen cost nothing; omitted entries are returned as given.
	 */
	prepare?: (entry: CatalogEntry) => CatalogEntry;
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

/** The default floor in words (DESIGN.md §4: the first sentence or ~12 words, whichever is shorter). */
export const DEFAULT_FLOOR_WORDS = 12;

/**
 * Fits entries into `limit`: (1) everything as is; (2) every description capped; (3) every skill kept with at
 * least its floor, the rest of the room shared round-robin one word at a time, cuts ending in an ellipsis; (4) when
 * the floors cannot all be met, whole skills dropped from the back of `priority`, with a line saying how many
 * more exist. Entries keep their order in the text. Work is bounded by the budget, not the number of skills, and
 * the final text is measured exactly and trimmed until it fits: when no skill fits, the text is only the "more"
 * line (in its brief form if need be), and empty when not even that fits.
 */
export function fitCatalog(entries: readonly CatalogEntry[], options: FitOptions): FitResult {
	const prepared: CatalogEntry[] = [];
	const prepare = options.prepare ?? ((entry: CatalogEntry) => entry);
	const at = (i: number) => (prepared[i] ??= prepare(entries[i] as CatalogEntry));
	const fitter = new Fitter(options, at);
	const asIs = fitter.fitsWhole(entries.length, at);
	if (asIs !== undefined) {
		const all = range(entries.length).map(at);
		return fitter.result("fits", all, all, [], asIs);
	}
	// Entries are prepared, capped and turned into slots only as far as the budget reaches.
	const capped: CatalogEntry[] = [];
	const cappedAt = (i: number) => (capped[i] ??= capDescription(at(i), options.maxDescriptionCodePoints));
	const cappedText = fitter.fitsWhole(entries.length, cappedAt);
	if (cappedText !== undefined)
		return fitter.result("capped", range(entries.length).map(at), range(entries.length).map(cappedAt), [], cappedText);
	const slots: Slot[] = [];
	const slotAt = (i: number) => (slots[i] ??= fitter.slot(cappedAt(i), i));
	const everyone = fitter.roomFor(range(entries.length), slotAt, 0);
	if (everyone >= 0) return fitter.share("shared", entries, range(entries.length).map(slotAt), everyone);
	const order = options.priority ?? range(entries.length);
	const keep = fitter.howManyFit(order, slotAt, entries.length);
	const kept = order
		.slice(0, keep)
		.sort((a, b) => a - b)
		.map(slotAt);
	return fitter.share(
		"dropped",
		entries,
		kept,
		fitter.roomFor(
			kept.map((s) => s.index),
			slotAt,
			entries.length - keep,
		),
	);
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

/** A skill during sharing: its description as words, the floor, and how many words are taken. */
interface Slot {
	entry: CatalogEntry;
	/** The entry's index in the input. */
	index: number;
	words: string[];
	costs: (number | undefined)[];
	/** Words the description never goes below. */
	floor: number;
	taken: number;
	/** Cost of the whole entry with its description at the floor (the floor's words, then an ellipsis if cut). */
	base: number;
}

/** A word that ends a sentence: `.`, `!` or `?`, maybe closed by quotes or brackets. */
const SENTENCE_END = /[.!?]["'”’)\]]*$/u;

/** How many of `words` the floor keeps: the first sentence or `max` words, whichever is shorter. */
export function floorLength(words: readonly string[], max: number): number {
	if (max <= 0) return 0;
	const limit = Math.min(max, words.length);
	for (let i = 0; i < limit; i++) {
		const next = words[i + 1]?.trimStart();
		if (SENTENCE_END.test(words[i] ?? "") && (next === undefined || /^[\p{Lu}\p{N}"'“‘(]/u.test(next))) return i + 1;
	}
	return limit;
}

class Fitter {
	readonly #options: FitOptions;
	readonly #prepared: (i: number) => CatalogEntry;
	readonly #costs = new Map<string, number>();
	#positions: number[] | undefined;

	constructor(options: FitOptions, prepared: (i: number) => CatalogEntry) {
		this.#options = options;
		this.#prepared = prepared;
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

	slot(entry: CatalogEntry, index: number): Slot {
		// Words carry their leading space, as BPE pre-tokenisers split text, so their costs add up closely.
		const words = entry.description.match(/\s*\S+/g) ?? [];
		const floor = floorLength(words, this.#options.floorWords);
		const slot: Slot = { entry, index, words, costs: new Array(words.length), floor, taken: floor, base: 0 };
		// The entry at its floor is measured whole, separators included: it is what step 4 keeps or drops.
		slot.base = this.#options.meter.measure(`${this.#options.parts.entry(describe(slot))}\n`);
		return slot;
	}

	/** The room left with these slots kept at their floors and `omitted` skills left out; negative when too many. */
	roomFor(indices: readonly number[], slotAt: (i: number) => Slot, omitted: number): number {
		const { parts, meter, limit } = this.#options;
		let room = limit - meter.measure(parts.assemble([], omitted));
		for (const i of indices) {
			const slot = slotAt(i);
			room -= slot.base;
			if (room < 0) return room;
		}
		return room;
	}

	/** How many skills from the front of `order` fit at their floors, with the "more" line for the rest. */
	howManyFit(order: readonly number[], slotAt: (i: number) => Slot, total: number): number {
		const { parts, meter, limit } = this.#options;
		// The "more" line is priced for every skill left out: its number only gets shorter.
		let used = meter.measure(parts.assemble([], total));
		for (let n = 0; n < order.length; n++) {
			const slot = slotAt(order[n] as number);
			used += slot.base;
			if (used > limit) return n;
		}
		return order.length;
	}

	/** Shares `room` among the kept slots (in text order), then trims until the exact cost fits. */
	share(step: FitStep, original: readonly CatalogEntry[], slots: Slot[], room: number): FitResult {
		this.#roundRobin(slots, room);
		const kept = [...slots];
		let text = this.#assemble(kept, original.length - kept.length);
		// Per-word costs are close to, not exactly, the cost of the whole: trim until the real count fits.
		for (let excess = this.#excess(text); excess > 0 && kept.length > 0; excess = this.#excess(text)) {
			this.#trim(kept, excess);
			text = this.#assemble(kept, original.length - kept.length);
		}
		if (kept.length === 0 && this.#excess(text) > 0) text = this.#options.parts.brief(original.length);
		if (kept.length === 0 && this.#excess(text) > 0) text = "";
		const keptIndices = new Set(kept.map((slot) => slot.index));
		const omitted = original.filter((_, i) => !keptIndices.has(i));
		const final = omitted.length > 0 ? "dropped" : step;
		const originals = kept.map((slot) => this.#prepared(slot.index));
		return this.result(final, originals, kept.map(describe), omitted, text);
	}

	/** The result; `original` holds the prepared entries `kept` came from, index for index. */
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
		const open = new Set(slots.filter((slot) => slot.taken < slot.words.length));
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

	/**
	 * Takes back about `excess` units: words above the floor from the fullest descriptions first, then whole
	 * skills, the one last in priority first.
	 */
	#trim(kept: Slot[], excess: number): void {
		for (let freed = 0; freed < Math.max(1, excess); ) {
			let fullest: Slot | undefined;
			for (const slot of kept) {
				if (slot.taken > slot.floor && slot.taken - slot.floor > (fullest ? fullest.taken - fullest.floor : 0))
					fullest = slot;
			}
			if (fullest) {
				fullest.taken--;
				freed += Math.max(1, this.#wordCost(fullest, fullest.taken));
				continue;
			}
			let last = -1;
			for (let i = 0; i < kept.length; i++) {
				if (last < 0 || this.#position(kept[i] as Slot) > this.#position(kept[last] as Slot)) last = i;
			}
			if (last < 0) return;
			freed += Math.max(1, (kept[last] as Slot).base);
			kept.splice(last, 1);
		}
	}

	/** Where a slot stands in the priority order (0 is kept first). */
	#position(slot: Slot): number {
		const priority = this.#options.priority;
		if (!priority) return slot.index;
		if (!this.#positions) {
			this.#positions = [];
			for (const [position, index] of priority.entries()) this.#positions[index] = position;
		}
		return this.#positions[slot.index] ?? slot.index;
	}
}

/** The entry with the slot's taken words as its description. */
function describe(slot: Slot): CatalogEntry {
	if (slot.taken === slot.words.length) return slot.entry;
	const head = slot.words.slice(0, slot.taken).join("").trim();
	return { ...slot.entry, description: head ? `${head}${ELLIPSIS}` : "" };
}
