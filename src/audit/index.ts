// The `audit/` stage: the static audit of a skill package (rules, flows, files, prose, packages) and its SARIF
// rendering. Triage, not a security boundary. Later stages import only from this file.

export type { AuditFinding, AuditOptions, AuditTarget } from "./audit-skill.ts";
export { auditSkill } from "./audit-skill.ts";
export type { AuditLimits } from "./files.ts";
export type { AuditConfidence, AuditContext, AuditRule, AuditSeverity } from "./rules.ts";
export { AUDIT_RULES } from "./rules.ts";
export { renderSarif } from "./sarif.ts";
