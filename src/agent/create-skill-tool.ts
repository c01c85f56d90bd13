import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuditFinding, auditSkill } from "../audit/index.ts";
import { createSkill } from "../authoring/index.ts";
import { realOrResolved, resolvePath } from "../policy/index.ts";
import { isInside } from "../runtime/index.ts";
import { normalizeSkillName } from "../skill/index.ts";
import { type AgentTool, errorResult, textResult } from "./agent-tool.ts";

/** What `create_skill` needs from the agent. */
export interface CreateSkillToolOptions {
	/** The skills folder new skills go in. */
	root: string;
	/**
	 * A folder `root` must stay inside once its links are resolved (the workspace, unless the user chose another
	 * place): a skill is never created through a link that leads elsewhere.
	 */
	within?: string;
	/** Asks the user to approve a skill with P1 audit findings; false when nobody can approve. */
	approve: (name: string, findings: AuditFinding[]) => Promise<boolean>;
	onCreated: (name: string, dir: string) => void;
	/**
	 * Where a skill of this name already is, in any root (a fresh scan): such a name is refused, so that a saved skill
	 * never shadows or is shadowed by another. Throwing refuses too.
	 */
	existing?: (name: string) => Promise<string | undefined>;
}

/**
 * `create_skill(name, description, body, files?)`: the skill is written to a private staging folder first,
 * validated and audited there (P0 findings refuse it, P1 findings need the user's approval), then created in the
 * skills folder with `agent_created: true`. It is in the catalog from the next turn.
 */
export function createSkillTool(options: CreateSkillToolOptions): AgentTool {
	return {
		name: "create_skill",
		description:
			"Save a reusable procedure as a new skill for next time: a name (lowercase, hyphens), a description that says what it does and when to use it, the Markdown body, and optional bundled files (scripts/, references/).",
		inputSchema: {
			type: "object",
			properties: {
				name: { type: "string", minLength: 1, maxLength: 64, description: "e.g. release-notes" },
				description: { type: "string", minLength: 1, maxLength: 1024, description: "What it does and when to use it." },
				body: { type: "string", minLength: 1, description: "The instructions, in Markdown." },
				files: {
					type: "object",
					additionalProperties: { type: "string" },
					description: 'Extra files by relative path, e.g. {"scripts/run.sh": "..."}.',
				},
			},
			required: ["name", "description", "body"],
			additionalProperties: false,
		},
		// A new skill is a write that decides what loads next time: never pre-approved by a skill, always asked.
		spec: { risk: "write", runsLater: true },
		async execute(input) {
			const draft = {
				name: String(input.name),
				description: String(input.description),
				body: String(input.body),
				files: (input.files ?? {}) as Record<string, string>,
				agentCreated: true,
			};
			const outside = leavesFolder(options.root, options.within);
			if (outside !== undefined)
				return errorResult(`Not created (outside-workspace): ${outside}`, { code: "outside-workspace" });
			let found: string | undefined;
			try {
				found = await options.existing?.(normalizeSkillName(draft.name));
			} catch (error) {
				found = `a folder the scan could not read (${(error as Error).message})`;
			}
			if (found !== undefined)
				return errorResult(
					`Not created (exists): a skill named ${draft.name} already exists in ${found}; choose another name`,
					{ code: "exists" },
				);
			const staging = await mkdtemp(join(tmpdir(), "skillset-new-skill-"));
			try {
				const staged = await createSkill({ ...draft, root: staging });
				if (!staged.ok) return errorResult(`Not created (${staged.code}): ${staged.message}`, { code: staged.code });
				const findings = auditSkill({ name: draft.name, dir: staged.dir });
				const blocking = findings.filter((f) => f.severity === "P0");
				if (blocking.length > 0) return errorResult(`Not created: the audit found ${describe(blocking)}`, { findings });
				const review = findings.filter((f) => f.severity === "P1");
				if (review.length > 0 && !(await options.approve(draft.name, review)))
					return errorResult(`Not created: the audit found ${describe(review)} and the user did not approve`, {
						findings,
					});
				const created = await createSkill({ ...draft, root: options.root });
				if (!created.ok)
					return errorResult(`Not created (${created.code}): ${created.message}`, { code: created.code });
				options.onCreated(draft.name, created.dir);
				return textResult(`Created the skill ${draft.name} in ${created.dir}; it is available from the next turn.`, {
					dir: created.dir,
				});
			} finally {
				await rm(staging, { recursive: true, force: true });
			}
		},
	};
}

// Why `root` leads outside `within` once links are resolved, or undefined when it stays inside.
function leavesFolder(root: string, within: string | undefined): string | undefined {
	if (within === undefined) return undefined;
	try {
		const real = resolvePath(within, root);
		if (isInside(realOrResolved(within), real)) return undefined;
		return `the skills folder ${root} leads to ${real}, outside ${within}`;
	} catch (error) {
		return `the skills folder ${root} cannot be resolved: ${(error as Error).message}`;
	}
}

function describe(findings: readonly AuditFinding[]): string {
	return findings.map((f) => `${f.rule} (${f.severity}) in ${f.file}${f.line ? `:${f.line}` : ""}`).join(", ");
}
