import { randomUUID } from "node:crypto";
import { dirname } from "node:path";
import type { Catalog, Tokenizer } from "../catalog/index.ts";
import { loadDefaultTokenizer } from "../catalog/index.ts";
import type { DiscoveryReport, IndexedSkill, SkillIndex } from "../discovery/index.ts";
import { SkillsetError } from "../skill/index.ts";
import { checkAvailable, planActivation, type Refusal, unknownSkill } from "./activation-plan.ts";
import { createJsonlSink, type EventSink, type SkillEvent } from "./events.ts";
import { type IntegrityOptions, loadSkillBody } from "./load-skill.ts";
import { renderActivation } from "./render.ts";
import { type ReadResourceOptions, type ResourceRead, readSkillResource } from "./resource-read.ts";
import type {
	ActivatedSkill,
	ActivateOptions,
	Activation,
	ActivationRefusal,
	TierTotals,
	Watermark,
} from "./session-types.ts";

/** Options for {@link createSession}. */
export interface SessionOptions {
	/** Most skills active at once, dependencies included. Default 3. */
	maxActive?: number;
	/** Most tokens of active skill content. Default 20,000. */
	maxTokens?: number;
	/** Counts tokens. Default: o200k_base, loaded on first use. */
	tokenizer?: Tokenizer;
	/** Verify mode: refuse activations and reads that do not match the lock. */
	integrity?: IntegrityOptions;
	/** Most files listed per skill. Default 200. */
	maxResourceFiles?: number;
	/** Largest resource served, in bytes. Default 8 MiB. */
	maxResourceBytes?: number;
	/**
	 * Serve resources that have several hard links (default false: a hard link can alias a file outside the skill).
	 * Turn it on for skills installed by package managers that hard-link files, such as pnpm.
	 */
	allowHardLinks?: boolean;
	/** Receives every event. */
	onEvent?: EventSink;
	/** Appends every event as a JSON line to this file. */
	eventLog?: string;
	/** Names the session in events. Default: a random UUID. */
	id?: string;
}

interface ActiveEntry {
	skill: IndexedSkill;
	tokens: number;
	delivered: boolean;
}

/** Creates a session: the per-conversation state of activations, reads and totals. Nothing is process-wide. */
export function createSession(index: SkillIndex, options: SessionOptions = {}): SkillSession {
	return new SkillSession(index, options);
}

/**
 * One conversation's use of skills (tiers 2 and 3): activation with limits, dedupe and dependency order,
 * compaction re-delivery, contained resource reads, verify mode, events and totals.
 */
export class SkillSession {
	readonly id: string;
	#index: SkillIndex;
	readonly #options: SessionOptions;
	readonly #active = new Map<string, ActiveEntry>();
	readonly #pending = new Map<string, Promise<Activation | ActivationRefusal>>();
	readonly #sinks: EventSink[] = [];
	readonly #totals: TierTotals = {
		tier1: { bytes: 0, tokens: 0 },
		tier2: { count: 0, bytes: 0, tokens: 0 },
		tier3: { count: 0, bytes: 0, tokens: 0 },
	};
	#tokenizer: Promise<Tokenizer> | undefined;

	constructor(index: SkillIndex, options: SessionOptions = {}) {
		for (const key of ["maxActive", "maxTokens"] as const) {
			const value = options[key];
			if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
				throw new SkillsetError("invalid-option", `${key} must be a positive integer`);
			}
		}
		this.#index = index;
		this.#options = options;
		this.id = options.id ?? randomUUID();
		if (options.onEvent) this.#sinks.push(options.onEvent);
		if (options.eventLog) this.#sinks.push(createJsonlSink(options.eventLog));
	}

	/** The index this session activates from. */
	get index(): SkillIndex {
		return this.#index;
	}

	/**
	 * Moves the session to a rescanned index: active skills that are still there stay active (and delivered), the
	 * others are dropped. Returns the names that were dropped.
	 */
	useIndex(index: SkillIndex): string[] {
		const dropped: string[] = [];
		for (const [key, entry] of [...this.#active]) {
			const skill = index.get(key);
			if (skill) this.#active.set(key, { ...entry, skill });
			else {
				this.#active.delete(key);
				dropped.push(entry.skill.name);
			}
		}
		this.#index = index;
		return dropped;
	}

	/** The limits and what is in use. */
	watermark(): Watermark {
		let tokens = 0;
		for (const entry of this.#active.values()) tokens += entry.tokens;
		return {
			active: this.#active.size,
			maxActive: this.#options.maxActive ?? 3,
			tokens,
			maxTokens: this.#options.maxTokens ?? 20_000,
		};
	}

	/** Names of the active skills, in activation order. */
	get active(): string[] {
		return [...this.#active.values()].map((entry) => entry.skill.name);
	}

	/** The active skills themselves, in activation order: names alone are ambiguous when copies share a name. */
	get activeSkills(): IndexedSkill[] {
		return [...this.#active.values()].map((entry) => entry.skill);
	}

	/**
	 * Activates a skill by name or qualified name, its `depends_on` skills first. A skill already in context is not
	 * counted or delivered again (`cached`); concurrent calls for one skill share one activation.
	 */
	async activate(name: string, options: ActivateOptions = {}): Promise<Activation | ActivationRefusal> {
		const skill = this.index.get(name);
		const refused = skill ? checkAvailable(skill, options.invoker ?? "model") : unknownSkill(this.index, name);
		if (refused || !skill) return this.#refuse(refused ?? unknownSkill(this.index, name));
		const key = skill.qualifiedName;
		const pending = this.#pending.get(key);
		if (pending) return asCached(await pending);
		const promise = this.#activate(skill, options).finally(() => this.#pending.delete(key));
		this.#pending.set(key, promise);
		return promise;
	}

	/** Removes a skill from the active set; true when it was active. */
	deactivate(name: string): boolean {
		const skill = this.index.get(name);
		return skill ? this.#active.delete(skill.qualifiedName) : false;
	}

	/** The host compacted the context: active skills are re-delivered in full on their next activation. */
	markCompacted(): void {
		for (const entry of this.#active.values()) entry.delivered = false;
		this.#emit({ type: "context.compacted", active: this.#active.size });
	}

	/** Reads a file of a skill, contained to its folder, paged by lines. Failures are results, not exceptions. */
	async readResource(name: string, path: string, options: ReadResourceOptions = {}): Promise<ResourceRead> {
		const skill = this.index.get(name);
		const problem = skill ? checkAvailable(skill, "model") : unknownSkill(this.index, name);
		if (problem || !skill) {
			const refusal = problem ?? unknownSkill(this.index, name);
			return { ok: false, name, path, code: refusal.code, message: refusal.message };
		}
		const tokenizer = await this.#getTokenizer();
		// Read in chunks off the event loop: a session's 8 MiB read never holds up another session's small one.
		const result = await readSkillResource(skill, path, {
			...options,
			tokenizer,
			integrity: this.#options.integrity,
			maxBytes: this.#options.maxResourceBytes,
			allowHardLinks: this.#options.allowHardLinks === true,
		});
		const origin = skill.origin ? { origin: skill.origin } : {};
		if (result.ok) {
			const bytes = Buffer.byteLength(result.content);
			this.#add("tier3", bytes, result.tokens);
			this.#emit({
				type: "skill.resource.loaded",
				name: skill.name,
				path: result.path,
				binary: result.binary,
				bytes,
				tokens: result.tokens,
				...origin,
			});
		} else {
			this.#emit({ type: "skill.resource.refused", name: skill.name, path, code: result.code, ...origin });
		}
		return result;
	}

	/** Emits what discovery found: `discovery.completed`, then `skill.rejected` and `skill.shadowed` for each. */
	recordDiscovery(report: DiscoveryReport): void {
		const { counts, timings } = report;
		this.#emit({
			type: "discovery.completed",
			skills: counts.selected,
			rejected: counts.rejected,
			shadowed: counts.shadowed,
			ms: timings.totalMs,
		});
		for (const rejected of report.rejected) {
			this.#emit({ type: "skill.rejected", file: rejected.file, codes: rejected.diagnostics.map((d) => d.code) });
		}
		for (const shadowed of report.shadowed) {
			this.#emit({ type: "skill.shadowed", name: shadowed.qualifiedName, by: shadowed.shadowedBy ?? "" });
		}
	}

	/** Records the catalog the model was given (tier 1) and emits `catalog.built`. */
	recordCatalog(catalog: Catalog): void {
		const bytes = Buffer.byteLength(catalog.text);
		this.#totals.tier1 = { bytes, tokens: catalog.report.tokens };
		const { kept, omitted, truncated, tokens } = catalog.report;
		this.#emit({
			type: "catalog.built",
			skills: kept.length,
			omitted: omitted.length,
			truncated: truncated.length,
			bytes,
			tokens,
		});
	}

	/** Bytes and tokens delivered per tier so far. */
	totals(): TierTotals {
		return structuredClone(this.#totals);
	}

	/** Sends an event to the session's sinks (for stages that report through the session, such as policy). */
	emit(event: SkillEvent): void {
		this.#emit(event);
	}

	async #activate(skill: IndexedSkill, options: ActivateOptions): Promise<Activation | ActivationRefusal> {
		const plan = planActivation(this.index, skill, options.invoker ?? "model");
		if ("code" in plan) return this.#refuse(plan);
		const early = this.#overLimit(skill, plan.filter((s) => !this.#active.has(s.qualifiedName)).length, 0);
		if (early) return this.#refuse(early);
		const tokenizer = await this.#getTokenizer();
		const deliveries: ActivatedSkill[] = [];
		for (const item of plan) {
			const entry = this.#active.get(item.qualifiedName);
			if (entry?.delivered && item !== skill) continue;
			const delivered = entry?.delivered ? cachedDelivery(item, entry.tokens) : await this.#deliver(item, tokenizer);
			if ("code" in delivered) return this.#refuse(delivered);
			deliveries.push(delivered);
		}
		// Other activations may have been committed while this one read its files: the limits are checked as they are now.
		const adding = deliveries.filter((d) => !this.#active.has(d.qualifiedName));
		const late = this.#overLimit(
			skill,
			adding.length,
			adding.reduce((sum, d) => sum + d.tokens, 0),
		);
		if (late) return this.#refuse(late);
		return this.#commit(skill, deliveries, options.reason);
	}

	/** The refusal when `count` more active skills of `tokens` more tokens would break a limit. */
	#overLimit(skill: IndexedSkill, count: number, tokens: number): Refusal | undefined {
		const mark = this.watermark();
		if (mark.active + count > mark.maxActive) {
			const message = `Activating '${skill.name}' needs ${count} more active skill${count === 1 ? "" : "s"}; ${mark.active} of ${mark.maxActive} are active. Deactivate one first.`;
			return { code: "limit", name: skill.name, message };
		}
		if (mark.tokens + tokens > mark.maxTokens) {
			const message = `Activating '${skill.name}' needs ${tokens} tokens; ${mark.tokens} of ${mark.maxTokens} are in use. Deactivate a skill first.`;
			return { code: "limit", name: skill.name, message };
		}
		return undefined;
	}

	#commit(skill: IndexedSkill, deliveries: ActivatedSkill[], reason: string | undefined): Activation {
		for (const delivery of deliveries) {
			const known = this.#active.get(delivery.qualifiedName);
			const item = this.index.get(delivery.qualifiedName) as IndexedSkill;
			this.#active.set(delivery.qualifiedName, {
				skill: item,
				tokens: known?.tokens ?? delivery.tokens,
				delivered: true,
			});
			const bytes = delivery.cached ? 0 : Buffer.byteLength(delivery.text);
			if (!delivery.cached) this.#add("tier2", bytes, delivery.tokens);
			this.#emit({
				type: "skill.activated",
				name: delivery.name,
				qualifiedName: delivery.qualifiedName,
				cached: delivery.cached,
				bytes,
				tokens: delivery.cached ? 0 : delivery.tokens,
				...(reason && delivery.qualifiedName === skill.qualifiedName ? { reason } : {}),
				...(delivery.origin ? { origin: delivery.origin } : {}),
			});
		}
		const main = deliveries.at(-1) as ActivatedSkill;
		const dependencies = deliveries.slice(0, -1);
		return {
			ok: true,
			...main,
			dependencies,
			fullText: deliveries.map((d) => d.text).join("\n\n"),
			watermark: this.watermark(),
		};
	}

	async #deliver(skill: IndexedSkill, tokenizer: Tokenizer): Promise<ActivatedSkill | Refusal> {
		const loaded = await loadSkillBody(skill, {
			integrity: this.#options.integrity,
			maxFiles: this.#options.maxResourceFiles,
		});
		if ("code" in loaded) return { ...loaded, name: skill.name };
		const origin = skill.origin ? { origin: skill.origin } : {};
		const text = renderActivation({ name: skill.name, cached: false, ...loaded, ...origin });
		return {
			name: skill.name,
			qualifiedName: skill.qualifiedName,
			...origin,
			cached: false,
			...loaded,
			tokens: tokenizer.count(text),
			text,
		};
	}

	#refuse(refusal: Refusal): ActivationRefusal {
		this.#emit({ type: "skill.activation.refused", name: refusal.name, code: refusal.code });
		return { ok: false, ...refusal, watermark: this.watermark() };
	}

	#getTokenizer(): Promise<Tokenizer> {
		this.#tokenizer ??= this.#options.tokenizer ? Promise.resolve(this.#options.tokenizer) : loadDefaultTokenizer();
		return this.#tokenizer;
	}

	#add(tier: "tier2" | "tier3", bytes: number, tokens: number): void {
		const totals = this.#totals[tier];
		totals.count++;
		totals.bytes += bytes;
		totals.tokens += tokens;
	}

	#emit(event: SkillEvent): void {
		const stamped = { ...event, time: new Date().toISOString(), session: this.id };
		for (const sink of this.#sinks) sink(stamped);
	}
}

function cachedDelivery(skill: IndexedSkill, tokens: number): ActivatedSkill {
	const resources = { scripts: [], references: [], assets: [], other: [], truncated: false, links: [] };
	const base = { name: skill.name, cached: true, body: null, dir: dirname(skill.realFile), resources };
	const origin = skill.origin ? { origin: skill.origin } : {};
	return {
		...base,
		...origin,
		qualifiedName: skill.qualifiedName,
		tokens,
		text: renderActivation({ ...base, ...origin }),
	};
}

/** The answer for a call that joined an activation already under way: the same skill, not delivered twice. */
function asCached(result: Activation | ActivationRefusal): Activation | ActivationRefusal {
	if (!result.ok) return result;
	const text = renderActivation({ ...result, cached: true });
	return { ...result, cached: true, body: null, text, fullText: text, dependencies: [] };
}
