import { join } from "node:path";
import type { SkillProperties } from "../skill/index.ts";
import { blobHits, type Hit, secretHits, unicodeHits, urlHits } from "./chars.ts";
import { type ArchiveEntry, type AuditLimits, DEFAULT_AUDIT_LIMITS, type PackageFile, readPackage } from "./files.ts";
import { flowHits, type SkillFlows } from "./flow.ts";
import { lookalikeHits } from "./lookalike.ts";
import { proseHits } from "./prose.ts";
import { AUDIT_RULES, type AuditConfidence, type AuditContext, type AuditRule, type AuditSeverity } from "./rules.ts";
import { type Unit, unitsOf } from "./text.ts";

/**
 * One finding, grouped per rule and file: the most severe occurrence's place and evidence (the matched text with a
 * little context, hidden characters made visible), how many occurrences there were, and how sure the rule is.
 */
export interface AuditFinding {
	rule: string;
	severity: AuditSeverity;
	confidence: AuditConfidence;
	title: string;
	skill: string;
	file: string;
	line?: number;
	column?: number;
	snippet: string;
	/** Lines of this file where the rule matched (the finding shows the most severe one); a line counts once. */
	count: number;
	/** How a chain was found (what was read and where it is sent), when the rule follows one; not file text. */
	detail?: string;
	/** Where the shown occurrence sits, which set its severity. */
	context: AuditContext;
	why: string;
}

/** A skill to audit: its name, folder, what it declares (when it parsed), and the folder as the user named it. */
export interface AuditTarget {
	name: string;
	dir: string;
	properties?: SkillProperties | null;
	/** The folder as shown in findings (default `dir`): paths are reported the way they were given. */
	display?: string;
}

/** Options of {@link auditSkill}. */
export interface AuditOptions {
	limits?: Partial<AuditLimits>;
}

const RULE_INFO = new Map<string, AuditRule>(AUDIT_RULES.map((rule) => [rule.id, rule]));
const RANK: Readonly<Record<AuditSeverity, number>> = { P0: 0, P1: 1, P2: 2 };
const LOWER: Readonly<Record<AuditSeverity, AuditSeverity>> = { P0: "P1", P1: "P2", P2: "P2" };
const CODE_ONLY = new Set(["suspicious-url", "encoded-blob"]);
const HINT_RULES = new Set(["plain-http", "encoded-blob", "network-use", "typosquat-package", "hidden-html-directive"]);
const EDUCATIONAL =
	/\b(penetration|pentest\w{0,3}|exploit\w{0,5}|red[- ]team\w{0,3}|ctf|offensive security|malware analysis|security (research|education|training|testing|audit\w{0,3})|vulnerabilit(y|ies)|payloads?|ethical hacking|bug bount(y|ies)|threat (hunting|detection)|incident response)\b/i;
const NEGATION =
	/\b(never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|cannot|can'?t|avoid\w{0,3}|forbid\w{0,4}|prohibit\w{0,4}|not allowed|refuse\w{0,2}|reject\w{0,2}|block\w{0,3}|den(y|ies|ied)|instead of|unsafe|dangerous|malicious|attack\w{0,3}|injection|phishing|warning|careful|e\.g\.|such as|for example|example|nunca|jamais|niemals|nie)\b|не |不要|禁止|绝不|しない/i;

/**
 * Audits one skill's package: every text file (SKILL.md in any case, references, scripts with or without an
 * extension, data files) whatever its encoding, gzip files and archive contents, and what was not read. Severity
 * follows where the text sits and whether a source meets a sink in one flow. Triage, not a boundary.
 */
export function auditSkill(target: AuditTarget, options: AuditOptions = {}): AuditFinding[] {
	const limits = { ...DEFAULT_AUDIT_LIMITS, ...options.limits };
	const shown = target.display ?? target.dir;
	const hits: Hit[] = [];
	const report = (hit: Hit) => hits.push(hit);
	const files = readPackage(target.dir, limits);
	const educational = EDUCATIONAL.test(`${target.name} ${target.properties?.description ?? ""}`);
	let flowId = 0;
	const skill: SkillFlows = { sources: [], sinks: [] };
	const unread: Exclude<PackageFile, { type: "text" }>[] = [];
	let runsCode = shellTools(target.properties?.allowedTools);
	for (const file of files) {
		if (file.type !== "text") {
			unread.push(file);
			if (file.type === "skipped" && file.lines) {
				const units = unitsOf(file.rel, file.lines, "data", { flow: () => ++flowId, educational });
				textHits(units, skill, report);
			}
			continue;
		}
		const units = unitsOf(file.rel, file.text, file.kind, { flow: () => ++flowId, educational });
		if (file.kind === "script" || units.some((unit) => unit.context === "step")) runsCode = true;
		textHits(units, skill, report);
	}
	if (unread.some((file) => file.type === "skipped" && file.script)) runsCode = true;
	for (const file of unread) packageHits(file, runsCode, report);
	skillHits(files, target, skill, report);
	return group(hits, target, shown);
}

/** A bare shell tool in allowed-tools: the skill runs commands. */
function shellTools(tools: readonly string[] | undefined): boolean {
	return tools?.some((tool) => /^(?:\*|(?:Bash|Shell|run_shell)\b)/i.test(tool)) ?? false;
}

function textHits(units: readonly Unit[], skill: SkillFlows, report: (hit: Hit) => void): void {
	const flows = new Map<number, Unit[]>();
	for (const unit of units) {
		urlHits(unit, report);
		blobHits(unit, report);
		if (unit.context !== "step" && unit.context !== "example") proseHits(unit, report);
		// After the phrase rules, which may have read the unit's words already (prose-anchors.ts): plain ASCII needs
		// no look for hidden or look-alike letters, and a key's words are known.
		unicodeHits(unit, report);
		lookalikeHits(unit, report);
		secretHits(unit, report);
		const flow = flows.get(unit.flow);
		if (flow) flow.push(unit);
		else flows.set(unit.flow, [unit]);
	}
	for (const [id, flow] of flows) flowHits(flow, id, skill, report);
}

/** Findings about the package as a whole: SKILL.md, cross-flow chains, declarations. */
function skillHits(files: readonly PackageFile[], target: AuditTarget, skill: SkillFlows, report: (hit: Hit) => void) {
	const at = (rel: string, text: string, context: AuditContext = "package"): Unit => ({
		file: rel,
		line: 0,
		column: 0,
		text,
		context,
		kind: "data",
		flow: 0,
		before: "",
	});
	const whole = (rule: string, rel: string, text: string, severity?: AuditSeverity) =>
		report({ rule, unit: at(rel, text), start: 0, end: text.length, severity });
	const entry = files.find((f) => f.rel.toLowerCase() === "skill.md" && f.type === "text");
	if (!entry) {
		const skipped = files.find((f) => f.rel.toLowerCase() === "skill.md");
		const why = skipped?.type === "skipped" ? skipped.why : "no SKILL.md in the folder";
		whole("skill-unreadable", skipped?.rel ?? "SKILL.md", `SKILL.md: ${why}`);
	}
	for (const source of skill.sources) {
		const sink = skill.sinks.find((s) => s.flow !== source.flowId);
		const read = source.unit.text.slice(source.start, source.end);
		const place = { unit: source.unit, start: source.start, end: source.end };
		if (source.weak) report({ ...place, rule: "sensitive-read", severity: "P2" });
		else if (sink) {
			const evidence = `reads ${read} here; ${sink.unit.file}:${sink.unit.line} sends: ${sink.unit.text.trim().slice(0, 100)}`;
			report({ ...place, rule: "credential-exfiltration", severity: "P1", evidence });
		} else report({ ...place, rule: "sensitive-read" });
	}
	const scriptSink = skill.sinks.find((s) => s.unit.context === "script");
	if (scriptSink) {
		const network = target.properties?.manifest?.network;
		const unit = scriptSink.unit;
		report({ rule: network === false ? "undeclared-network" : "network-use", unit, start: 0, end: unit.text.length });
	}
	const properties = target.properties;
	if (!properties) return;
	const skillMd = entry?.rel ?? "SKILL.md";
	const broad = properties.allowedTools?.filter(
		(tool) => tool === "*" || tool === "Bash" || /^Bash\(\s{0,3}\*?\s{0,3}\)$/.test(tool),
	);
	if (broad?.length) whole("broad-allowed-tools", skillMd, `allowed-tools: ${broad.join(" ")}`);
	if (!properties.license) whole("missing-license", skillMd, "no license field");
	const length = [...properties.description].length;
	if (length > 1024) whole("long-description", skillMd, `description of ${length} characters`);
}

const ARCHIVE_EXECUTABLE = /\.(exe|dll|so|dylib|scr|bat|cmd|ps1|msi|com|vbs|jar|bin|sh|command|app\/?)$/i;

/**
 * What was not read. Past a walk bound it is `not-walked` (the install would copy it unread); otherwise
 * `not-inspected`, which needs approval (P1) when it could hold code and the skill runs code.
 */
function packageHits(
	file: Exclude<PackageFile, { type: "text" }>,
	runsCode: boolean,
	report: (hit: Hit) => void,
): void {
	const unit = (text: string): Unit => ({
		file: file.rel,
		line: 0,
		column: 0,
		text,
		context: "package",
		kind: "data",
		flow: 0,
		before: "",
	});
	const hit = (rule: string, text: string, severity?: AuditSeverity) =>
		report({ rule, unit: unit(text), start: 0, end: text.length, severity });
	if (file.type === "archive") {
		for (const entry of file.entries) archiveEntryHit(file.rel, entry, unit, report);
		if (file.unread === 0) return;
		const text = `${file.rel}: ${file.format} archive: ${file.entries.length} entries listed, ${file.unread} not inspected (${file.why ?? "unreadable"})`;
		hit("not-inspected", text, runsCode ? "P1" : "P2");
		return;
	}
	const text = `${file.rel}: ${file.why}`;
	if (file.bound) {
		hit("not-walked", text);
		return;
	}
	if (file.binary) hit("binary-executable", text);
	hit("not-inspected", text, runsCode && file.code ? "P1" : "P2");
}

function archiveEntryHit(rel: string, entry: ArchiveEntry, unit: (text: string) => Unit, report: (hit: Hit) => void) {
	const name = entry.name;
	const escapes = name.startsWith("/") || /^[A-Za-z]:/.test(name) || name.split(/[\\/]/).includes("..");
	const text = `${rel} → ${entry.via}${name}`;
	if (escapes) report({ rule: "archive-entry", unit: unit(text), start: 0, end: text.length, severity: "P0" });
	else if (entry.kind === "link" || (entry.kind === "file" && ARCHIVE_EXECUTABLE.test(name)))
		report({ rule: "archive-entry", unit: unit(text), start: 0, end: text.length, severity: "P1" });
}

/** Severity and confidence of a hit from where it sits. */
function placed(hit: Hit): { severity: AuditSeverity; confidence: AuditConfidence } {
	const base = hit.severity ?? RULE_INFO.get(hit.rule)?.severity ?? "P2";
	const context = hit.unit.context;
	const cap = (confidence: AuditConfidence): AuditConfidence =>
		HINT_RULES.has(hit.rule) && confidence === "high" ? "medium" : confidence;
	if (context === "example" || context === "table" || negated(hit)) return { severity: "P2", confidence: "low" };
	// A URL or a blob only matters where something uses it: in prose, comments and data it is information.
	if (CODE_ONLY.has(hit.rule) && context !== "script" && context !== "step")
		return { severity: "P2", confidence: "low" };
	if (context === "data" && !hit.flow) return { severity: LOWER[base], confidence: "medium" };
	if (context === "prose" || context === "comment" || context === "data")
		return { severity: base, confidence: cap("medium") };
	return { severity: base, confidence: cap("high") };
}

/** A negation or a documenting phrase just before the match in the same sentence ("never run `…`"). */
function negated(hit: Hit): boolean {
	const unit = hit.unit;
	if (unit.context !== "prose" && unit.context !== "comment" && unit.before === "") return false;
	const before = `${unit.before} ${unit.text.slice(Math.max(0, hit.start - 160), hit.start)}`;
	const sentence = before.slice(
		Math.max(before.lastIndexOf(". "), before.lastIndexOf("! "), before.lastIndexOf("? ")) + 1,
	);
	return NEGATION.test(sentence) || quoted(sentence);
}

/** Text inside quotation marks is quoted, not instructed: "attackers write 'ignore previous instructions'". */
function quoted(before: string): boolean {
	const last = before.trimEnd().slice(-1);
	if (last !== "" && `"'“‘«「»`.includes(last)) return true;
	let doubles = 0;
	for (const c of before) if (c === '"') doubles++;
	return doubles % 2 === 1 || before.lastIndexOf("“") > before.lastIndexOf("”");
}

/** Groups hits per rule and file: the most severe occurrence is shown, the lines it matched on counted once each. */
function group(hits: readonly Hit[], target: AuditTarget, shown: string): AuditFinding[] {
	const groups = new Map<string, AuditFinding>();
	const lines = new Map<string, Set<number>>();
	for (const hit of hits) {
		const info = RULE_INFO.get(hit.rule);
		if (!info) continue;
		const key = `${hit.rule}\u0000${hit.unit.file}`;
		const current = groups.get(key);
		// One line is one occurrence, however many units (prose, inline code, a decoded copy) it was read as.
		const seen = lines.get(key) ?? new Set<number>();
		lines.set(key, seen);
		const line = hit.unit.line > 0 ? hit.unit.line : -seen.size - 1;
		seen.add(line);
		if (current) {
			current.count = seen.size;
			// Placement only lowers a hit's own severity: one that cannot beat the group is just counted.
			if (RANK[hit.severity ?? info.severity] >= RANK[current.severity]) continue;
		}
		const { severity, confidence } = placed(hit);
		if (current && RANK[severity] >= RANK[current.severity]) continue;
		const unit = hit.unit;
		const detail = hit.evidence !== undefined && !SHOWN_EVIDENCE.has(hit.rule) ? hit.evidence : undefined;
		groups.set(key, {
			rule: hit.rule,
			severity,
			confidence,
			title: info.title,
			skill: target.name,
			file: join(shown, unit.file),
			...(unit.line > 0 ? { line: unit.line, column: unit.column + hit.start } : {}),
			snippet: snippet(hit),
			count: seen.size,
			...(detail !== undefined && unit.context !== "package" ? { detail } : {}),
			context: unit.context,
			why: info.why,
		});
	}
	return [...groups.values()];
}

const CONTEXT = 40;
/** Rules whose evidence is the matched text made visible (decoded tag characters); others keep it as a detail. */
const SHOWN_EVIDENCE = new Set(["unicode-tag-chars"]);

/**
 * The text of the file around the match (a little context on each side), invisible characters shown as code points.
 * It is always text of the file: what a chain was found from goes to the finding's `detail`.
 */
function snippet(hit: Hit): string {
	const text = hit.unit.text;
	if (hit.unit.context === "package") return visible(hit.evidence ?? text);
	const from = Math.max(0, hit.start - CONTEXT);
	const to = Math.min(text.length, hit.end + CONTEXT);
	const shown = hit.evidence !== undefined && SHOWN_EVIDENCE.has(hit.rule) ? hit.evidence : undefined;
	const matched = shown ?? text.slice(hit.start, Math.min(hit.end, hit.start + 200));
	const before = text.slice(from, hit.start).trimStart();
	const after = text.slice(hit.end, to).trimEnd();
	return `${from > 0 ? "…" : ""}${visible(before)}${visible(matched)}${visible(after)}${to < text.length ? "…" : ""}`.trim();
}

function visible(text: string): string {
	return text.replace(
		/[\u200B\u200C\u2060\u00AD\uFEFF\u202A-\u202E\u2066-\u2069\u180E]|\u200D|[\u{E0000}-\u{E007F}]|[\u{E0100}-\u{E01EF}]/gu,
		(c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`,
	);
}
