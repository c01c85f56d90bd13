import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { hashPackage, sha256, sortedPaths } from "../runtime/index.ts";
import { SourceError } from "./errors.ts";
import { writeTar } from "./tar.ts";
import { INDEX_PATH, INDEX_SCHEMA_V2 } from "./well-known.ts";

/** A skill to publish: its id, description and folder. */
export interface PublishSkill {
	name: string;
	description: string;
	dir: string;
}

/** One published entry, as written to the index. */
export interface PublishedEntry {
	name: string;
	type: "skill-md" | "archive";
	description: string;
	url: string;
	digest: string;
}

/**
 * Writes a static Agent Skills Discovery index (v0.2.0) under `out`: `.well-known/agent-skills/index.json`, a
 * `SKILL.md` artifact for a skill that is only its SKILL.md, and a deterministic `.tar.gz` for the others (sorted
 * entries, fixed modes and times, no owners: the same files always give the same bytes and digest).
 */
export async function publishSkills(skills: readonly PublishSkill[], out: string): Promise<PublishedEntry[]> {
	const base = join(out, ".well-known", "agent-skills");
	await mkdir(base, { recursive: true });
	const entries: PublishedEntry[] = [];
	for (const skill of [...skills].sort((a, b) => (a.name < b.name ? -1 : 1))) {
		const hashed = hashPackage(skill.dir);
		if (hashed.problems.length > 0) {
			throw new SourceError(
				"install.invalid",
				`${skill.name} cannot be published: ${hashed.problems.slice(0, 3).join("; ")}`,
			);
		}
		const paths = sortedPaths(Object.keys(hashed.files));
		const single = paths.length === 1 && paths[0] === "SKILL.md";
		const artifact = single ? await readFile(join(skill.dir, "SKILL.md")) : await archiveOf(skill.dir, paths);
		const url = single ? `${skill.name}/SKILL.md` : `${skill.name}.tar.gz`;
		await rm(join(base, skill.name), { recursive: true, force: true });
		await rm(join(base, `${skill.name}.tar.gz`), { force: true });
		await mkdir(join(base, single ? skill.name : ""), { recursive: true });
		await writeFile(join(base, url), artifact);
		entries.push({
			name: skill.name,
			type: single ? "skill-md" : "archive",
			description: skill.description,
			url,
			digest: `sha256:${sha256(artifact)}`,
		});
	}
	const index = { $schema: INDEX_SCHEMA_V2, skills: entries };
	await writeFile(join(out, INDEX_PATH), `${JSON.stringify(index, null, 2)}\n`);
	return entries;
}

async function archiveOf(dir: string, paths: readonly string[]): Promise<Uint8Array> {
	const files = await Promise.all(
		paths.map(async (path) => {
			const file = join(dir, ...path.split("/"));
			return { path, data: await readFile(file), executable: ((await stat(file)).mode & 0o111) !== 0 };
		}),
	);
	// gzip's header time is zero in Node, so the output depends on the files alone.
	return gzipSync(writeTar(files), { level: 9 });
}
