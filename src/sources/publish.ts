import { gzipSync } from "node:zlib";
import { sha256, sortedPaths } from "../runtime/index.ts";
import { codePointLength, isValidSkillName } from "../skill/index.ts";
import { describeFailure, type SourceErrorCode } from "./errors.ts";
import { type OmitReason, selectPublishFiles } from "./publish-files.ts";
import { renderIndexPage } from "./publish-html.ts";
import { PublishOut } from "./publish-out.ts";
import { writeTar } from "./tar.ts";
import { readArchive } from "./unpack.ts";
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

/** Options of {@link publishSkills}. */
export interface PublishOptions {
	/**
	 * Paths (relative to a skill's folder, or `<skill>/<path>`) to publish although they would be left out: a
	 * dot-file, an editor backup, or a folder of them; and each file that looks like a credential, named one by one.
	 */
	include?: readonly string[];
	/** Write nothing: only report what would be published, left out and refused (`publish --check`). */
	check?: boolean;
	/** Also write `OUT/index.html`, a browsable page of the index. */
	html?: boolean | { siteUrl?: string };
}

/** The longest description the discovery RFC and the Agent Skills spec allow, in code points. */
export const MAX_DESCRIPTION = 1024;

/** What `publishSkills` did: the entries written, the files left out, the skills refused, and a failure to write. */
export interface PublishResult {
	entries: PublishedEntry[];
	/** Files and folders left out by default (dot-files, editor backups), each by its skill and path. */
	omitted: { skill: string; path: string; reason: OmitReason }[];
	/** Skills not published: holding a link, a special file, a credential-like file, or more than `add` unpacks. */
	refused: { skill: string; code: SourceErrorCode; message: string }[];
	/**
	 * Skills left out with a warning, the others still published: a description over 1,024 characters, which the
	 * discovery RFC forbids and clients skip (as `skillset mcp` leaves such a skill out).
	 */
	leftOut: { skill: string; code: SourceErrorCode; message: string }[];
	/** Set when OUT could not be written: a link planted in it (found before the first write), or an I/O error. */
	failure?: { code: SourceErrorCode; message: string };
}

const BASE = INDEX_PATH.slice(0, INDEX_PATH.lastIndexOf("/"));

/** The browsable page `--html` writes beside the index, never among the files `add` verifies. */
const PAGE_PATH = "index.html";

interface Artifact {
	entry: PublishedEntry;
	bytes: Uint8Array;
	files: { path: string; size: number }[];
}

/**
 * Writes a static Agent Skills Discovery index (v0.2.0) under `out`: `.well-known/agent-skills/index.json`, a
 * `SKILL.md` artifact for a skill that is only its SKILL.md, and a deterministic `.tar.gz` for the others (sorted
 * entries, fixed modes and times, no owners: the same files always give the same bytes and digest). Dot-files and
 * editor backups are left out, and a skill with links or credential-like files is refused (see `PublishOptions`);
 * every write under `out` goes through one writer (`PublishOut`), which never follows a link.
 */
export async function publishSkills(
	skills: readonly PublishSkill[],
	out: string,
	options: PublishOptions = {},
): Promise<PublishResult> {
	const result: PublishResult = { entries: [], omitted: [], refused: [], leftOut: [] };
	const artifacts: Artifact[] = [];
	for (const skill of [...skills].sort((a, b) => (a.name < b.name ? -1 : 1))) {
		if (!isValidSkillName(skill.name)) {
			// The name is a path segment under OUT, and clients skip an entry whose name is not spec-valid.
			const message = `${JSON.stringify(skill.name)} is not a spec-valid skill name, so it is not published`;
			result.refused.push({ skill: skill.name, code: "publish.invalid", message });
			continue;
		}
		const length = codePointLength(skill.description);
		if (length > MAX_DESCRIPTION) {
			const message = `${skill.name}: its description has ${length} characters, over the ${MAX_DESCRIPTION} the discovery RFC allows (clients skip such an entry), so it is left out; shorten it to publish it`;
			result.leftOut.push({ skill: skill.name, code: "publish.description", message });
			continue;
		}
		const selection = selectPublishFiles(skill.dir, skill.name, options.include ?? []);
		result.omitted.push(...selection.omitted.map((omitted) => ({ skill: skill.name, ...omitted })));
		if (selection.refusals.length > 0) {
			result.refused.push(...selection.refusals.map((refusal) => ({ skill: skill.name, ...refusal })));
			continue;
		}
		try {
			artifacts.push(await artifactOf(skill, selection.files));
		} catch (error) {
			const failure = describeFailure(error, "publish.invalid");
			result.refused.push({ skill: skill.name, code: "publish.invalid", message: `${skill.name}: ${failure.message}` });
		}
	}
	if (options.check) {
		result.entries = artifacts.map((artifact) => artifact.entry);
		return result;
	}
	try {
		const html = options.html ? pageOf(artifacts, options.html === true ? undefined : options.html.siteUrl) : undefined;
		writeSite(out, artifacts, html);
		result.entries = artifacts.map((artifact) => artifact.entry);
	} catch (error) {
		result.failure = describeFailure(error, "publish.invalid");
	}
	return result;
}

async function artifactOf(
	skill: PublishSkill,
	files: ReturnType<typeof selectPublishFiles>["files"],
): Promise<Artifact> {
	const single = files.length === 1 && files[0]?.path === "SKILL.md";
	const order = new Map(sortedPaths(files.map((file) => file.path)).map((path, i) => [path, i]));
	const sorted = [...files].sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0));
	// gzip's header time is zero in Node, so the output depends on the files alone.
	const bytes = single ? (files[0]?.data as Uint8Array) : gzipSync(writeTar(sorted), { level: 9 });
	// What `add` would refuse to unpack (a case collision, say) is not published.
	if (!single) await readArchive(bytes, "tar.gz", { requireSkillMd: true });
	const url = single ? `${skill.name}/SKILL.md` : `${skill.name}.tar.gz`;
	const type = single ? "skill-md" : "archive";
	const entry = {
		name: skill.name,
		type,
		description: skill.description,
		url,
		digest: `sha256:${sha256(bytes)}`,
	} as const;
	return { entry, bytes, files: sorted.map((file) => ({ path: file.path, size: file.data.length })) };
}

function pageOf(artifacts: readonly Artifact[], siteUrl: string | undefined): string {
	const skills = artifacts.map(({ entry, bytes, files }) => ({ ...entry, size: bytes.length, files }));
	return renderIndexPage(skills, siteUrl);
}

/** Every path is checked for links before the first write; the index is written last, then the page (if any). */
function writeSite(out: string, artifacts: readonly Artifact[], html: string | undefined): void {
	const site = PublishOut.open(out);
	try {
		const paths: { path: string; kind: "file" | "folder" }[] = [{ path: BASE, kind: "folder" }];
		for (const { entry } of artifacts) {
			paths.push({ path: `${BASE}/${entry.name}/SKILL.md`, kind: "file" });
			paths.push({ path: `${BASE}/${entry.name}.tar.gz`, kind: "file" });
		}
		paths.push({ path: INDEX_PATH, kind: "file" });
		if (html !== undefined) paths.push({ path: PAGE_PATH, kind: "file" });
		site.check(paths);
		for (const { entry, bytes } of artifacts) {
			// The other form of an earlier publish goes, so the site holds one artifact per skill.
			if (entry.type === "skill-md") site.remove(`${BASE}/${entry.name}.tar.gz`);
			else {
				site.remove(`${BASE}/${entry.name}/SKILL.md`);
				site.removeFolderIfEmpty(`${BASE}/${entry.name}`);
			}
			site.write(`${BASE}/${entry.url}`, bytes);
		}
		const index = { $schema: INDEX_SCHEMA_V2, skills: artifacts.map((artifact) => artifact.entry) };
		site.write(INDEX_PATH, `${JSON.stringify(index, null, 2)}\n`);
		if (html !== undefined) site.write(PAGE_PATH, html);
	} finally {
		site.close();
	}
}
