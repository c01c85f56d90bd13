// Line-level code rules in any language: remote code evaluated, decoded data executed (on one line or a later one),
// reverse shells, wipes, writes to persistence files, install hooks, endpoints hidden in base64 or split strings, and
// dependency manifests. Every pattern is bounded.

import type { Report } from "./chars.ts";
import { type CodeAnchor, codeMay } from "./code-anchors.ts";
import { isSystemFile, persistenceTarget } from "./command-rules.ts";
import { installerSeverity } from "./installers.ts";
import { isTyposquat } from "./packages.ts";
import type { Unit } from "./text.ts";

/** What line rules carry from one line of a flow to the next. */
export interface LineState {
	decoded: { unit: Unit; start: number; end: number } | undefined;
	hidden: { unit: Unit; start: number; end: number }[];
}

const DECODE =
	/base64\s{1,5}(-d|--decode|-D)\b|\bb64decode\b|\batob\(|Buffer\.from\([^)]{0,300}["']base64["']|\bxxd\s{1,5}-r|\bfromhex\b|\bunhexlify\b|FromBase64String|codecs\.decode\([^)]{0,200}rot.?13/i;
const EXEC =
	/\|\s{0,3}(sudo\s{1,3})?(ba|z|da)?sh\b|\beval\b|\bexec\s{0,3}\(|\bFunction\(|\bsh\s{1,3}-c\b|\bpython3?\s{1,3}-c\b|\biex\b|Invoke-Expression|\bsubprocess\.|\bos\.system\b|\bchild_process\b|\bexecSync\b|\bspawn\(/i;
const REMOTE_EXEC =
	/\b(exec|eval)\s{0,3}\(\s{0,3}(requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get|urllib2\.urlopen)\b|\b(iex|invoke-expression)\s{0,3}\(?\s{0,3}\(?\s{0,3}(iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s{1,5}(system\.)?net\.webclient)\b|\.DownloadString\([^)]{0,300}\)\s{0,3}\|\s{0,3}(iex|invoke-expression)\b|\beval\s{0,3}\(\s{0,3}(await\s{1,3})?\(?\s{0,3}(await\s{1,3})?fetch\(|new\s{1,3}Function\(\s{0,3}(await\s{1,3})?\(?\s{0,3}(await\s{1,3})?fetch\(|-EncodedCommand\b|\s-enc\s/i;
const REVERSE =
	/\/dev\/(tcp|udp)\/[\w.$-]{1,100}\/\d{1,5}|\bmkfifo\b[^\n]{0,200}\b(nc|ncat|netcat)\b|socket\.socket\([^\n]{0,300}\b(dup2|pty\.spawn)\b|\bpty\.spawn\([^\n]{0,100}["']\/bin\/(ba)?sh/;
const DESTROY =
	/\bdd\b[^\n]{0,200}\bof=\/dev\/(sd|hd|nvme|disk|mmcblk|xvd|vd)|\bmkfs(\.\w{1,8})?\s{1,5}\/dev\/|:\(\)\s{0,3}\{\s{0,3}:\s{0,3}\|\s{0,3}:\s{0,3}&\s{0,3}\}\s{0,3};\s{0,3}:|shutil\.rmtree\(\s{0,3}(["']\/["']|["']~\/?["']|os\.path\.expanduser\(\s{0,3}["']~\/?["']\s{0,3}\)|Path\.home\(\)|os\.environ\[["']HOME["']\])\s{0,3}[,)]|Remove-Item[^\n]{0,200}-Recurse[^\n]{0,200}(\s(C:\\\\?|\$HOME|~|\$env:USERPROFILE)(\s|$))|\b(rd|rmdir|del)\s{1,5}\/s\s{1,5}\/q\s{1,5}[A-Za-z]:\\\\?(\s|$)|\bformat\s{1,5}[A-Za-z]:(\s|$)/i;
// Code run from a temporary folder: the contents of any file there evaluated, or a hidden file there run or sourced.
// Whatever wrote the file decides what runs, and no reviewer saw it.
const STAGED =
	/\b(exec|eval|execfile|run_path)\s{0,3}\(\s{0,3}(compile\(\s{0,3})?((open|readFileSync|fs\.readFileSync)\(\s{0,3})?["'](\/tmp|\/var\/tmp|\/dev\/shm)\/[^"'\n]{1,200}["']|(^|[\s;&|(])(source|\.|sh|bash|zsh|python[0-9.]*|node|perl|ruby)\s{1,5}["']?(\/tmp|\/var\/tmp|\/dev\/shm)\/([^\s"'/]{1,100}\/){0,4}\.[\w.-]{1,100}/;
const WRITE_API =
	/\bopen\([^)\n]{0,300}["'](w|a|wb|ab|w\+|a\+)["']|\b(write_text|writeFileSync|appendFileSync|writeFile|appendFile|Out-File|Add-Content|Set-Content)\b/;

/** Line-level forms in any language: remote code evaluated, decode and run, reverse shells, wipes, writes. */
export function textHits(unit: Unit, state: LineState, report: Report): void {
	const text = unit.text;
	// Each regex searches only a text that holds one of its words (code-anchors.ts): one pass instead of many.
	const match = (pattern: RegExp, name: CodeAnchor, rule: string) => {
		const m = codeMay(unit, name) ? pattern.exec(text) : null;
		if (m) report({ rule, unit, start: m.index, end: m.index + m[0].length });
	};
	const remote = codeMay(unit, "REMOTE_EXEC") ? REMOTE_EXEC.exec(text) : null;
	if (remote) {
		const severity = installerSeverity([text]);
		const span = { start: remote.index, end: remote.index + remote[0].length };
		report({ rule: "remote-to-interpreter", unit, ...span, severity });
	}
	match(REVERSE, "REVERSE", "reverse-shell");
	match(DESTROY, "DESTROY", "destructive-command");
	if (text.includes("tmp/") || text.includes("/dev/shm/")) {
		const staged = STAGED.exec(text);
		if (staged) report({ rule: "staged-execute", unit, start: staged.index, end: staged.index + staged[0].length });
	}
	const executes = () => codeMay(unit, "EXEC") && EXEC.test(text);
	const decode = codeMay(unit, "DECODE") ? DECODE.exec(text) : null;
	if (decode) {
		const span = { start: decode.index, end: decode.index + decode[0].length };
		if (executes()) report({ rule: "decode-execute", unit, ...span });
		else state.decoded = { unit, ...span };
		hiddenEndpoints(unit, state);
	} else if (state.decoded && executes()) {
		report({ rule: "decode-execute", ...state.decoded, flow: true });
		state.decoded = undefined;
	}
	concatenatedEndpoints(unit, state);
	if (codeMay(unit, "WRITE_API") && WRITE_API.test(text)) {
		for (const literal of literals(text)) {
			const severity = persistenceTarget(literal.value.replace(/^~|^\$HOME/, "~"));
			if (severity) {
				report({ rule: "persistence", unit, start: literal.start, end: literal.end, severity });
				break;
			}
			if (isSystemFile(literal.value)) {
				report({ rule: "system-changes", unit, start: literal.start, end: literal.end, severity: "P1" });
				break;
			}
		}
	}
	const hook = /(^|\/)package\.json$/.test(unit.file)
		? /"(preinstall|install|postinstall|prepare|prepublish)"\s{0,3}:\s{0,3}"([^"\n]{0,500})"/.exec(text)
		: null;
	if (hook) {
		const worse = /\b(curl|wget|node\s{1,3}-e|base64|https?:\/\/|eval|bash\s{1,3}-c)\b/.test(hook[2] ?? "");
		// `prepare` and `prepublish` run for the package's own developers (builds, git hooks), not on every install.
		const severity = worse ? "P0" : hook[1]?.startsWith("prep") ? "P2" : "P1";
		report({ rule: "install-hook", unit, start: hook.index, end: hook.index + hook[0].length, severity, flow: true });
	}
	if (/(^|\/)setup\.py$/.test(unit.file) && /\bcmdclass\s{0,3}=/.test(text))
		report({ rule: "install-hook", unit, start: 0, end: Math.min(text.length, 120), severity: "P1", flow: true });
}

/** A quoted string literal and its span. */
type Literal = { value: string; start: number; end: number };
let lastLiterals: { text: string; found: Literal[] } | undefined;

// The next quotation mark: one regular-expression search instead of a look at every character.
const QUOTE = /["'`]/g;

/** Quoted string literals of a line with their spans (no escapes inside; bounded). The last answer is reused. */
export function literals(text: string): Literal[] {
	if (lastLiterals?.text === text) return lastLiterals.found;
	const found: Literal[] = [];
	lastLiterals = { text, found };
	QUOTE.lastIndex = 0;
	while (found.length < 200) {
		const quote = QUOTE.exec(text);
		if (quote === null) break;
		const i = quote.index;
		const c = quote[0];
		const end = text.indexOf(c, i + 1);
		if (end === -1 || end - i > 4096) break;
		found.push({ value: text.slice(i + 1, end), start: i, end: end + 1 });
		QUOTE.lastIndex = end + 1;
	}
	return found;
}

/** Base64 literals that decode to a URL, in a line that decodes something. */
function hiddenEndpoints(unit: Unit, state: LineState): void {
	for (const literal of literals(unit.text)) {
		if (literal.value.length < 12 || !/^[A-Za-z0-9+/=_-]+$/.test(literal.value)) continue;
		const decoded = Buffer.from(literal.value, "base64").toString("latin1");
		if (/^[\x20-\x7e]{8,}$/.test(decoded) && /:\/\/|\b(curl|wget|bash|sh -c|powershell)\b/.test(decoded))
			state.hidden.push({ unit, start: literal.start, end: literal.end });
	}
}

/** String literals glued with `+`, `,` or nothing that spell a URL none of them holds alone. */
function concatenatedEndpoints(unit: Unit, state: LineState): void {
	const parts = literals(unit.text);
	let joined = "";
	let first = 0;
	// An index loop: `entries()` allocates an iterator and a pair per literal, on every line of code.
	for (let i = 0; i < parts.length; i++) {
		const part = parts[i] as Literal;
		const previous = parts[i - 1];
		// At most six characters apart: the gap is cut out and read only then.
		const glued =
			previous && part.start - previous.end <= 6 && /^[\s+,]{0,6}$/.test(unit.text.slice(previous.end, part.start));
		if (!glued) {
			joined = "";
			first = i;
		}
		joined += part.value;
		if (
			i > first &&
			/^(https?|wss?|ftp):\/\/[\w.-]{3,}/.test(joined) &&
			!parts.slice(first, i + 1).some((p) => /(https?|wss?|ftp):\/\/[\w.-]{3}/.test(p.value))
		) {
			const start = parts[first]?.start ?? 0;
			state.hidden.push({ unit, start, end: part.end });
			joined = "";
			first = i + 1;
		}
	}
}

/** Dependency manifests: look-alike names and custom indexes in requirements files and package.json. */
export function dependencyHits(unit: Unit, report: Report): void {
	const text = unit.text.trim();
	const at = Math.max(0, unit.text.indexOf(text));
	const span = { start: at, end: at + Math.min(text.length, 200) };
	if (/(^|\/)requirements[\w.-]{0,40}\.(txt|in)$/.test(unit.file)) {
		if (
			/^(-i|--index-url|--extra-index-url)\b/.test(text) &&
			!/pypi\.org|pythonhosted\.org|download\.pytorch\.org/.test(text)
		)
			report({ rule: "untrusted-package-source", unit, ...span, flow: true });
		const name = /^([A-Za-z0-9][\w.-]{0,100})/.exec(text)?.[1];
		if (name && isTyposquat(name.toLowerCase(), "pypi"))
			report({ rule: "typosquat-package", unit, ...span, severity: text.includes("==") ? "P2" : "P1", flow: true });
	} else if (/(^|\/)package\.json$/.test(unit.file)) {
		const dependency = /^"(@?[\w./-]{1,100})"\s{0,3}:\s{0,3}"([^"]{0,200})"/.exec(text);
		if (!dependency || !isTyposquat((dependency[1] ?? "").toLowerCase(), "npm")) return;
		report({
			rule: "typosquat-package",
			unit,
			...span,
			severity: /^\d/.test(dependency[2] ?? "") ? "P2" : "P1",
			flow: true,
		});
	}
}
