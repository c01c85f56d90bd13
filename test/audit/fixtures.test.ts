import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AuditFinding, auditSkill, discover } from "skillset";
import { describe, expect, it } from "vitest";

// One folder per case (issue 11): `skill/` is the package, `expect.json` the rule and the exact severity it must get,
// or `null` when the rule must not fire at all. Malicious cases and their benign twins sit side by side.
const ROOT = join(import.meta.dirname, "..", "fixtures", "audit");
const CASES = readdirSync(ROOT)
	.sort()
	.map((name) => {
		const expected = JSON.parse(readFileSync(join(ROOT, name, "expect.json"), "utf8")) as {
			rule: string;
			severity: "P0" | "P1" | "P2" | null;
		};
		return [name, expected.rule, expected.severity] as const;
	});

async function auditFixture(name: string): Promise<AuditFinding[]> {
	const dir = join(ROOT, name, "skill");
	const { index } = await discover({ cwd: dir, home: dir, defaultRoots: false, roots: [dir] });
	const skill = index.get("probe");
	return auditSkill({ name: "probe", dir, properties: skill?.properties ?? null });
}

describe("auditSkill on the fixture cases", () => {
	it("has malicious and benign cases for the classes of issue 11", () => {
		expect(CASES.length).toBeGreaterThanOrEqual(60);
		expect(CASES.filter(([, , severity]) => severity === "P0").length).toBeGreaterThanOrEqual(25);
		expect(CASES.filter(([, , severity]) => severity === null || severity === "P2").length).toBeGreaterThanOrEqual(20);
	});

	it.each(CASES)("%s: %s is %s", async (name, rule, severity) => {
		const findings = await auditFixture(name);
		const hit = findings.find((f) => f.rule === rule);
		if (severity === null) {
			expect(hit, JSON.stringify(hit)).toBeUndefined();
			return;
		}
		expect(hit, JSON.stringify(findings.map((f) => `${f.rule} ${f.severity}`))).toBeDefined();
		expect(hit?.severity).toBe(severity);
		expect(hit?.snippet.length).toBeGreaterThan(0);
		expect(["high", "medium", "low"]).toContain(hit?.confidence);
	});
});
