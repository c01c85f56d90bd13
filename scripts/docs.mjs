// Regenerates the README's diagnostic code tables from the built package: `npm run docs`.
import { readFileSync, writeFileSync } from "node:fs";
import { AUDIT_RULES, DISCOVERY_CODES, LINT_CODES, REFERENCE_CODES, SKILL_CODES } from "../dist/index.js";
import { MCP_CODES } from "../dist/mcp/index.js";
import { renderAuditRules, renderSeverityCodes, renderSkillCodes, replaceBlock } from "./codes-table.mjs";

const path = new URL("../README.md", import.meta.url);
let readme = readFileSync(path, "utf8");
readme = replaceBlock(readme, "skill-codes", renderSkillCodes(SKILL_CODES));
readme = replaceBlock(readme, "discovery-codes", renderSeverityCodes("discovery-codes", DISCOVERY_CODES));
readme = replaceBlock(readme, "reference-codes", renderSeverityCodes("reference-codes", REFERENCE_CODES));
readme = replaceBlock(readme, "lint-codes", renderSeverityCodes("lint-codes", LINT_CODES));
readme = replaceBlock(readme, "audit-rules", renderAuditRules(AUDIT_RULES));
readme = replaceBlock(readme, "mcp-codes", renderSeverityCodes("mcp-codes", MCP_CODES));
writeFileSync(path, readme);
