// The `policy/` stage, the gate: the permission ceiling and manifests, authorize(), deny rules, what runs later,
// approvals, permission diffs and the trust store. Later stages import only from this file.

export type { EffectivePermissions, RemoteApproval, ResourceChanges } from "./approval.ts";
export { effectivePermissions, resolveApproval } from "./approval.ts";
export type { Decision, GrantScope, Policy, PolicyOptions, SandboxAvailability, ToolCall } from "./authorize.ts";
export { createPolicy } from "./authorize.ts";
export type { PermissionCeiling } from "./bounds.ts";
export { matchesDenyRule } from "./deny-rules.ts";
export type { PermissionChanges, PermissionDiff, PermissionSnapshot } from "./diff.ts";
export { diffPermissions } from "./diff.ts";
export { realOrResolved, resolvePath } from "./paths.ts";
export type { CallSubject, ToolPattern } from "./patterns.ts";
export { escapeGlob, globToRegExp, matchesExactly, matchesPattern, parseToolPattern } from "./patterns.ts";
export type { ToolRisk, ToolSpec } from "./tool-specs.ts";
export { DEFAULT_TOOL_SPECS } from "./tool-specs.ts";
export type { ApprovalSubject, SkillApproval, SkillApprovals, TrustFile, TrustStore } from "./trust.ts";
export { defaultTrustFile, loadTrustStore } from "./trust.ts";
