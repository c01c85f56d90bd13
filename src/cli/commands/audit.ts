import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { type AuditFinding, type AuditSeverity, auditSkill, renderSarif } from "../../audit/index.ts";
import type { Diagnostic } from "../../skill/index.ts";
import type { DiscoveryFlagValues } from "../discovery-flags.ts";
import { discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, createStyle, readVersion, type Style, UsageError } from "../io.ts";
import { plural, renderDiagnostic, renderDiagnostics } from "../render-diagnostics.ts";
import { resolveTargets } from "../targets.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	format: { type: "string" },
	"fail-on": { type: "string", default: "p0" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset audit [PATH...] [options]

Statically audit skills for what looks dangerous: hidden Unicode and HTML-comment directives, goal hijack and
concealment (several languages), downloads that are run, credentials and secrets sent out, install lures, wide
deletes, persistence, custom package sources, secrets, encoded blobs. Severity follows where the text sits (a
script, a step, an example, a table, a negation). Every file not inspected (archive, binary, too large, unreadable)
is reported. PATH is a skill folder or a root; without PATH, the discovered skills. Findings are triage (P0 forbid,
P1 approve, P2 info), not proof.

${discoveryUsage}

Options:
  --format text|json|sarif   output format (SARIF 2.1.0 loads into code scanning tools); default text
  --json                     the same as --format json (with --format sarif: a usage error)
  --fail-on p0|p1|never      exit 1 when a finding is this severe or worse (default p0)

Exit status: 0 nothing at or above --fail-on, 1 findings, 2 usage error.`;

/** One audited skill: its name, its folder as given, its verdict (worst severity, or clean) and its counts. */
export interface AuditedSkill {
	name: string;
	path: string;
	verdict: AuditSeverity | "clean";
	counts: Record<AuditSeverity, number>;
}

/** The audit's result: the JSON document (skills, counts, findings) and, not serialised, how to render it. */
export interface AuditResult {
	skills: AuditedSkill[];
	counts: Record<AuditSeverity, number>;
	findings: AuditFinding[];
	readonly format: string;
	readonly sarif?: string;
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
	if (values.json && values.format !== undefined && values.format !== "json")
		throw new UsageError(`--json means --format json; it cannot be combined with --format ${values.format}`);
	const format = values.json ? "json" : (values.format ?? "text");
	if (!["text", "json", "sarif"].includes(format))
		throw new UsageError(`--format must be text, json or sarif, not '${format}'`);
	const failOn = (values["fail-on"] ?? "p0").toLowerCase();
	if (!["p0", "p1", "never"].includes(failOn))
		throw new UsageError(`--fail-on must be p0, p1 or never, not '${failOn}'`);
	const { targets, problems } = await resolveTargets(positionals, values, io);
	const skills: AuditedSkill[] = [];
	const findings: AuditFinding[] = [];
	for (const target of targets) {
		const display = shownPath(target.dir, positionals, io.cwd);
		const found = auditSkill({ ...target, display });
		findings.push(...found);
		skills.push({ name: target.name, path: display, ...verdictOf(found) });
	}
	findings.sort(
		(a, b) =>
			RANK[a.severity] - RANK[b.severity] ||
			(a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)),
	);
	const counts = { P0: 0, P1: 0, P2: 0 };
	for (const finding of findings) counts[finding.severity]++;
	const limit = failOn === "never" ? -1 : failOn === "p1" ? 1 : 0;
	const failed = problems.length > 0 || findings.some((f) => RANK[f.severity] <= limit);
	const result = { skills, counts, findings, problems } as AuditResult;
	// How to render is not part of the document: `--json` and `--format json` print the same keys.
	Object.defineProperty(result, "format", { value: format, enumerable: false });
	if (format === "sarif") {
		Object.defineProperty(result, "sarif", {
			value: renderSarif(findings, { base: io.cwd, version: readVersion() }),
			enumerable: false,
		});
		// SARIF on stdout stays one document; a PATH that named no skill is said on stderr.
		for (const problem of problems) io.stderr(`${renderDiagnostic(problem, createStyle(io), false)}\n`);
	}
	return { exitCode: failed ? 1 : 0, data: result };
}

function verdictOf(findings: readonly AuditFinding[]): Pick<AuditedSkill, "verdict" | "counts"> {
	const counts = { P0: 0, P1: 0, P2: 0 };
	for (const finding of findings) counts[finding.severity]++;
	const verdict = counts.P0 ? "P0" : counts.P1 ? "P1" : counts.P2 ? "P2" : "clean";
	return { verdict, counts };
}

/**
 * A skill folder the way the user named it: below the PATH they gave (`./skills/x` stays relative), or, without
 * PATHs, relative to the working directory when inside it.
 */
function shownPath(dir: string, positionals: readonly string[], cwd: string): string {
	for (const given of positionals) {
		const rel = relative(resolve(cwd, given), dir);
		if (rel === "") return given;
		if (rel.startsWith("..") || isAbsolute(rel)) continue;
		return `${given.endsWith(sep) ? given : `${given}${sep}`}${rel}`;
	}
	const rel = relative(cwd, dir);
	return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? dir : rel;
}

/** Findings most severe first, each with its evidence and count; a line per skill that is not clean; SARIF as is. */
export function render(data: AuditResult, style: Style): string {
	if (data.format === "sarif" && data.sarif) return data.sarif;
	if (data.format === "json") return `${JSON.stringify(data, null, 2)}\n`;
	const lines: string[] = renderDiagnostics(data.problems, style, new Set());
	for (const f of data.findings) {
		const place = [f.file, f.line, f.column].filter((p) => p !== undefined).join(":");
		const severity =
			f.severity === "P0"
				? style.red(f.severity)
				: f.severity === "P1"
					? style.yellow(f.severity)
					: style.blue(f.severity);
		const count = f.count > 1 ? ` ×${f.count}` : "";
		lines.push(
			`${place}  ${severity}  ${style.bold(f.rule)}${count}  ${f.title} (${f.skill}, ${f.confidence} confidence)`,
			`    ${style.dim(f.snippet)}`,
		);
		if (f.detail) lines.push(`    ${style.dim(f.detail)}`);
	}
	const clean = data.skills.filter((s) => s.verdict === "clean").length;
	const unread = data.findings.filter((f) => f.rule === "not-inspected" || f.rule === "not-walked").length;
	lines.push(
		`${plural(data.skills.length, "skill")} audited: ${data.counts.P0} P0, ${data.counts.P1} P1, ${data.counts.P2} P2; ${clean} clean${unread ? `; ${plural(unread, "file")} not inspected` : ""}`,
	);
	if (data.skills.length === 0 && data.problems.length === 0) {
		lines.push("No skill was found: 'skillset scan' shows where skillset looked.");
	}
	return `${lines.join("\n")}\n`;
}
