import type { PermissionDiff } from "../policy/index.ts";
import type { SkillReview } from "../sources/index.ts";
import { plural } from "./render-diagnostics.ts";
import { terminalSafe } from "./terminal-text.ts";

/**
 * A skill's audit verdict, its worst findings and the permissions it declares, for people deciding on it. All of it
 * is the source's text (quoted lines, tool names, paths): it is made terminal-safe, so an escape sequence in a
 * quoted line cannot erase the finding above the approval question.
 */
export function renderReview(review: SkillReview): string {
	return terminalSafe(reviewText(review));
}

function reviewText(review: SkillReview): string {
	const lines = [
		`audit: ${review.verdict}${review.findings.length ? ` (${plural(review.findings.length, "finding")})` : ""}`,
	];
	for (const finding of review.findings.filter((f) => f.severity !== "P2").slice(0, 5)) {
		lines.push(
			`  ${finding.severity} ${finding.rule}: ${finding.file.split("/").slice(-2).join("/")}:${finding.line ?? 0} ${finding.snippet}`,
		);
	}
	const manifest = review.manifest;
	lines.push(
		manifest
			? `permissions: tools ${list(manifest.tools)}; network ${manifest.network === true ? "any" : manifest.network === false ? "none" : list(manifest.network)}; read ${list(manifest.paths.read)}; write ${list(manifest.paths.write)}`
			: "permissions: not declared (the skill is limited only by what the host allows)",
	);
	if (review.allowedTools?.length) lines.push(`pre-approves: ${review.allowedTools.join(", ")}`);
	return `${lines.join("\n")}\n`;
}

/** What a new version asks for beyond the installed one, and what it gives up (terminal-safe). */
export function renderPermissionDiff(diff: PermissionDiff): string {
	return terminalSafe(permissionDiffText(diff));
}

function permissionDiffText(diff: PermissionDiff): string {
	const parts: string[] = [];
	for (const [kind, items] of Object.entries(diff.added)) if (items.length) parts.push(`+${kind} ${items.join(", ")}`);
	for (const [kind, items] of Object.entries(diff.removed))
		if (items.length) parts.push(`-${kind} ${items.join(", ")}`);
	return parts.length ? parts.join("; ") : "no permission change";
}

function list(items: readonly string[]): string {
	return items.length ? items.join(", ") : "none";
}
