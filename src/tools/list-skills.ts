import { cutAtWord, listText, loadDefaultTokenizer, type Tokenizer } from "../catalog/index.ts";
import type { SkillSession } from "../runtime/index.ts";
import { codePointLength } from "../skill/index.ts";
import { guarded } from "./guarded.ts";
import type { JsonSchema } from "./schema.ts";
import type { SkillTool, SkillToolsOptions } from "./tool.ts";

/** Skills per page when the host does not say. */
const DEFAULT_PAGE = 50;

/**
 * `list_skills`: the skills in pages (default 50), with which are loaded. A page never costs more than the
 * catalog's budget, when the tools were given the catalog: it ends early and says where the next page starts.
 */
export function listSkillsTool(session: SkillSession, options: SkillToolsOptions): SkillTool {
	const pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE));
	const budget = options.catalog?.report.budget ?? null;
	let measure: ((text: string) => number) | undefined;
	const meter = async (): Promise<(text: string) => number> => {
		if (measure) return measure;
		if (budget?.unit === "chars") measure = codePointLength;
		else {
			const tokenizer: Tokenizer = options.tokenizer ?? (await loadDefaultTokenizer());
			measure = (text) => tokenizer.count(text);
		}
		return measure;
	};
	const inputSchema: JsonSchema = {
		type: "object",
		properties: {
			offset: { type: "integer", minimum: 0, description: "How many skills to skip. Default 0." },
			limit: { type: "integer", minimum: 1, maximum: pageSize, description: `Most skills. Default ${pageSize}.` },
		},
		additionalProperties: false,
	};
	return {
		name: "list_skills",
		description: `List the available skills with their descriptions, ${pageSize} at a time, and which are already loaded. Long lists come in pages: call again with the offset given at the end.`,
		inputSchema,
		execute: guarded(inputSchema, async (input) => {
			const all = session.index.catalogSkills;
			// By qualified name: activating `dup@user` must not mark the catalog's `dup` (another copy) as loaded.
			const active = new Set(session.activeSkills.map((skill) => skill.qualifiedName));
			const offset = Math.min(Number(input.offset ?? 0), all.length);
			const wanted = all.slice(offset, offset + Number(input.limit ?? pageSize));
			const lines = wanted.map(
				(s) => `- ${listText(s.name)}${active.has(s.qualifiedName) ? " (loaded)" : ""}: ${listText(s.description)}`,
			);
			const fitted = budget ? fitPage(lines, offset, all.length, budget.limit, await meter()) : lines;
			const shown = wanted.slice(0, fitted.length);
			const content = [...fitted, footer(offset, fitted.length, all.length)].filter(Boolean).join("\n");
			const skills = shown.map((s) => ({
				name: s.name,
				description: s.description,
				active: active.has(s.qualifiedName),
			}));
			const next = offset + fitted.length < all.length ? offset + fitted.length : null;
			return {
				content,
				isError: false,
				protected: false,
				details: { skills, offset, total: all.length, next },
			};
		}),
	};
}

/** The lines that fit in `limit` with the footer; the first line is cut at a word if even it alone does not fit. */
function fitPage(
	lines: readonly string[],
	offset: number,
	total: number,
	limit: number,
	measure: (text: string) => number,
): string[] {
	const kept: string[] = [];
	for (const line of lines) {
		const next = [...kept, line];
		if (measure([...next, footer(offset, next.length, total)].join("\n")) > limit) break;
		kept.push(line);
	}
	if (kept.length > 0 || lines.length === 0) return kept;
	// Not even one full line fits: the first, cut down until it does (or nothing, if not even its name fits).
	let line = lines[0] ?? "";
	for (let max = codePointLength(line) - 1; max > 0; max = Math.floor(max * 0.8)) {
		line = cutAtWord(line, max);
		if (measure(`${line}\n${footer(offset, 1, total)}`) <= limit) return [line];
	}
	return [];
}

/** Where the page ends, and how to get the next one; empty when the page holds every skill. */
function footer(offset: number, count: number, total: number): string {
	if (offset === 0 && count >= total) return "";
	const range =
		count > 0 ? `Skills ${offset + 1}-${offset + count} of ${total}.` : `${total} skill${total === 1 ? "" : "s"}.`;
	const next = offset + count < total ? ` Call list_skills with offset ${offset + count} for more.` : "";
	return `${range}${next}`;
}
