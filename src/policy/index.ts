// The `policy/` stage: the permission ceiling and manifests, authorize(), permission diffs, the trust store and the
// static audit. Later stages import only from this file.

export type { EffectivePermissions, RemoteApproval, ResourceChanges } from "./approval.ts";
export { effectivePermissions, resolveApproval } from "./approval.ts";
export type { AuditFinding, AuditOptions, AuditTarget } from "./audit.ts";
export { auditSkill } from "./audit.ts";
export type { AuditLimits } from "./audit-files.ts";
export type { AuditConfidence, AuditContext, AuditRule, AuditSeverity } from "./audit-rules.ts";
export { AUDIT_RULES } from "./audit-rules.ts";
export type {
	Decision,
	GrantScope,
	PermissionCeiling,
	Policy,
	PolicyOptions,
	ToolCall,
	ToolRisk,
	ToolSpec,
} from "./authorize.ts";
export { createPolicy, DEFAULT_TOOL_SPECS } from "./authorize.ts";
export { matchesDenyRule } from "./deny-rules.ts";
export type { PermissionChanges, PermissionDiff, PermissionSnapshot } from "./diff.ts";
export { diffPermissions } from "./diff.ts";
export { realOrResolved, resolvePath } from "./paths.ts";
export type { CallSubject, ToolPattern } from "./patterns.ts";
export { escapeGlob, globToRegExp, matchesExactly, matchesPattern, parseToolPattern } from "./patterns.ts";
export type { SandboxAvailability, SandboxOptions, SandboxResult } from "./sandbox.ts";
export { detectSandbox, runSandboxed } from "./sandbox.ts";
export { renderSarif } from "./sarif.ts";
export type { ShellAnalysis } from "./shell.ts";
export { analyzeShell, shellWriteTargets } from "./shell.ts";
export type { ApprovalSubject, SkillApproval, SkillApprovals, TrustFile, TrustStore } from "./trust.ts";
export { defaultTrustFile, loadTrustStore } from "./trust.ts";
