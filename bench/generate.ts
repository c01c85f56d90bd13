import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A deterministic pseudo-random source (mulberry32), so every run builds the same tree. */
export function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const VERBS = [
	"Extracts",
	"Converts",
	"Reviews",
	"Deploys",
	"Summarises",
	"Drafts",
	"Audits",
	"Profiles",
	"Migrates",
	"Tests",
];
const NOUNS = [
	"PDF forms",
	"CSV files",
	"pull requests",
	"Kubernetes manifests",
	"release notes",
	"SQL schemas",
	"API docs",
];
const WORDS = (
	"when the user asks about data tables charts reports invoices contracts logs metrics dashboards alerts incidents " +
	"tickets meetings notes emails slides diagrams tests builds pipelines deployments secrets keys budgets forecasts"
).split(" ");

/** What the generator wrote: the root and how many skills of each kind. */
export interface GeneratedTree {
	root: string;
	skills: number;
	broken: number;
	files: string[];
}

/**
 * Writes `count` skills under `root`: most flat, some in category folders, a few two levels deep; descriptions of
 * 80-600 characters, bodies from 1 to 40 KB, a third with scripts/ and references/, and about 4% broken.
 */
export async function generateTree(root: string, count: number, seed = 42): Promise<GeneratedTree> {
	await rm(root, { recursive: true, force: true });
	const next = random(seed);
	const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
	const files: string[] = [];
	let broken = 0;
	const pending: Promise<void>[] = [];
	for (let i = 0; i < count; i++) {
		const name = `skill-${i.toString(36).padStart(4, "0")}`;
		const layout = next();
		const dir =
			layout < 0.7
				? join(root, name)
				: layout < 0.95
					? join(root, `category-${i % 40}`, name)
					: join(root, `group-${i % 7}`, `area-${i % 13}`, name);
		const kind = next();
		const text = skillText(name, kind, next, pick);
		if (kind < 0.04) broken++;
		const file = join(dir, "SKILL.md");
		files.push(file);
		pending.push(writeSkill(dir, file, text, next() < 0.33));
		if (pending.length >= 256) await Promise.all(pending.splice(0));
	}
	await Promise.all(pending);
	return { root, skills: count, broken, files };
}

function skillText(name: string, kind: number, next: () => number, pick: <T>(items: readonly T[]) => T): string {
	const words = 10 + Math.floor(next() * 90);
	const extra = Array.from({ length: words }, () => pick(WORDS)).join(" ");
	const description = `${pick(VERBS)} ${pick(NOUNS)}. Use ${extra}.`.slice(0, 80 + Math.floor(next() * 520));
	const lines = ["---", `name: ${name}`];
	if (kind < 0.02) lines.push(`description: Use when: ${description}`);
	else if (kind >= 0.03) lines.push(`description: ${JSON.stringify(description)}`);
	if (next() < 0.3) lines.push("license: Apache-2.0");
	if (next() < 0.2) lines.push("metadata:", "  author: bench", `  version: "1.${Math.floor(next() * 9)}"`);
	if (next() < 0.15) lines.push("allowed-tools: Read Grep Bash(git log:*)");
	lines.push("---");
	const body = bodyText(1024 + Math.floor(next() ** 3 * 40 * 1024), next, pick);
	if (kind >= 0.03 && kind < 0.04) return `# ${name}\n\n${body}`;
	return `${lines.join("\n")}\n# ${name}\n\n${body}`;
}

function bodyText(bytes: number, next: () => number, pick: <T>(items: readonly T[]) => T): string {
	const parts: string[] = [];
	let size = 0;
	while (size < bytes) {
		const line = `${Math.floor(next() * 9) + 1}. ${Array.from({ length: 12 }, () => pick(WORDS)).join(" ")}.`;
		parts.push(line);
		size += line.length + 1;
	}
	return `${parts.join("\n")}\n`;
}

async function writeSkill(dir: string, file: string, text: string, resources: boolean): Promise<void> {
	await mkdir(dir, { recursive: true });
	await writeFile(file, text);
	if (!resources) return;
	await mkdir(join(dir, "scripts"), { recursive: true });
	await mkdir(join(dir, "references"), { recursive: true });
	await writeFile(join(dir, "scripts", "run.py"), "print('hello')\n");
	await writeFile(join(dir, "references", "REFERENCE.md"), "# Reference\n");
}
