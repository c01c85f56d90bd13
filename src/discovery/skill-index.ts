import { basename } from "node:path";
import type { IndexedSkill } from "./resolve.ts";

/**
 * An immutable index of discovered skills, ordered by rank then name. Look skills up by name (as listed in the
 * catalog) or by qualified name (`name@scope`); shadowed, untrusted and disabled skills are in it too, with their
 * status, so a host can say why one is not usable.
 */
export class SkillIndex {
	/** Every usable skill, in rank-then-name order. */
	readonly skills: readonly IndexedSkill[];
	// Built on the first look-up, once, and never handed out: a host that only lists (a catalog, `mcp --check`)
	// pays nothing for them, and what they answer cannot change since `skills` is frozen.
	#byName: Map<string, IndexedSkill> | undefined;
	#byQualifiedName: Map<string, IndexedSkill> | undefined;
	#selected: readonly IndexedSkill[] | undefined;

	constructor(skills: readonly IndexedSkill[]) {
		this.skills = Object.freeze(adopting ? skills.map(freezeInPlace) : skills.map(freezeSkill));
	}

	/** The skill with this name or qualified name, whatever its status. */
	get(name: string): IndexedSkill | undefined {
		const normalized = name.trim().normalize("NFKC");
		if (this.#byName === undefined || this.#byQualifiedName === undefined) this.#buildMaps();
		return this.#byName?.get(normalized) ?? this.#byQualifiedName?.get(normalized);
	}

	#buildMaps(): void {
		const byName = new Map<string, IndexedSkill>();
		const byQualifiedName = new Map<string, IndexedSkill>();
		for (const skill of this.skills) byQualifiedName.set(skill.qualifiedName, skill);
		// A bare name belongs to the selected copy first; shadowed copies answer only to their qualified names.
		for (const status of ["selected", "disabled", "untrusted"] as const) {
			for (const skill of this.skills) {
				if (skill.status === status && !byName.has(skill.name)) byName.set(skill.name, skill);
			}
		}
		this.#byName = byName;
		this.#byQualifiedName = byQualifiedName;
	}

	/** Selected skills: the ones a session may activate. */
	get selected(): readonly IndexedSkill[] {
		// Filtered once; each caller gets its own array, as before, so changing one changes no other answer.
		this.#selected ??= this.skills.filter((skill) => skill.status === "selected");
		return [...this.#selected];
	}

	/** What a catalog lists: selected, trusted, enabled and model-invocable skills, in order. */
	get catalogSkills(): readonly IndexedSkill[] {
		return this.skills.filter((skill) => skill.status === "selected" && skill.modelInvocable);
	}

	/** The names of selected skills, in order. */
	names(): string[] {
		return this.selected.map((skill) => skill.name);
	}

	/**
	 * Up to `count` selected names closest to `name`: first the skills whose folder or declared name is `name` (a
	 * folder name is not an id), then by edit distance and shared prefix. Every "did you mean" uses this.
	 */
	closest(name: string, count = 3): string[] {
		const exact = this.selected
			.filter((s) => s.name !== name && (basename(s.dir) === name || s.properties.declaredName === name))
			.map((s) => s.name);
		const scored = this.names().map((candidate) => ({ candidate, score: editDistance(name, candidate) }));
		scored.sort((a, b) => a.score - b.score || (a.candidate < b.candidate ? -1 : 1));
		const limit = Math.max(2, Math.floor(name.length / 2));
		if (name.trim() === "") return [];
		const near = scored.filter((s) => s.score <= limit || s.candidate.includes(name)).map((s) => s.candidate);
		return [...new Set([...exact, ...near])].slice(0, count);
	}

	/** The number of skills in the index. */
	get size(): number {
		return this.skills.length;
	}
}

let adopting = false;

/**
 * The index of skills that nothing else holds (discovery's own resolution): they are frozen as they are instead of
 * copied, which for ten thousand skills is most of the cost of making the index.
 */
export function adoptIntoIndex(skills: IndexedSkill[]): SkillIndex {
	adopting = true;
	try {
		return new SkillIndex(skills);
	} finally {
		adopting = false;
	}
}

// A catalog kept for an index (see result-digest.ts) stands for what it reads unread: the skill's own fields, and
// of its properties the top-level values and the `readWhen` triggers. Deeper values (metadata, permissions) are not
// frozen: no catalog reads them, and freezing every nested object would cost the cold path for nothing.
function freezeInPlace(skill: IndexedSkill): IndexedSkill {
	Object.freeze(skill.diagnostics);
	if (skill.properties.readWhen) Object.freeze(skill.properties.readWhen);
	Object.freeze(skill.properties);
	return Object.freeze(skill);
}

function freezeSkill(skill: IndexedSkill): IndexedSkill {
	// Already immutable (a skill from another index): nothing a copy would protect.
	if (Object.isFrozen(skill) && Object.isFrozen(skill.diagnostics) && Object.isFrozen(skill.properties)) return skill;
	return Object.freeze({
		...skill,
		properties: Object.freeze({
			...skill.properties,
			...(skill.properties.readWhen && { readWhen: Object.freeze([...skill.properties.readWhen]) }),
		}),
		diagnostics: Object.freeze([...skill.diagnostics]),
	}) as IndexedSkill;
}

/** Levenshtein distance (insertions, deletions, substitutions), in two rows: for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
		}
		previous = current;
	}
	return previous[b.length] ?? 0;
}
