import type { CatalogReport } from "../catalog/index.ts";

/** The budget report as a few readable lines. */
export function renderCatalogReport(report: CatalogReport): string {
	const budget = report.budget ? `${report.budget.limit} ${report.budget.unit}` : "none";
	const lines = [
		`catalog: ${report.format}, budget ${budget}, ${report.tokens} tokens (${report.tokenizer}), ${report.chars} chars`,
		`skills: ${report.kept.length} of ${report.skills} listed, ${report.tokensPerSkill} tokens per skill (step: ${report.step})`,
	];
	if (report.truncated.length > 0) {
		const names = firstFew(report.truncated.map((t) => `${t.name} (-${t.droppedChars})`));
		lines.push(`truncated: ${report.truncated.length} descriptions, ${report.truncatedChars} chars cut: ${names}`);
	}
	if (report.omitted.length > 0) lines.push(`omitted: ${report.omitted.length} skills: ${firstFew(report.omitted)}`);
	return `${lines.join("\n")}\n`;
}

/** Names shown in a report line: the first few, then how many more (the whole list is in `--json`). */
const SHOWN = 5;

function firstFew(names: readonly string[]): string {
	const more = names.length > SHOWN ? ` and ${names.length - SHOWN} more` : "";
	return `${names.slice(0, SHOWN).join(", ")}${more}`;
}
