import fc from "fast-check";
import { codePointLength, parseSkillMd, validateSkillMd } from "skillset";
import { describe, expect, it } from "vitest";

// A bound on this process's own CPU time, not on the clock, so a loaded machine (time spent waiting for a core) does
// not count. Generous: a pathological input (backtracking, quadratic scans) takes orders of magnitude longer.
const MAX_MS_PER_INPUT = 250;

function timed<T>(run: () => T): { value: T; ms: number } {
	const started = process.cpuUsage();
	const value = run();
	const used = process.cpuUsage(started);
	return { value, ms: (used.user + used.system) / 1000 };
}

// Text that looks like SKILL.md often enough to reach the YAML parser: fences, keys, YAML punctuation.
const skillish = fc
	.array(
		fc.oneof(
			fc.constantFrom("---", "name: ", "description: ", "metadata:", "  ", "- ", ": ", "[", "]", "{", "}", "&a ", "*a"),
			fc.constantFrom("!!str ", "%YAML 1.1", "...", "#", "'", '"', "|", ">", "\n", "\r\n", "\t", "\uFEFF", "__proto__"),
			fc.string({ unit: "binary", maxLength: 12 }),
		),
		{ maxLength: 60 },
	)
	.map((parts) => parts.join(""));

describe("parser properties", () => {
	it("never throws and stays fast on arbitrary text", () => {
		fc.assert(
			fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 400 }), skillish), (text) => {
				for (const profile of ["strict", "lenient"] as const) {
					const { value, ms } = timed(() => validateSkillMd(text, { profile, dirName: "x" }));
					expect(ms).toBeLessThan(MAX_MS_PER_INPUT);
					expect(typeof value.valid).toBe("boolean");
					for (const d of value.diagnostics) expect(d.code).toMatch(/^[a-z-]+\.[a-z0-9-]+$/);
				}
			}),
			{ numRuns: 600 },
		);
	});

	it("never throws and stays fast on arbitrary bytes", () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
				const withFence = new Uint8Array([...new TextEncoder().encode("---\nname: x\n"), ...bytes]);
				for (const input of [bytes, withFence]) {
					const { value, ms } = timed(() => parseSkillMd(input, { profile: "lenient" }));
					expect(ms).toBeLessThan(MAX_MS_PER_INPUT);
					expect(Array.isArray(value.diagnostics)).toBe(true);
				}
			}),
			{ numRuns: 600 },
		);
	});

	it("places every diagnostic inside the file", () => {
		fc.assert(
			fc.property(skillish, (text) => {
				const lines = text.split(/\r\n|\n/).length;
				for (const d of validateSkillMd(text, { profile: "lenient" }).diagnostics) {
					if (d.line === undefined) continue;
					expect(d.line).toBeGreaterThanOrEqual(1);
					expect(d.line).toBeLessThanOrEqual(lines + 1);
					expect(d.column).toBeGreaterThanOrEqual(1);
				}
			}),
			{ numRuns: 300 },
		);
	});
});

// Valid names: 1-64 code points of lowercase letters (ASCII or not), digits, single inner hyphens.
const nameChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789", "é", "ж", "技", "ß", "٣");
const word = fc.array(nameChar, { minLength: 1, maxLength: 10 }).map((chars) => chars.join(""));
const validName = fc
	.array(word, { minLength: 1, maxLength: 5 })
	.map((words) => words.join("-"))
	.filter((name) => codePointLength(name) <= 64);
const descriptionText = fc
	.string({ unit: "grapheme", minLength: 1, maxLength: 300 })
	.filter((text) => text.trim().length > 0 && !text.includes("\u0000"));

describe("generated valid skills", () => {
	it("always validate under both profiles and round-trip their fields", () => {
		fc.assert(
			fc.property(validName, descriptionText, fc.boolean(), (name, description, crlf) => {
				let source = `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n\nSteps.\n`;
				if (crlf) source = source.replaceAll("\n", "\r\n");
				for (const profile of ["strict", "lenient"] as const) {
					const result = validateSkillMd(source, { profile, dirName: name });
					expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
					expect(result.properties?.name).toBe(name);
					expect(result.properties?.description).toBe(description.trim());
				}
			}),
			{ numRuns: 400 },
		);
	});

	it("count lengths in code points, not UTF-16 units", () => {
		const astral = fc.constantFrom("😀", "𝒶", "🧪", "𠀀");
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 1100 }), astral, (count, char) => {
				const description = char.repeat(count);
				const result = validateSkillMd(`---\nname: x\ndescription: ${description}\n---\nBody`, { dirName: "x" });
				expect(result.valid).toBe(count <= 1024);
			}),
			{ numRuns: 200 },
		);
	});
});
