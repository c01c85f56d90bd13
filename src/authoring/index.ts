// The `authoring/` stage: creating skills and linting them against the spec and best practice.

export type { LintCode, LintOptions, LintResult } from "./lint.ts";
export { LINT_CODES, lintSkills } from "./lint.ts";
export type { CreateSkillOptions, CreateSkillResult } from "./new-skill.ts";
export { createSkill, renderSkillMd } from "./new-skill.ts";
