// A realistic, deterministic skill collection for catalog tests: names whose first letters spread over the
// alphabet unevenly (as real collections do), descriptions from one short sentence to long paragraphs, some opening
// with a slogan that says nothing, most with a "Use when …" clause in one of its usual spellings and places.
import { join } from "node:path";
import { writeTree } from "./temp.ts";

/** One generated skill. */
export interface GeneratedSkill {
	name: string;
	description: string;
}

/** mulberry32: the same sequence for the same seed, on every machine. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// First words of names, several per letter for common letters and one or none for rare ones.
const HEADS = (
	"ab-testing accessibility agent ai airflow algolia android angular ansible api astro auth aws azure " +
	"backend bash bigquery billing blockchain browser bun celery changelog chrome ci clickhouse cloudflare code " +
	"content cron css data database datadog debug deno design devops django docker docs dotnet " +
	"elastic electron email embedding erlang eslint etl expo fastapi figma firebase flask flutter frontend " +
	"gcp git github gitlab go grafana graphql haskell helm heroku html http i18n incident infra ios " +
	"java jenkins jest jira kafka keycloak kotlin kubernetes laravel latex linear linux llm logging " +
	"macos markdown memory metrics migration ml mobile mongo mysql neo4j nestjs netlify nextjs nginx node notion " +
	"oauth observability ollama openapi opentelemetry pandas payments pdf performance php playwright postgres " +
	"prisma product prometheus prompt python pytorch qa quarkus rabbitmq rag rails react redis refactor release " +
	"rest rust s3 saas scala security selenium seo shopify slack snowflake spark sql stripe supabase svelte swift " +
	"tailwind terraform testing twilio typescript ui unity unix ux vector vercel vite vue wasm web webhook " +
	"webpack windows wordpress xcode xml yaml yarn zapier zod zsh"
).split(" ");
const TAILS = (
	"patterns expert review setup testing migration optimizer debugger architect helper workflow guide security " +
	"deploy monitoring analyzer builder generator automation best-practices integration audit pro"
).split(" ");

const SLOGANS = [
	"Every product will be AI-powered.",
	"Memory is the cornerstone of intelligent agents.",
	"Great documentation is a competitive advantage.",
	"Security is everyone's job.",
	"Data beats opinions.",
	"Fast feedback makes better software.",
	"Production is the only environment that matters.",
	"Simple systems are reliable systems.",
];
const VERBS = ["Builds", "Reviews", "Debugs", "Designs", "Migrates", "Tests", "Audits", "Optimizes", "Documents"];
const OBJECTS = [
	"REST APIs",
	"database schemas",
	"CI pipelines",
	"React components",
	"infrastructure code",
	"data pipelines",
	"mobile apps",
	"prompt templates",
	"payment flows",
	"dashboards",
	"search indexes",
	"release notes",
];
const DETAILS = [
	"Covers configuration, error handling, retries, observability and the common failure modes seen in production.",
	"Includes patterns for caching, pagination, rate limiting and schema evolution.",
	"Works with the official command line tools and their configuration files.",
	"Explains trade-offs between the popular approaches and recommends one with reasons.",
	"Provides checklists, templates and worked examples for teams of every size.",
	"Focuses on correctness first, then performance, then developer experience.",
	"Handles authentication, secrets, environments and rollbacks.",
];
const SITUATIONS = [
	"the user asks to set up, debug or review",
	"a task involves",
	"working on",
	"the user mentions",
	"planning or migrating",
	"someone needs help with",
];

/** One description: an opening, some detail, and (usually) a "use when" clause in one of its spellings and places. */
function describe(name: string, next: () => number): string {
	const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
	const topic = name.replace(/-/g, " ");
	const roll = next();
	const opening =
		roll < 0.3
			? pick(SLOGANS)
			: roll < 0.65
				? `${pick(VERBS)} ${pick(OBJECTS)} for ${topic} projects.`
				: `Expert ${topic} engineer specializing in ${pick(OBJECTS)}, ${pick(OBJECTS)} and ${pick(OBJECTS)}.`;
	const details = Array.from({ length: Math.floor(next() * 4) }, () => pick(DETAILS));
	const when = `${pick(SITUATIONS)} ${topic} or ${pick(OBJECTS)}`;
	const style = next();
	if (style < 0.15) return [opening, ...details].join(" ");
	if (style < 0.45) return [opening, ...details, `Use when ${when}.`].join(" ");
	if (style < 0.6) return [opening, `Use this skill when ${when}.`, ...details].join(" ");
	if (style < 0.7) return [opening, ...details, `This skill should be used when ${when}.`].join(" ");
	if (style < 0.8) return `${opening.slice(0, -1)}; use it when ${when}. ${details.join(" ")}`.trim();
	if (style < 0.9) return [opening, ...details, `Use when: ${when}, ${pick(OBJECTS)}, ${pick(OBJECTS)}.`].join(" ");
	return opening;
}

/** `count` skills with distinct names, the same for the same seed. */
export function generateSkills(count: number, seed = 20): GeneratedSkill[] {
	const next = random(seed);
	const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
	const names = new Set<string>();
	while (names.size < count) {
		const head = pick(HEADS);
		names.add(next() < 0.3 ? head : `${head}-${pick(TAILS)}`);
	}
	return [...names].map((name) => ({ name, description: describe(name, next) }));
}

/** Writes the skills as `<root>/<name>/SKILL.md` (descriptions quoted as YAML requires) and returns them. */
export async function writeSkillCollection(root: string, skills: readonly GeneratedSkill[]): Promise<string> {
	const files: Record<string, string> = {};
	for (const { name, description } of skills) {
		files[join(name, "SKILL.md")] =
			`---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n\nSteps.\n`;
	}
	return writeTree(root, files);
}
