import type { CatalogReport } from "../catalog/index.ts";

/** The budget report as a few readable lines. */
export function renderCatalogReport(report: CatalogReport): string {
	const budget = report.budget ? `${report.budget.limit} ${report.budget.unit}` : "none";
	const lines = [
		`catalog: ${report.format}, budget ${budget}, ${report.tokens} tokens (${report.tokenizer}), ${report.chars} chars`,
		`skills: ${report.kept.length} of ${report.skills} listed, ${report.tokensPerSkill} tokens per skill (step: ${report.step})`,
	];
	if (report.truncated.length > 0) {
		const names = report.truncated.map((t) => `${t.name} (-${t.droppedChars})`).join(", ");
		lines.push(`truncated: ${report.truncated.length} descriptions, ${report.truncatedChars} chars cut: ${names}`);
	}
	if (report.omitted.length > 0) {
		const shown = report.omitted.slice(0, 10).join(", ");
		const more = report.omitted.length > 10 ? ` and ${report.omitted.length - 10} more` : "";
		lines.push(`omitted: ${report.omitted.length} skills: ${shown}${more}`);
	}
	return `${lines.join("\n")}\n`;
}
