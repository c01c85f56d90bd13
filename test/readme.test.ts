import { readFileSync } from "node:fs";
import { AUDIT_RULES, DISCOVERY_CODES, LINT_CODES, REFERENCE_CODES, SKILL_CODES } from "skillset";
import { MCP_CODES } from "skillset/mcp";
import { describe, expect, it } from "vitest";
import { renderAuditRules, renderSeverityCodes, renderSkillCodes } from "../scripts/codes-table.mjs";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
	it("lists every diagnostic code exactly as the code tables say (run `npm run docs` to update)", () => {
		expect(readme).toContain(renderSkillCodes(SKILL_CODES));
		expect(readme).toContain(renderSeverityCodes("discovery-codes", DISCOVERY_CODES));
		expect(readme).toContain(renderSeverityCodes("reference-codes", REFERENCE_CODES));
		expect(readme).toContain(renderSeverityCodes("lint-codes", LINT_CODES));
		expect(readme).toContain(renderAuditRules(AUDIT_RULES));
		expect(readme).toContain(renderSeverityCodes("mcp-codes", MCP_CODES));
	});

	it("gives the two set-up commands", () => {
		expect(readme).toContain("npm ci && npm start");
		expect(readme).toContain("npm ci && npm test");
	});
});
