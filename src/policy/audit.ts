import { extname, join } from "node:path";
import { allResources, listResources, readContained } from "../runtime/index.ts";
import type { SkillProperties } from "../skill/index.ts";
import {
	type AuditSeverity,
	CREDENTIAL_PATTERN,
	executableKind,
	LINE_RULES,
	type LineContext,
	NETWORK_PATTERN,
} from "./audit-rules.ts";

/** One finding: which rule, how severe, where (file, line, column), the offending text and why it matters. */
export interface AuditFinding {
	rule: string;
	severity: AuditSeverity;
	title: string;
	skill: string;
	file: string;
	line?: number;
	column?: number;
	snippet: string;
	why: string;
}

/** A skill to audit: its name, folder, and (when it parsed) what it declares. */
export interface AuditTarget {
	name: string;
	dir: string;
	properties?: SkillProperties | null;
}

/** Every rule id with its severity, title and reason, for reports and SARIF. */
export const AUDIT_RULES: readonly { id: string; severity: AuditSeverity; title: string; why: string }[] = [
	...LINE_RULES.map(({ id, severity, title, why }) => ({ id, severity, title, why })),
	{
		id: "credential-exfiltration",
		severity: "P0",
		title: "Credentials read and sent out",
		why: "The skill reads credentials or the environment and also sends data over the network.",
	},
	{
		id: "binary-executable",
		severity: "P0",
		title: "Executable file in the package",
		why: "A compiled program cannot be reviewed like a script.",
	},
	{
		id: "sensitive-read",
		severity: "P1",
		title: "Credentials or environment read",
		why: "Reading secrets needs a reason and the user's approval.",
	},
	{
		id: "undeclared-network",
		severity: "P1",
		title: "Network use beyond the declared permissions",
		why: "The scripts reach the network although the manifest says they do not.",
	},
	{
		id: "broad-allowed-tools",
		severity: "P1",
		title: "Over-broad allowed-tools",
		why: "A bare Bash or a wildcard pre-approves any command.",
	},
	{
		id: "network-use",
		severity: "P2",
		title: "Network use",
		why: "The scripts use the network; declare it in permissions.network.",
	},
	{
		id: "missing-license",
		severity: "P2",
		title: "No licence",
		why: "Users cannot tell under which terms they may use the skill.",
	},
	{
		id: "long-description",
		severity: "P2",
		title: "Over-long description",
		why: "Descriptions over 1,024 characters are cut in catalogs.",
	},
];

const RULE_INFO = new Map(AUDIT_RULES.map((rule) => [rule.id, rule]));
const SCRIPT = /\.(sh|bash|zsh|py|js|mjs|cjs|ts|ps1|psm1|rb|pl|bat|cmd|php|lua)$/i;
const MARKDOWN = /\.(md|markdown|txt)$/i;

interface Unit {
	file: string;
	line: number;
	column: number;
	text: string;
	context: LineContext;
}

/**
 * Audits one skill's files (SKILL.md, references, scripts, assets) with the rule catalogue: commands are matched
 * in code (fenced blocks, inline code, scripts), phrases in prose and HTML comments. Triage, not a boundary.
 */
export function auditSkill(target: AuditTarget): AuditFinding[] {
	const findings: AuditFinding[] = [];
	const add = (rule: string, unit: Pick<Unit, "file" | "line" | "column" | "text">) => {
		const info = RULE_INFO.get(rule);
		if (!info) return;
		findings.push({
			rule,
			severity: info.severity,
			title: info.title,
			skill: target.name,
			...place(unit),
			snippet: snippet(unit.text),
			why: info.why,
		});
	};
	const units: Unit[] = [];
	for (const rel of ["SKILL.md", ...allResources(listResources(target.dir, { maxFiles: 1000 }))]) {
		const read = readContained(target.dir, rel, { maxBytes: 4 << 20, allowHardLinks: true });
		if (!read.ok) continue;
		const file = join(target.dir, rel);
		const kind = executableKind(read.bytes);
		if (kind) add("binary-executable", { file, line: 0, column: 0, text: `${rel}: ${kind}` });
		if (kind || read.bytes.subarray(0, 8192).includes(0)) continue;
		units.push(...unitsOf(file, new TextDecoder().decode(read.bytes)));
	}
	for (const unit of units) {
		for (const rule of LINE_RULES) {
			if (!rule.contexts.includes(unit.context)) continue;
			const match = rule.pattern.exec(unit.text);
			if (match) add(rule.id, { ...unit, column: unit.column + match.index });
		}
	}
	chainFindings(units, target, add);
	declarationFindings(target, add);
	return dedupe(findings);
}

/** Credentials plus a network send in one skill is exfiltration (P0); credentials alone need approval (P1). */
function chainFindings(units: Unit[], target: AuditTarget, add: (rule: string, unit: Unit) => void): void {
	const code = units.filter((u) => u.context === "code");
	const sends = code.filter((u) => NETWORK_PATTERN.test(u.text));
	for (const unit of code.filter((u) => CREDENTIAL_PATTERN.test(u.text))) {
		add(sends.length > 0 ? "credential-exfiltration" : "sensitive-read", unit);
	}
	const scriptSends = sends.filter((u) => SCRIPT.test(u.file));
	const network = target.properties?.manifest?.network;
	const first = scriptSends[0];
	if (first) add(network === false ? "undeclared-network" : "network-use", first);
}

function declarationFindings(target: AuditTarget, add: (rule: string, unit: Unit) => void): void {
	const properties = target.properties;
	if (!properties) return;
	const file = join(target.dir, "SKILL.md");
	const at = { file, line: 0, column: 0, context: "prose" as const };
	const broad = properties.allowedTools?.filter(
		(tool) => tool === "*" || tool === "Bash" || /^Bash\(\s*\*?\s*\)$/.test(tool),
	);
	if (broad?.length) add("broad-allowed-tools", { ...at, text: `allowed-tools: ${broad.join(" ")}` });
	if (!properties.license) add("missing-license", { ...at, text: "no license field" });
	if ([...properties.description].length > 1024)
		add("long-description", { ...at, text: `${[...properties.description].length} characters` });
}

/** Splits a file into lines with their context; inline code in prose is also checked as code. */
function unitsOf(file: string, text: string): Unit[] {
	const lines = text.split(/\r?\n/);
	// Scripts, data files and anything with a shebang are code throughout; Markdown and plain text are mixed.
	if ((!MARKDOWN.test(file) && extname(file) !== "") || text.startsWith("#!")) {
		return lines.map((line, i) => ({ file, line: i + 1, column: 1, text: line, context: "code" }));
	}
	const units: Unit[] = [];
	let fence: string | undefined;
	let comment = false;
	for (const [index, line] of lines.entries()) {
		const number = index + 1;
		const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
		if (marker && (fence === undefined || marker.startsWith(fence))) {
			fence = fence === undefined ? marker : undefined;
			continue;
		}
		if (fence !== undefined || /^\s*\$\s/.test(line)) {
			units.push({ file, line: number, column: 1, text: line, context: "code" });
			continue;
		}
		comment = scanComment(line, comment, (text, column) =>
			units.push({ file, line: number, column, text, context: "comment" }),
		);
		units.push({ file, line: number, column: 1, text: line.replace(/<!--.*?-->/g, ""), context: "prose" });
		for (const match of line.matchAll(/`([^`]+)`/g)) {
			units.push({ file, line: number, column: (match.index ?? 0) + 2, text: match[1] ?? "", context: "code" });
		}
	}
	return units;
}

/** Reports the comment parts of a line; returns whether a comment is still open at its end. */
function scanComment(line: string, open: boolean, report: (text: string, column: number) => void): boolean {
	let inside = open;
	let position = 0;
	while (position < line.length) {
		if (inside) {
			const end = line.indexOf("-->", position);
			report(line.slice(position, end === -1 ? undefined : end), position + 1);
			if (end === -1) return true;
			inside = false;
			position = end + 3;
		} else {
			const start = line.indexOf("<!--", position);
			if (start === -1) return false;
			inside = true;
			position = start + 4;
		}
	}
	return inside;
}

function place(unit: Pick<Unit, "file" | "line" | "column">): { file: string; line?: number; column?: number } {
	return unit.line > 0 ? { file: unit.file, line: unit.line, column: unit.column } : { file: unit.file };
}

/** The line as evidence: trimmed, invisible characters shown, hidden tag text decoded, at most 160 characters. */
function snippet(text: string): string {
	const shown = text
		.trim()
		.replace(
			/[\u{E0000}-\u{E007F}]+/gu,
			(tags) => `[hidden: ${[...tags].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0xe0000)).join("")}]`,
		)
		.replace(
			/[\u200B-\u200D\u2060\u00AD\uFEFF\u202A-\u202E\u2066-\u2069]/gu,
			(c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`,
		);
	return shown.length > 160 ? `${shown.slice(0, 157)}...` : shown;
}

function dedupe(findings: AuditFinding[]): AuditFinding[] {
	const seen = new Set<string>();
	return findings.filter((f) => {
		const key = `${f.rule}\u0000${f.file}\u0000${f.line}`;
		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}
