import { randomBytes } from "node:crypto";
import { lstat, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { checkRelativePath } from "../runtime/index.ts";
import {
	checkSkillName,
	codePointLength,
	isValidSkillName,
	MAX_NAME_CODE_POINTS,
	normalizeSkillName,
	validateSkillMd,
} from "../skill/index.ts";

/** What to create. */
export interface CreateSkillOptions {
	/** The skills folder the new skill goes in (e.g. `.agents/skills`); created when missing unless `parents` is false. */
	root: string;
	name: string;
	/** What the skill does and when to use it. Required: the placeholder text is refused. */
	description?: string;
	/** Create `root` and its missing parents (default true). When false, a missing `root` is an `io` failure. */
	parents?: boolean;
	/** The body; default: a short outline to fill in. */
	body?: string;
	/** Set when an agent (not a person) creates the skill: adds `agent_created: true`. */
	agentCreated?: boolean;
	/** Bundled files by path relative to the skill folder (e.g. `scripts/run.sh`), written with SKILL.md. */
	files?: Readonly<Record<string, string>>;
}

/** The skill that was written, or why nothing was. */
export type CreateSkillResult =
	| { ok: true; dir: string; file: string }
	| { ok: false; code: "invalid-name" | "invalid-description" | "invalid-file" | "exists" | "io"; message: string };

/** The description template text: `new` refuses it and `lint` flags it (`lint.placeholder`). */
export const PLACEHOLDER_DESCRIPTION =
	"Describe what this skill does and when to use it, with the words a user would say.";

/**
 * Creates a valid skill folder with its SKILL.md, atomically: everything is written into a temporary folder beside
 * the target and renamed into place, so no half-written skill is ever visible, and an existing skill is never
 * overwritten.
 */
export async function createSkill(options: CreateSkillOptions): Promise<CreateSkillResult> {
	const name = normalizeSkillName(options.name);
	if (!isValidSkillName(name)) {
		const long = checkSkillName(name).find((p) => p.code === "name.too-long");
		const message = long
			? `'${options.name}' is too long: ${codePointLength(name)} characters, at most ${MAX_NAME_CODE_POINTS}`
			: `'${options.name}' is not a valid name: use lowercase letters, digits and single hyphens`;
		return { ok: false, code: "invalid-name", message };
	}
	const description = options.description?.replace(/\s+/g, " ").trim() ?? "";
	if (description === "" || description === PLACEHOLDER_DESCRIPTION) {
		const message = "a description is required: say what the skill does and when to use it";
		return { ok: false, code: "invalid-description", message };
	}
	const text = renderSkillMd(name, options);
	const check = validateSkillMd(text, { dirName: name, allowExtensions: ["workbuddy"] });
	if (!check.valid) {
		const problems = check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
		return { ok: false, code: "invalid-description", message: problems.join("; ") };
	}
	const files = checkFiles(options.files ?? {});
	if (!Array.isArray(files)) return files;
	const dir = join(options.root, name);
	let temporary: string | undefined;
	try {
		if (await exists(dir)) return { ok: false, code: "exists", message: `${dir} already exists; nothing was written` };
		if (options.parents === false && !(await exists(options.root))) {
			return { ok: false, code: "io", message: `${options.root} does not exist; nothing was written` };
		}
		await mkdir(options.root, { recursive: true });
		// mkdir (not mkdtemp, which makes 0700) so the folder gets the user's umask like any other.
		temporary = join(options.root, `.${name}.new-${randomBytes(6).toString("hex")}`);
		await mkdir(temporary);
		await writeFile(join(temporary, "SKILL.md"), text, { flag: "wx" });
		for (const [segments, content] of files) {
			const target = join(temporary, ...segments);
			await mkdir(dirname(target), { recursive: true });
			await writeFile(target, content, { flag: "wx" });
		}
		if (await exists(dir)) return { ok: false, code: "exists", message: `${dir} already exists; nothing was written` };
		await rename(temporary, dir);
		temporary = undefined;
		return { ok: true, dir, file: join(dir, "SKILL.md") };
	} catch (error) {
		return {
			ok: false,
			code: "io",
			message: `Cannot create ${dir}: ${(error as NodeJS.ErrnoException).code ?? error}`,
		};
	} finally {
		if (temporary) await rm(temporary, { recursive: true, force: true });
	}
}

/** Bundled file paths checked like resource reads: relative, no `..`, and never SKILL.md itself. */
function checkFiles(
	files: Readonly<Record<string, string>>,
): [string[], string][] | { ok: false; code: "invalid-file"; message: string } {
	const checked: [string[], string][] = [];
	for (const [path, content] of Object.entries(files)) {
		const segments = checkRelativePath(path);
		if (!Array.isArray(segments)) return { ok: false, code: "invalid-file", message: segments.message };
		if (segments.join("/") === "SKILL.md")
			return { ok: false, code: "invalid-file", message: "SKILL.md is written from the name, description and body" };
		if (typeof content !== "string")
			return { ok: false, code: "invalid-file", message: `the content of '${path}' must be text` };
		checked.push([segments, content]);
	}
	return checked;
}

/** The SKILL.md text for a new skill. */
export function renderSkillMd(
	name: string,
	options: Pick<CreateSkillOptions, "description" | "body" | "agentCreated">,
): string {
	const description = (options.description ?? PLACEHOLDER_DESCRIPTION).replace(/\s+/g, " ").trim();
	const lines = ["---", `name: ${name}`, `description: ${JSON.stringify(description)}`];
	if (options.agentCreated) lines.push("agent_created: true");
	lines.push("---");
	const body = options.body ?? `# ${name}\n\n## When to use\n\n- ...\n\n## Steps\n\n1. ...\n\n## Gotchas\n\n- ...\n`;
	return `${lines.join("\n")}\n${body.endsWith("\n") ? body : `${body}\n`}`;
}

async function exists(path: string): Promise<boolean> {
	try {
		await lstat(path);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
		throw error;
	}
}
