import { randomUUID } from "node:crypto";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { derivedKey, readDerived, resultDigestOf, writeDerived } from "../discovery/derived-cache.ts";
import type { SkillIndex } from "../discovery/index.ts";
import type { McpCode } from "./codes.ts";

// A plan kept as a derived value of discovery's saved result (derived-cache.ts), so a warm start-up whose index is
// that result read back whole takes which skills are served, and which are left out and why, with no walk of any
// skill folder and no read of the frontmatter cache.
//
// Why that is sound: the saved result stands only while every folder it listed or probed (each skill folder's own
// entries among them) and every SKILL.md it read is as it was (discovery's stat checks, the racy-git rule), and its
// digest covers those checks, not only the values: a tree equal in content but made of other files is another key.
// A row is saved only for a verdict those checks vouch for: a skill served after a walk that met nothing changed
// within the racy margin, or one left out for what its SKILL.md says. Anything else (a walk's problem, a failed
// read, another origin's skill) is planned again on every run. What lies below a skill folder's subfolders, and
// what changes a file in place, is caught at first use: every use walks the folder itself or reads through the
// contained reader with its own fstat. So a saved plan can change which names start-up calls served, never what
// bytes a client receives. Rows are checked as strictly as input, and anything that can be recomputed from the
// index (path, URI, folder) is: a row is a position in the index's selected skills and what the plan found.

const HERE = dirname(fileURLToPath(import.meta.url));
const KIND = "mcp-plan";
/** The served skills' frontmatter, in the order of the plan's served rows, under the same key. */
const FRONTMATTER_KIND = "mcp-plan-frontmatter";

/** Codes a saved row may carry: those that follow from SKILL.md's bytes and the index alone. */
export const SAVED_CODES: ReadonlySet<McpCode> = new Set<McpCode>([
	"mcp.skill-file",
	"mcp.frontmatter",
	"mcp.name-invalid",
	"mcp.name-mismatch",
	"mcp.field-invalid",
]);

/**
 * One selected skill's row: served, with its frontmatter as JSON text (parsed by the plan, which checks it; absent
 * when not asked for); left out with a code and message; or `null`, to be planned again.
 */
export type SavedRow = { frontmatter: string | undefined } | { code: McpCode; message: string } | null;

/** The rules a plan depends on besides the index (the code is in the key through the code stamp). */
export interface SavedPlanRules {
	maxBytes: number;
	allowHardLinks: boolean;
}

/**
 * The key of `index`'s saved plan under `rules`: only for an index that is a saved result read back (or saved)
 * whole, never for one holding a part of it (its selected skills cannot be told from the catalog's positions).
 */
export function savedPlanKey(index: SkillIndex, rules: SavedPlanRules): string | undefined {
	const digest = resultDigestOf(index);
	if (digest === undefined) return undefined;
	return derivedKey(HERE, [KIND, digest, index.selected.length, rules.maxBytes, rules.allowHardLinks]);
}

/**
 * The rows saved under `key` for `count` selected skills, with the served skills' frontmatter when `frontmatter`
 * (kept apart, so `--check`, which never sends it, does not read it), or undefined when there are none or one is
 * not valid.
 */
export function readSavedPlan(
	cacheDir: string,
	key: string,
	count: number,
	frontmatter: boolean,
): SavedRow[] | undefined {
	const value = readDerived(cacheDir, KIND, key)?.value as Record<string, unknown> | undefined;
	if (typeof value !== "object" || value === null) return undefined;
	const { served, leftOut, recheck, written } = value;
	if (!Array.isArray(served) || !Array.isArray(leftOut) || !Array.isArray(recheck)) return undefined;
	if (served.length + leftOut.length + recheck.length !== count) return undefined;
	// The frontmatter of the same write (two runs may save plans under one key, and a run may stop between files).
	const kept = frontmatter ? (readDerived(cacheDir, FRONTMATTER_KIND, key)?.value as Record<string, unknown>) : {};
	const texts = frontmatter ? kept?.texts : [];
	if (frontmatter && (kept?.written !== written || !Array.isArray(texts) || texts.length !== served.length))
		return undefined;
	const rows: (SavedRow | undefined)[] = new Array(count).fill(undefined);
	// Each position exactly once: with the count above, every selected skill has a row.
	const place = (at: unknown, row: SavedRow): boolean => {
		if (typeof at !== "number" || !Number.isInteger(at) || at < 0 || at >= count || rows[at] !== undefined)
			return false;
		rows[at] = row;
		return true;
	};
	for (const [i, at] of served.entries()) {
		const text: unknown = (texts as unknown[])[i];
		if (frontmatter && typeof text !== "string") return undefined;
		if (!place(at, { frontmatter: text as string | undefined })) return undefined;
	}
	for (const row of leftOut) {
		if (!Array.isArray(row) || row.length !== 3 || !SAVED_CODES.has(row[1]) || typeof row[2] !== "string")
			return undefined;
		if (!place(row[0], { code: row[1] as McpCode, message: row[2] })) return undefined;
	}
	for (const at of recheck) if (!place(at, null)) return undefined;
	return rows as SavedRow[];
}

/**
 * Saves `rows` (one per selected skill, in order, every served one with its frontmatter) under `key`; a failed
 * write only costs the next run. The frontmatter goes first: rows found without it are not taken by a server.
 */
export function writeSavedPlan(cacheDir: string, key: string, rows: readonly SavedRow[]): void {
	const served: number[] = [];
	const texts: string[] = [];
	const leftOut: [number, McpCode, string][] = [];
	const recheck: number[] = [];
	for (const [at, row] of rows.entries()) {
		if (row === null) recheck.push(at);
		else if ("frontmatter" in row) {
			if (row.frontmatter === undefined) return;
			served.push(at);
			texts.push(row.frontmatter);
		} else leftOut.push([at, row.code, row.message]);
	}
	const written = randomUUID();
	writeDerived(cacheDir, FRONTMATTER_KIND, key, { written, texts });
	writeDerived(cacheDir, KIND, key, { served, leftOut, recheck, written });
}
