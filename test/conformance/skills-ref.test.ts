import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type SkillCode, validateSkillPath } from "skillset";
import { describe, expect, it } from "vitest";
import { SHARED_DIR, tempDir, writeTree } from "../helpers/temp.ts";

interface ReferenceCase {
	id: string;
	dir_name: string | null;
	skill_md: string | null;
	extra_files?: Record<string, string>;
	path_kind?: "dir" | "missing" | "file" | "none";
	file_text?: string;
	expect: "valid" | "invalid";
	error_contains?: string;
	reference_properties?: Record<string, unknown>;
	validate_applicable?: boolean;
	prompt_assertions?: unknown;
}

const cases: ReferenceCase[] = JSON.parse(
	readFileSync(join(SHARED_DIR, "conformance", "skills-ref-cases.json"), "utf8"),
);

// The reference error's topic (its `error_contains`) and the diagnostic code that covers the same topic.
const TOPICS: ReadonlyArray<[string, SkillCode]> = [
	["must start with YAML frontmatter", "frontmatter.missing"],
	["not properly closed", "frontmatter.unclosed"],
	["Invalid YAML", "yaml.invalid"],
	["must be a YAML mapping", "frontmatter.not-mapping"],
	["Missing required file: SKILL.md", "file.missing"],
	["Missing required field in frontmatter: name", "name.missing"],
	["Missing required field in frontmatter: description", "description.missing"],
	["does not exist", "path.not-found"],
	["Not a directory", "path.not-directory"],
	["lowercase", "name.uppercase"],
	["character limit", "name.too-long"],
	["cannot start or end with a hyphen", "name.hyphen-edge"],
	["consecutive hyphens", "name.consecutive-hyphens"],
	["invalid characters", "name.invalid-chars"],
	["must match skill name", "name.dir-mismatch"],
	["Unexpected fields", "field.unknown"],
	["1024", "description.too-long"],
	["500", "compatibility.too-long"],
];

// Cases that do not apply to validation, with the reason.
const SKIPPED: Readonly<Record<string, string>> = {
	"prompt--empty-list": "no skill at all: it tests to_prompt([]), which the catalog stage covers",
};

async function layout(root: string, c: ReferenceCase): Promise<string> {
	const path = join(root, c.id, c.dir_name ?? "none");
	if (c.path_kind === "missing") return path;
	if (c.path_kind === "file") {
		await mkdir(join(root, c.id), { recursive: true });
		await writeFile(path, c.file_text ?? "");
		return path;
	}
	await mkdir(path, { recursive: true });
	const files: Record<string, string> = { ...c.extra_files };
	if (c.skill_md !== null) files["SKILL.md"] = c.skill_md;
	await writeTree(path, files);
	return path;
}

describe("skills-ref conformance (strict profile)", async () => {
	const root = await tempDir();
	const applicable = cases.filter((c) => !(c.id in SKIPPED));

	it("covers every case in the file", () => {
		expect(cases.length).toBeGreaterThanOrEqual(41);
		for (const c of cases) {
			if (c.validate_applicable === false) expect(SKIPPED).toHaveProperty(c.id);
		}
	});

	it.each(applicable.map((c) => [c.id, c] as const))("%s", async (_id, c) => {
		const result = await validateSkillPath(await layout(root, c), { profile: "strict" });
		const errors = result.diagnostics.filter((d) => d.severity === "error");
		expect(result.valid, JSON.stringify(errors)).toBe(c.expect === "valid");
		if (c.expect === "invalid") {
			const topic = TOPICS.find(([text]) => c.error_contains?.includes(text));
			expect(topic, `no topic for ${c.error_contains}`).toBeDefined();
			expect(errors.map((d) => d.code)).toContain(topic?.[1]);
		}
		if (c.reference_properties && result.properties) {
			const ref = c.reference_properties;
			expect(result.properties.name.normalize("NFKC")).toBe(String(ref.name).trim().normalize("NFKC"));
			expect(result.properties.description).toBe(ref.description);
			if ("license" in ref) expect(result.properties.license).toBe(ref.license);
			if ("metadata" in ref) expect({ ...result.properties.metadata }).toEqual(ref.metadata);
			if ("allowed-tools" in ref) expect(result.properties.allowedTools?.join(" ")).toBe(ref["allowed-tools"]);
		}
	});
});
