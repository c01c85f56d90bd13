import { readFileSync } from "node:fs";
import { SKILL_CODES } from "skillset";
import { describe, expect, it } from "vitest";
import { renderCodesTable } from "../scripts/codes-table.mjs";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
	it("lists every diagnostic code exactly as the code table says (run `npm run docs` to update)", () => {
		expect(readme).toContain(renderCodesTable(SKILL_CODES));
	});

	it("gives the two set-up commands", () => {
		expect(readme).toContain("npm ci && npm start");
		expect(readme).toContain("npm ci && npm test");
	});
});
