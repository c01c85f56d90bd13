import { basename } from "node:path";
import {
	type FileSignature,
	type ParseSkillOptions,
	readSkillFrontmatterSync,
	type SkillProperties,
	validateParsedSkill,
} from "../skill/index.ts";
import { type DiscoveryDiagnostic, discoveryDiagnostic } from "./codes.ts";
import type { Candidate } from "./folder.ts";

/** A candidate after its frontmatter was read and checked with the lenient profile. */
export interface LoadedSkill {
	candidate: Candidate;
	/** Null when the skill cannot be used (no description, unreadable frontmatter, ...). */
	properties: SkillProperties | null;
	/** The walk's diagnostics for this skill and its own. */
	diagnostics: DiscoveryDiagnostic[];
	/** Where the body starts, for reading it at activation. */
	bodyOffset: number | undefined;
	bodyLine: number | undefined;
	/** Size of SKILL.md in bytes. */
	size: number;
	/** The file's signature when it was read (absent when it could not be). */
	signature?: FileSignature;
}

/** Options for reading a candidate's frontmatter. */
export interface LoadOptions extends Pick<ParseSkillOptions, "maxFileBytes" | "maxFrontmatterBytes"> {
	/** The walk accepts a SKILL.md that is a link (default false): only then may the load follow one. */
	allowSymlinkedSkillFile?: boolean;
}

/**
 * Reads only the frontmatter bytes of a candidate's SKILL.md (synchronously: bounded by the frontmatter cap) and
 * validates it leniently. Never throws.
 */
export function loadCandidate(candidate: Candidate, options: LoadOptions = {}): LoadedSkill {
	// Options built field by field, not spread: on Node 20 a spread with more properties costs microseconds per skill.
	const { maxFileBytes, maxFrontmatterBytes } = options;
	const file = candidate.file;
	// The walk refused links from readdir's kinds; a SKILL.md swapped for a link since then must not be read
	// through it (the open itself refuses the link), else the `entry.symlink` rule fails open.
	const noFollow = options.allowSymlinkedSkillFile !== true;
	const read = readSkillFrontmatterSync(file, {
		maxFileBytes,
		maxFrontmatterBytes,
		profile: "lenient",
		file,
		noFollow,
	});
	if (read.symlink) return refusedLink(candidate);
	const checked = validateParsedSkill(read, { profile: "lenient", file, dirName: basename(candidate.dir) });
	const loaded: LoadedSkill = {
		candidate,
		properties: checked.valid ? checked.properties : null,
		diagnostics:
			candidate.diagnostics.length > 0 ? [...candidate.diagnostics, ...checked.diagnostics] : checked.diagnostics,
		bodyOffset: read.bodyOffset,
		bodyLine: read.bodyLine,
		size: read.size,
	};
	if (read.signature) loaded.signature = read.signature;
	return loaded;
}

/**
 * What a fresh scan reports for a linked SKILL.md: the walk's `entry.symlink` rejection, not an unreadable file, so
 * the user sees the same reason however the race fell. The candidate itself is left alone (a kept walk reuses it).
 */
function refusedLink(candidate: Candidate): LoadedSkill {
	const message = "SKILL.md is a symbolic link; it is not loaded";
	const refused = discoveryDiagnostic("entry.symlink", message, candidate.file);
	return {
		candidate,
		properties: null,
		diagnostics: [...candidate.diagnostics, refused],
		bodyOffset: undefined,
		bodyLine: undefined,
		size: 0,
	};
}
