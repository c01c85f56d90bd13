import { relative, resolve, sep } from "node:path";
import type { AuditFinding } from "./audit-skill.ts";
import { AUDIT_RULES, type AuditConfidence, type AuditSeverity } from "./rules.ts";

const LEVEL: Readonly<Record<AuditSeverity, "error" | "warning" | "note">> = { P0: "error", P1: "warning", P2: "note" };
// GitHub code scanning ranks security results by this property (0-10).
const SECURITY_SEVERITY: Readonly<Record<AuditSeverity, string>> = { P0: "9.0", P1: "5.0", P2: "1.0" };
// SARIF's `rank` (0-100): how sure the tool is that the result is real.
const RANK: Readonly<Record<AuditConfidence, number>> = { high: 90, medium: 60, low: 30 };

/**
 * A SARIF 2.1.0 log of audit findings, with paths relative to `base` as code scanning tools expect. Files the audit
 * did not inspect are results too (`not-inspected`), so nothing unread passes silently.
 */
export function renderSarif(findings: readonly AuditFinding[], options: { base: string; version: string }): string {
	const rules = AUDIT_RULES.map((rule) => ({
		id: rule.id,
		name: rule.title.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase()),
		shortDescription: { text: rule.title },
		fullDescription: { text: rule.why },
		defaultConfiguration: { level: LEVEL[rule.severity] },
		properties: { tags: ["security"], "security-severity": SECURITY_SEVERITY[rule.severity], priority: rule.severity },
	}));
	const index = new Map(rules.map((rule, i) => [rule.id, i]));
	const results = findings.map((finding) => {
		// A finding in a file inside an archive (`a.tgz → run.sh`) is located at the archive, the file named in the text.
		const [file, ...inner] = finding.file.split(" → ");
		const within = inner.length > 0 ? ` (inside the archive: ${inner.join(" → ")}, line ${finding.line ?? 1})` : "";
		return {
			ruleId: finding.rule,
			ruleIndex: index.get(finding.rule) ?? 0,
			level: LEVEL[finding.severity],
			rank: RANK[finding.confidence],
			message: {
				text: `${finding.title} in skill '${finding.skill}'${finding.count > 1 ? ` (${finding.count} occurrences)` : ""}${within}: ${finding.snippet}`,
			},
			locations: [
				{
					physicalLocation: {
						artifactLocation: {
							uri: relative(options.base, resolve(options.base, file ?? ""))
								.split(sep)
								.join("/"),
						},
						region: {
							startLine: within ? 1 : (finding.line ?? 1),
							...(finding.column && !within ? { startColumn: finding.column } : {}),
							snippet: { text: finding.snippet },
						},
					},
				},
			],
			properties: {
				priority: finding.severity,
				"security-severity": SECURITY_SEVERITY[finding.severity],
				confidence: finding.confidence,
				count: finding.count,
				context: finding.context,
				skill: finding.skill,
			},
		};
	});
	const log = {
		$schema: "https://json.schemastore.org/sarif-2.1.0.json",
		version: "2.1.0",
		runs: [
			{
				tool: {
					driver: { name: "skillset", version: options.version, informationUri: "https://agentskills.io", rules },
				},
				results,
			},
		],
	};
	return `${JSON.stringify(log, null, 2)}\n`;
}
