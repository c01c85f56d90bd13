import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("README", () => {
	it("gives the two set-up commands", () => {
		expect(readme).toContain("npm ci && npm start");
		expect(readme).toContain("npm ci && npm test");
	});
});
