import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type AuditFinding, auditSkill } from "../audit/index.ts";
import { type Diagnostic, type PermissionManifest, validateSkillPath } from "../skill/index.ts";

/** What a user sees of a skill before it is installed: its check, its audit and what it asks for. */
export interface SkillReview {
	name: string;
	description: string;
	/** The staged folder (temporary for fetched sources). */
	dir: string;
	/** Its folder relative to the source root, POSIX. */
	path: string;
	valid: boolean;
	errors: Diagnostic[];
	/** The highest audit severity, or `clean`. */
	verdict: "P0" | "P1" | "P2" | "clean";
	findings: AuditFinding[];
	manifest?: PermissionManifest;
	allowedTools?: string[];
}

const MAX_DEPTH = 6;
const MAX_FOLDERS = 10_000;

/**
 * Finds skill folders under a staged source: breadth first, hidden collection folders (`skills/.curated`) included,
 * `.git` and `node_modules` skipped, links never followed, and no descent into a skill.
 */
export function findSkillDirs(root: string): string[] {
	const found: string[] = [];
	const pending: { rel: string; depth: number }[] = [{ rel: "", depth: 0 }];
	for (let visited = 0; pending.length > 0 && visited < MAX_FOLDERS; visited++) {
		const { rel, depth } = pending.shift() as { rel: string; depth: number };
		const entries = readdirSync(join(root, rel), { withFileTypes: true });
		if (entries.some((entry) => entry.isFile() && entry.name.toLowerCase() === "skill.md")) {
			found.push(rel);
			continue;
		}
		if (depth >= MAX_DEPTH) continue;
		for (const entry of entries) {
			if (!entry.isDirectory() || entry.name === ".git" || entry.name === "node_modules") continue;
			pending.push({ rel: rel ? `${rel}/${entry.name}` : entry.name, depth: depth + 1 });
		}
	}
	return found.sort();
}

/**
 * Validates (lenient, or strict) and audits one staged skill. The audit walks with its default bounds, which are the
 * install's (16 MiB per file, 10,000 files): what lies past them is `not-walked` (P0), so an install never copies a
 * file the audit did not walk; a file it could not read that could hold code, in a skill that runs code, is P1.
 */
export async function reviewSkill(root: string, path: string, strict: boolean): Promise<SkillReview> {
	const dir = path ? join(root, ...path.split("/")) : root;
	const checked = await validateSkillPath(dir, { profile: strict ? "strict" : "lenient" });
	const properties = checked.properties;
	const fallback = path.split("/").at(-1) || "skill";
	const name = properties?.name ?? fallback;
	const findings = auditSkill({ name, dir, properties });
	const review: SkillReview = {
		name,
		description: properties?.description ?? "",
		dir,
		path: path || ".",
		valid: checked.valid,
		errors: checked.diagnostics.filter((d) => d.severity === "error"),
		verdict: verdictOf(findings),
		findings,
	};
	if (properties?.manifest) review.manifest = properties.manifest;
	if (properties?.allowedTools) review.allowedTools = properties.allowedTools;
	return review;
}

function verdictOf(findings: readonly AuditFinding[]): SkillReview["verdict"] {
	for (const level of ["P0", "P1", "P2"] as const) if (findings.some((f) => f.severity === level)) return level;
	return "clean";
}
