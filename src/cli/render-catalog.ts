import type { CatalogReport } from "../catalog/index.ts";
import { plural } from "./render-diagnostics.ts";

/** The budget report as a few readable lines. */
export function renderCatalogReport(report: CatalogReport): string {
	const budget = report.budget ? `${report.budget.limit} ${report.budget.unit}` : "none";
	const listed = report.kept.length + report.named.length;
	const lines = [
		`catalog: ${report.format}, budget ${budget}, ${report.tokens} tokens (${report.tokenizer}), ${report.chars} chars`,
		`skills: ${listed} of ${report.skills} listed (${report.kept.length} described, ${report.named.length} by name only), ${report.tokensPerSkill} tokens per skill (step: ${report.step})`,
	];
	if (report.truncated.length > 0) {
		const names = firstFew(report.truncated.map((t) => `${t.name} (-${t.droppedChars})`));
		lines.push(`truncated: ${report.truncated.length} descriptions, ${report.truncatedChars} chars cut: ${names}`);
	}
	if (report.named.length > 0)
		lines.push(`by name only: ${plural(report.named.length, "skill")}: ${firstFew(report.named)}`);
	if (report.omitted.length > 0)
		lines.push(`omitted: ${plural(report.omitted.length, "skill")}: ${firstFew(report.omitted)}`);
	return `${lines.join("\n")}\n`;
}

/** Long lists stay one short line: the first few names and how many more (`--json` has them all). */
export function firstFew(names: readonly string[], count = 5): string {
	const more = names.length > count ? ` and ${names.length - count} more (--json lists all)` : "";
	return `${names.slice(0, count).join(", ")}${more}`;
}
