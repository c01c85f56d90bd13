import { ELLIPSIS, truncationsOf } from "./cut.ts";
import type { CatalogEntry, FormatParts } from "./render.ts";
import { createSlot, describeSlot, type Slot } from "./slot.ts";

/** What a budget counts. */
export type BudgetUnit = "tokens" | "chars";

/** Measures text in the budget's unit. */
export interface Meter {
	unit: BudgetUnit;
	measure(text: string): number;
}

/**
 * How far the fitter had to go (DESIGN.md §4): everything as is, descriptions capped, descriptions shared above
 * their floors, some skills listed by name only, or some skills left out (not even their names fit).
 */
export type FitStep = "fits" | "capped" | "shared" | "named" | "dropped";

/** Options for `fitCatalog` (`budget.ts`), which decides the steps this fitter measures. */
export interface FitOptions {
	parts: FormatParts;
	meter: Meter;
	limit: number;
	/** Step 2's cap on every description, in code points. */
	maxDescriptionCodePoints: number;
	/** The floor in words (see `planWords`); 0: none. */
	floorWords: number;
	/** Entry indices, the skill to describe (and to name) first at the front. Default: entry order. */
	priority?: readonly number[];
	/**
	 * Makes an entry ready to show (folds and cleans its fields). Called only for entries the fitter measures, so
	 * skills the budget drops unseen cost nothing; omitted entries are returned as given.
	 */
	prepare?: (entry: CatalogEntry) => CatalogEntry;
}

/** The fitted catalog: entries described (descriptions possibly cut), listed by name only, left out, and the text. */
export interface FitResult {
	step: FitStep;
	kept: CatalogEntry[];
	named: CatalogEntry[];
	omitted: CatalogEntry[];
	truncated: { name: string; droppedChars: number }[];
	text: string;
	cost: number;
}

/** What a catalog lists: skills with a description (slots) and skills by name only (entry indices). */
interface Layout {
	slots: Slot[];
	named: number[];
}

/** The budget fitter's measuring and sharing; `fitCatalog` decides the steps. */
export class Fitter {
	readonly #options: FitOptions;
	readonly #entries: readonly CatalogEntry[];
	readonly #prepared: (i: number) => CatalogEntry;
	readonly #costs = new Map<string, number>();
	readonly #nameCosts: number[] = [];
	#namesOverhead: number | undefined;
	#positions: number[] | undefined;

	constructor(options: FitOptions, entries: readonly CatalogEntry[], prepared: (i: number) => CatalogEntry) {
		this.#options = options;
		this.#entries = entries;
		this.#prepared = prepared;
	}

	/** The whole catalog's text when it fits, checked entry by entry so a hopeless case stops early. */
	fitsWhole(count: number, entryAt: (i: number) => CatalogEntry): string | undefined {
		const { parts, meter, limit } = this.#options;
		let sum = meter.measure(parts.assemble([], [], 0));
		for (let i = 0; i < count; i++) {
			sum += meter.measure(`${parts.entry(entryAt(i))}\n`);
			if (sum > limit) return undefined;
		}
		const texts = Array.from({ length: count }, (_, i) => parts.entry(entryAt(i)));
		const text = parts.assemble(texts, [], 0);
		return meter.measure(text) <= limit ? text : undefined;
	}

	/** A slot at its floor, with the floor's cost measured whole (separator included). */
	slot(entry: CatalogEntry, index: number): Slot {
		const slot = createSlot(entry, index, this.#options.floorWords);
		slot.base = this.#options.meter.measure(`${this.#options.parts.entry(describeSlot(slot))}\n`);
		return slot;
	}

	/** The room left with these slots at their floors and nothing else listed; negative when too many. */
	roomFor(indices: readonly number[], slotAt: (i: number) => Slot): number {
		const { parts, meter, limit } = this.#options;
		let room = limit - meter.measure(parts.assemble([], [], 0));
		for (const i of indices) {
			room -= slotAt(i).base;
			if (room < 0) return room;
		}
		return room;
	}

	/** The room left with every skill listed by name only; negative (and stopped early) when not every name fits. */
	namesRoom(order: readonly number[]): number {
		const { parts, meter, limit } = this.#options;
		let room = limit - meter.measure(parts.assemble([], [], 0)) - this.#overhead();
		for (const i of order) {
			room -= this.#nameCost(i);
			if (room < 0) return room;
		}
		return room;
	}

	/** Step 5: the names that fit from the front of `order`, the "more" line priced for every skill. */
	namesThatFit(order: readonly number[]): { names: number[]; room: number } {
		const { parts, meter, limit } = this.#options;
		let room = limit - meter.measure(parts.assemble([], [], this.#entries.length)) - this.#overhead();
		const names: number[] = [];
		for (const i of order) {
			const cost = this.#nameCost(i);
			if (cost > room) break;
			room -= cost;
			names.push(i);
		}
		return { names, room };
	}

	/** Step 4: from the front of `order`, the skills that fit at their floors instead of by name, while room lasts. */
	describeFirst(
		order: readonly number[],
		slotAt: (i: number) => Slot,
		room: number,
	): { described: Set<number>; room: number } {
		const described = new Set<number>();
		let left = room;
		for (const i of order) {
			const extra = slotAt(i).base - this.#nameCost(i);
			if (extra > left) break;
			left -= extra;
			described.add(i);
		}
		return { described, room: left };
	}

	/** Shares `room` among the slots, then trims until the exact cost fits. */
	share(step: FitStep, slots: readonly Slot[], named: readonly number[], room: number): FitResult {
		this.#roundRobin(slots, room);
		const layout: Layout = { slots: [...slots], named: [...named] };
		let text = this.#assemble(layout);
		// Per-word costs are close to, not exactly, the cost of the whole: trim until the real count fits.
		for (let excess = this.#excess(text); excess > 0 && !empty(layout); excess = this.#excess(text)) {
			this.#trim(layout, excess);
			text = this.#assemble(layout);
		}
		const total = this.#entries.length;
		if (empty(layout) && this.#excess(text) > 0) text = this.#options.parts.brief(total);
		if (empty(layout) && this.#excess(text) > 0) text = "";
		const kept = [...layout.slots].sort((a, b) => a.index - b.index);
		const listed = new Set([...kept.map((slot) => slot.index), ...layout.named]);
		const omitted = this.#entries.filter((_, i) => !listed.has(i));
		const final = omitted.length > 0 ? "dropped" : layout.named.length > 0 ? "named" : step;
		const original = kept.map((slot) => this.#prepared(slot.index));
		const byName = byIndex(layout.named).map((i) => this.#prepared(i));
		return this.result(final, original, kept.map(describeSlot), byName, omitted, text);
	}

	/** The result; `original` holds the prepared entries `kept` came from, index for index. */
	result(
		step: FitStep,
		original: readonly CatalogEntry[],
		kept: readonly CatalogEntry[],
		named: CatalogEntry[],
		omitted: CatalogEntry[],
		text: string,
	): FitResult {
		const truncated = truncationsOf(original, kept);
		return { step, kept: [...kept], named, omitted, truncated, text, cost: this.#options.meter.measure(text) };
	}

	/** One word per slot per round while the room lasts; a slot whose next word does not fit stops growing. */
	#roundRobin(slots: readonly Slot[], room: number): void {
		const ellipsis = this.#measureWord(ELLIPSIS);
		const open = new Set(slots.filter((slot) => slot.taken < slot.words.length));
		let left = room;
		while (open.size > 0) {
			for (const slot of open) {
				const last = slot.taken === slot.words.length - 1;
				let cost = this.#wordCost(slot, slot.order[slot.taken] ?? 0);
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

	/** What one name adds to the names line, its separator included. */
	#nameCost(i: number): number {
		let cost = this.#nameCosts[i];
		if (cost === undefined) {
			cost = this.#options.meter.measure(`, ${this.#options.parts.name(this.#prepared(i).name)}`);
			this.#nameCosts[i] = cost;
		}
		return cost;
	}

	/** What the names line costs besides its names (in its longer wording, after entries). */
	#overhead(): number {
		if (this.#namesOverhead === undefined) {
			const { parts, meter } = this.#options;
			const entry = parts.entry({ name: "x", description: "x", location: "x" });
			this.#namesOverhead = Math.max(
				0,
				meter.measure(parts.assemble([entry], [""], 0)) - meter.measure(parts.assemble([entry], [], 0)),
			);
		}
		return this.#namesOverhead;
	}

	#assemble(layout: Layout): string {
		const { parts } = this.#options;
		const slots = [...layout.slots].sort((a, b) => a.index - b.index);
		const names = byIndex(layout.named).map((i) => parts.name(this.#prepared(i).name));
		const omitted = this.#entries.length - layout.slots.length - layout.named.length;
		return parts.assemble(
			slots.map((slot) => parts.entry(describeSlot(slot))),
			names,
			omitted,
		);
	}

	#excess(text: string): number {
		return this.#options.meter.measure(text) - this.#options.limit;
	}

	/**
	 * Takes back about `excess` units: words above the floor from the fullest descriptions first, then
	 * descriptions (the skill goes to the names line), then names, the skill last in priority first.
	 */
	#trim(layout: Layout, excess: number): void {
		for (let freed = 0; freed < Math.max(1, excess); ) {
			let fullest: Slot | undefined;
			for (const slot of layout.slots) {
				if (slot.taken > slot.floor && slot.taken - slot.floor > (fullest ? fullest.taken - fullest.floor : 0))
					fullest = slot;
			}
			if (fullest) {
				fullest.taken--;
				freed += Math.max(1, this.#wordCost(fullest, fullest.order[fullest.taken] ?? 0));
				continue;
			}
			const slot = this.#lastOf(layout.slots.map((s) => s.index));
			if (slot >= 0) {
				const [removed] = layout.slots.splice(slot, 1) as [Slot];
				layout.named.push(removed.index);
				freed += Math.max(1, removed.base - this.#nameCost(removed.index));
				continue;
			}
			const name = this.#lastOf(layout.named);
			if (name < 0) return;
			freed += Math.max(1, this.#nameCost(layout.named[name] as number));
			layout.named.splice(name, 1);
		}
	}

	/** Where in `indices` the entry last in priority is; -1 for none. */
	#lastOf(indices: readonly number[]): number {
		let last = -1;
		for (let k = 0; k < indices.length; k++) {
			if (last < 0 || this.#position(indices[k] as number) > this.#position(indices[last] as number)) last = k;
		}
		return last;
	}

	/** Where an entry stands in the priority order (0 is kept first). */
	#position(index: number): number {
		const priority = this.#options.priority;
		if (!priority) return index;
		if (!this.#positions) {
			this.#positions = [];
			for (const [position, i] of priority.entries()) this.#positions[i] = position;
		}
		return this.#positions[index] ?? index;
	}
}

function empty(layout: Layout): boolean {
	return layout.slots.length === 0 && layout.named.length === 0;
}

function byIndex(indices: readonly number[]): number[] {
	return [...indices].sort((a, b) => a - b);
}
