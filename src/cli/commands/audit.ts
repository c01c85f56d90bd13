import type { ParseArgsConfig } from "node:util";
import { type AuditFinding, type AuditSeverity, auditSkill, renderSarif } from "../../policy/index.ts";
import type { Diagnostic } from "../../skill/index.ts";
import type { DiscoveryFlagValues } from "../discovery-flags.ts";
import { discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, createStyle, readVersion, type Style, UsageError } from "../io.ts";
import { plural, renderDiagnostic, renderDiagnostics } from "../render-diagnostics.ts";
import { resolveTargets } from "../targets.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	format: { type: "string", default: "text" },
	"fail-on": { type: "string", default: "p0" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset audit [PATH...] [options]

Statically audit skills for what looks dangerous: hidden Unicode and HTML-comment directives, remote code piped
into interpreters, decode-and-execute, reverse shells, credential reads sent out, concealment and jailbreak
phrases, destructive commands, persistence, secrets, encoded blobs, undeclared network use. PATH is a skill folder
or a root; without PATH, the discovered skills. Findings are triage (P0 forbid, P1 approve, P2 info), not proof.

${discoveryUsage}

Options:
  --format text|json|sarif   output format (SARIF 2.1.0 loads into code scanning tools)
  --json                     short for --format json
  --fail-on p0|p1|never      exit 1 when a finding is this severe or worse (default p0)

Exit status: 0 nothing at or above --fail-on, 1 findings, 2 usage error.`;

/** The audit's result. */
export interface AuditResult {
	skills: number;
	findings: AuditFinding[];
	counts: Record<AuditSeverity, number>;
	format: string;
	sarif?: string;
	/** PATHs that named no skill: missing, not a folder, or a folder without skills. */
	problems: Diagnostic[];
}

const RANK: Readonly<Record<AuditSeverity, number>> = { P0: 0, P1: 1, P2: 2 };

/** Audits every target; exit 1 when a finding reaches --fail-on. */
export async function run(
	values: DiscoveryFlagValues & { format?: string; "fail-on"?: string; json?: boolean },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<AuditResult>> {
	const format = values.json ? "json" : (values.format ?? "text");
	if (!["text", "json", "sarif"].includes(format))
		throw new UsageError(`--format must be text, json or sarif, not '${format}'`);
	const failOn = (values["fail-on"] ?? "p0").toLowerCase();
	if (!["p0", "p1", "never"].includes(failOn))
		throw new UsageError(`--fail-on must be p0, p1 or never, not '${failOn}'`);
	const { targets, problems } = await resolveTargets(positionals, values, io);
	const findings = targets.flatMap((target) => auditSkill(target));
	findings.sort(
		(a, b) =>
			RANK[a.severity] - RANK[b.severity] ||
			(a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)),
	);
	const counts = { P0: 0, P1: 0, P2: 0 };
	for (const finding of findings) counts[finding.severity]++;
	const limit = failOn === "never" ? -1 : failOn === "p1" ? 1 : 0;
	const failed = problems.length > 0 || findings.some((f) => RANK[f.severity] <= limit);
	const result: AuditResult = { skills: targets.length, findings, counts, format, problems };
	if (format === "sarif") {
		result.sarif = renderSarif(findings, { base: io.cwd, version: readVersion() });
		// SARIF on stdout stays one document; a PATH that named no skill is said on stderr.
		for (const problem of problems) io.stderr(`${renderDiagnostic(problem, createStyle(io), false)}\n`);
	}
	return { exitCode: failed ? 1 : 0, data: result };
}

/** Findings most severe first, each with its snippet; SARIF as is. */
export function render(data: AuditResult, style: Style): string {
	if (data.format === "sarif" && data.sarif) return data.sarif;
	if (data.format === "json")
		return `${JSON.stringify({ skills: data.skills, counts: data.counts, findings: data.findings, problems: data.problems }, null, 2)}\n`;
	const lines: string[] = renderDiagnostics(data.problems, style, new Set());
	for (const f of data.findings) {
		const place = [f.file, f.line, f.column].filter((p) => p !== undefined).join(":");
		const severity =
			f.severity === "P0"
				? style.red(f.severity)
				: f.severity === "P1"
					? style.yellow(f.severity)
					: style.blue(f.severity);
		lines.push(`${place}  ${severity}  ${style.bold(f.rule)}  ${f.title} (${f.skill})`, `    ${style.dim(f.snippet)}`);
	}
	lines.push(
		`${plural(data.skills, "skill")} audited: ${data.counts.P0} P0, ${data.counts.P1} P1, ${data.counts.P2} P2`,
	);
	if (data.skills === 0 && data.problems.length === 0) {
		lines.push("No skill was found: 'skillset scan' shows where skillset looked.");
	}
	return `${lines.join("\n")}\n`;
}
