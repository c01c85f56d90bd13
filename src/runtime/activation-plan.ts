import type { IndexedSkill, SkillIndex } from "../discovery/index.ts";
import type { ActivationRefusal, Invoker } from "./session-types.ts";

/** A refusal before the watermark is attached. */
export type Refusal = Omit<ActivationRefusal, "ok" | "watermark">;

/**
 * The skill and its `depends_on` skills in activation order (dependencies first), or why that is impossible. When
 * the model is the invoker, a dependency that opted out of model invocation refuses the whole activation.
 */
export function planActivation(
	index: SkillIndex,
	skill: IndexedSkill,
	invoker: Invoker = "model",
): IndexedSkill[] | Refusal {
	const order: IndexedSkill[] = [];
	const visiting: string[] = [];
	const visit = (current: IndexedSkill): Refusal | undefined => {
		if (order.includes(current)) return undefined;
		if (visiting.includes(current.qualifiedName)) {
			const cycle = [...visiting.slice(visiting.indexOf(current.qualifiedName)), current.qualifiedName];
			return { code: "cycle", name: skill.name, message: `depends_on forms a cycle: ${cycle.join(" -> ")}` };
		}
		visiting.push(current.qualifiedName);
		for (const dependency of current.properties.dependsOn ?? []) {
			const found = findDependency(index, current, dependency);
			if (found && found.origin !== current.origin) {
				const from = (s: IndexedSkill) => s.origin ?? "this machine";
				const message = `'${current.name}' (from ${from(current)}) depends on '${dependency}', which is ${found.qualifiedName} (from ${from(found)}): dependencies never cross origins`;
				return { code: "cross-origin", name: skill.name, message };
			}
			const problem = found ? checkAvailable(found, invoker, true) : undefined;
			if (!found || problem) {
				const why = problem ? problem.message : "no skill has that name";
				const code = problem?.code === "not-invocable" ? "not-invocable" : "unknown";
				return { code, name: skill.name, message: `'${current.name}' depends on '${dependency}': ${why}` };
			}
			const failure = visit(found);
			if (failure) return failure;
		}
		visiting.pop();
		order.push(current);
		return undefined;
	};
	return visit(skill) ?? order;
}

/**
 * The skill a `depends_on` name means for `current`: for a remote skill, the skill of that name from its own origin
 * first (a local skill of the same name keeps the plain name); otherwise what the name resolves to.
 */
function findDependency(index: SkillIndex, current: IndexedSkill, name: string): IndexedSkill | undefined {
	const own = current.origin ? index.get(`${name}@${current.origin}`) : undefined;
	return own && own.origin === current.origin ? own : index.get(name);
}

/** Why a skill cannot be activated by `invoker` (untrusted, disabled, or not invocable by them), if it cannot. */
export function checkAvailable(skill: IndexedSkill, invoker: Invoker, asDependency = false): Refusal | undefined {
	if (skill.status === "untrusted" || skill.status === "disabled") {
		const why = skill.status === "untrusted" ? "its workspace is not trusted" : "it is disabled";
		return { code: "unavailable", name: skill.name, message: `'${skill.name}' cannot be used: ${why}` };
	}
	if (invoker === "model" && !skill.modelInvocable) {
		return { code: "not-invocable", name: skill.name, message: `'${skill.name}' can only be invoked by the user` };
	}
	if (asDependency) return undefined;
	if (invoker === "user" && skill.properties.userInvocable === false) {
		return { code: "not-invocable", name: skill.name, message: `'${skill.name}' can only be invoked by the model` };
	}
	return undefined;
}

/** The refusal for a name no skill has: what is available, and the closest names. */
export function unknownSkill(index: SkillIndex, name: string): Refusal {
	const available = index.catalogSkills.map((s) => s.name);
	const closest = index.closest(name);
	const hint = closest.length > 0 ? ` Did you mean ${closest.map((c) => `'${c}'`).join(" or ")}?` : "";
	return { code: "unknown", name, message: `No skill is named '${name}'.${hint}`, available, closest };
}
