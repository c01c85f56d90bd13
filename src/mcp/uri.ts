import type { IndexedSkill } from "../discovery/index.ts";

/** The scheme SEP-2640 uses for skill files. */
export const SKILL_SCHEME = "skill://";

/**
 * The skill path of a served skill: its name, behind its scope when the collision policy qualified it
 * (`user/pdf` for `pdf@user`), so the last segment is always the declared name.
 */
export function skillPathOf(skill: IndexedSkill): string {
	if (skill.name === skill.id) return skill.id;
	const at = skill.qualifiedName.lastIndexOf("@");
	return `${skill.qualifiedName.slice(at + 1)}/${skill.id}`;
}

/** The URI of a file (a relative POSIX path) of the skill at `skillPath`; each segment percent-encoded. */
export function fileUri(skillPath: string, relPath: string): string {
	return `${SKILL_SCHEME}${skillPath}/${relPath.split("/").map(encodeURIComponent).join("/")}`;
}

/** The URI of the SKILL.md of the skill at `skillPath`: what {@link fileUri} makes of it, without the split and join. */
export function skillFileUri(skillPath: string): string {
	return `${SKILL_SCHEME}${skillPath}/SKILL.md`;
}

/** The URI of a skill's directory resource (no trailing slash); `""` is the skill root. */
export function directoryUri(skillPath: string, relDir: string): string {
	return relDir === "" ? `${SKILL_SCHEME}${skillPath}` : fileUri(skillPath, relDir);
}

/**
 * Splits a `skill://` URI into its decoded path segments, or undefined when it is not one: another scheme, a query
 * or fragment, bad percent-encoding, or a segment that decodes to a separator, NUL, `.` or `..`.
 */
export function uriSegments(uri: string): string[] | undefined {
	if (!uri.startsWith(SKILL_SCHEME) || /[?#\\]/.test(uri)) return undefined;
	const raw = uri.slice(SKILL_SCHEME.length).split("/");
	// Without a `%` every segment decodes to itself (most URIs a client sends): only the segment checks remain.
	if (!uri.includes("%")) return raw.every(plainSegment) ? raw : undefined;
	const segments: string[] = [];
	for (const part of raw) {
		let decoded: string;
		try {
			decoded = decodeURIComponent(part);
		} catch {
			return undefined;
		}
		if (decoded === "" || decoded === "." || decoded === ".." || /[/\\]/.test(decoded) || decoded.includes("\u0000"))
			return undefined;
		segments.push(decoded);
	}
	return segments.length > 0 ? segments : undefined;
}

/** A segment that names a file or folder below the skill: not empty, `.`, `..` or holding a NUL. */
function plainSegment(segment: string): boolean {
	return segment !== "" && segment !== "." && segment !== ".." && !segment.includes("\u0000");
}
