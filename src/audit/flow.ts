// Rules that follow one flow (a script, a code block, a command line) from a source to a sink: downloads that are
// then run, credentials read and sent, secrets put into requests or DNS names, decoded data executed, endpoints
// hidden by encoding. Each flow is read once, in order; state is a few small sets.

import { baseName, commandProgram, commandProgramIndex, type ShellCommand } from "../shell/index.ts";
import type { Report } from "./chars.ts";
import { codeMay } from "./code-anchors.ts";
import { commandHits, spanOf } from "./command-rules.ts";
import { type EncodedSecret, encodedSecrets, SECRET_NAME, SECRET_REF } from "./encoded-secrets.ts";
import { fetchesOnlyReviewed, installerSeverity } from "./installers.ts";
import { dependencyHits, type LineState, textHits } from "./lines.ts";
import { secretHits } from "./secret-send.ts";
import { stdinRole } from "./stdin-role.ts";
import type { Unit } from "./text.ts";
import { unitCommands } from "./unit-commands.ts";

/** What one skill's flows found that matters across flows (a credential read in one file, a send in another). */
export interface SkillFlows {
	sources: { unit: Unit; start: number; end: number; flowId: number; weak: boolean }[];
	sinks: { unit: Unit; flow: number }[];
}

const SOCKETS = new Set(["nc", "ncat", "netcat", "socat", "telnet"]);
const FETCHERS = new Set(["curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "aria2c"]);
const INTERPRETERS = new Set([
	"sh",
	"bash",
	"zsh",
	"dash",
	"ksh",
	"fish",
	"python",
	"python3",
	"python2",
	"node",
	"perl",
	"ruby",
	"php",
	"pwsh",
	"powershell",
	"iex",
	"invoke-expression",
	"bun",
	"deno",
	"osascript",
	"source",
	".",
	"eval",
	"cmd",
	"msiexec",
	"start-process",
	"open",
	"installer",
	"wine",
	"java",
]);
const NETWORK = new Set([
	...FETCHERS,
	"nc",
	"ncat",
	"netcat",
	"scp",
	"sftp",
	"ftp",
	"rsync",
	"socat",
	"telnet",
	"dig",
	"nslookup",
	"host",
	"drill",
	"ping",
]);
const EXTRACTORS = new Set(["unzip", "tar", "7z", "7za", "unrar", "bsdtar", "gunzip", "expand-archive", "ditto"]);

// What a program is to the download rules, as bits, so that a command is placed by one lookup (most are none).
const SOCKET = 1;
const FETCHER = 2;
const EXTRACTOR = 4;
const CHMOD = 8;
const NETWORKED = 16;
const ROLES = new Map<string, number>();
for (const [set, bit] of [
	[SOCKETS, SOCKET],
	[FETCHERS, FETCHER],
	[EXTRACTORS, EXTRACTOR],
	[new Set(["chmod"]), CHMOD],
	[NETWORK, NETWORKED],
] as const)
	for (const program of set) ROLES.set(program, (ROLES.get(program) ?? 0) | bit);

const CREDENTIAL =
	/\.ssh\/(id_|\*|\$)|(~|\$HOME|\$\{HOME\})\/\.(ssh|aws|gnupg|kube|docker)\b|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.aws\/credentials|\.config\/gcloud|\.kube\/config|\.docker\/config\.json|\.netrc\b|\.npmrc\b|\.pypirc\b|\.gnupg\b|\.git-credentials|Login Data|\/Cookies\b|Keychains?\/|wallet\.dat|Local Storage\/leveldb|\.electrum\b|\.exodus\b|(Google\/Chrome|BraveSoftware|Firefox|\.mozilla\/firefox)\/[^\n]{0,60}(Login Data|Cookies|key[34]\.db|logins\.json)|login\.keychain|security\s{1,5}(find-generic-password|find-internet-password|dump-keychain)|\/etc\/shadow|\.password-store|\.config\/gh\/hosts|\bprintenv\b(?!\s{1,5}[A-Za-z_])|JSON\.stringify\(\s{0,3}process\.env\s{0,3}\)|Object\.(entries|keys|values)\(\s{0,3}process\.env\s{0,3}\)|dict\(\s{0,3}os\.environ\s{0,3}\)|os\.environ\.(copy|items)\(\)|json\.dumps\(\s{0,3}(dict\()?os\.environ|str\(\s{0,3}os\.environ\s{0,3}\)|Get-ChildItem\s{1,5}env:|\bfind\s[^|;&\n]{0,120}-name\s{1,5}["']?(\*\.pem|\*\.key|id_rsa|\.env|\*\.env)/i;
// A word every CREDENTIAL form holds: a cheap test first, since most lines name no credential at all.
const CREDENTIAL_HINT =
	/ssh|aws|gnupg|kube|docker|id_|gcloud|netrc|npmrc|pypirc|credential|login|cookies|keychain|wallet|leveldb|electrum|exodus|chrome|brave|firefox|mozilla|security|shadow|password|gh\/hosts|printenv|process\.env|os\.environ|env:|-name/i;
const DOTENV = /(^|[\s"'`/=(])\.env(\.local|\.production)?(?![\w.-])/;
const NET_CALL =
	/\brequests\.(get|post|put|patch|request)\b|\bhttpx\.(get|post|put|AsyncClient|Client)\b|\burllib\.request\b|\burlopen\(|\bfetch\(|\baxios\b|\bhttps?\.request\(|\bhttps?\.get\(|\.connect\(\s{0,3}\(|\bsmtplib\b|Invoke-(WebRequest|RestMethod)|New-Object\s{1,5}(System\.)?Net\.WebClient|\bWebClient\b|\bsocket\.create_connection\b/;

interface FlowState extends LineState {
	id: number;
	downloads: Map<string, { unit: Unit; archive: boolean; vendor: boolean }>;
	extracted: boolean;
	executable: Set<string>;
	sources: SkillFlows["sources"];
	sinks: Unit[];
	tainted: Map<string, string>;
	encoded: EncodedSecret[];
}

/** Runs the code rules on the units of one flow (in order) and records what the skill-wide rules need. */
export function flowHits(units: readonly Unit[], flow: number, skill: SkillFlows, report: Report): void {
	const state: FlowState = {
		id: flow,
		downloads: new Map(),
		extracted: false,
		executable: new Set(),
		sources: [],
		sinks: [],
		decoded: undefined,
		hidden: [],
		tainted: new Map(),
		encoded: [],
	};
	for (const unit of units) unitHits(unit, state, report);
	for (const source of state.sources) {
		if (state.sinks.length > 0 && !source.weak) {
			const sink = state.sinks[0] as Unit;
			// The whole command is the evidence: the snippet shows the line from the read to its end, as written.
			const place = { unit: source.unit, start: source.start, end: source.unit.text.length };
			report({ ...place, rule: "credential-exfiltration", flow: true, evidence: chain(source, sink) });
		} else skill.sources.push(source);
	}
	for (const hidden of state.hidden) {
		report({ rule: "obfuscated-endpoint", ...hidden, severity: state.sinks.length > 0 ? "P0" : "P1", flow: true });
	}
	for (const secret of state.encoded.slice(0, 1)) {
		const sent = secret.sent || state.sinks.length > 0;
		const severity = secret.named ? (sent ? "P0" : secret.unit.context === "script" ? "P1" : "P2") : "P1";
		report({
			rule: "secret-exfiltration",
			unit: secret.unit,
			start: secret.start,
			end: secret.end,
			severity,
			flow: true,
		});
	}
	skill.sinks.push(...state.sinks.map((unit) => ({ unit, flow })));
}

function chain(source: { unit: Unit; start: number; end: number }, sink: Unit): string {
	const read = source.unit.text.slice(source.start, source.end);
	return `reads ${read} (line ${source.unit.line}), sends at line ${sink.line}: ${sink.text.trim().slice(0, 120)}`;
}

// Every literal the line-level code rules need; a unit without any of them skips those rules.
const TRIGGER =
	/curl|wget|exec|eval|iex|invoke|~\/|electrum|exodus|leveldb|chrome|brave|firefox|mozilla|find-generic|dump-keychain|\/dev\/|mkfifo|socket|pty|\bdd\b|mkfs|:\(\)|rmtree|remove-item|\b(rd|del|rmdir|format)\b|base64|b64|atob|buffer|xxd|hex|codecs|open\(|write|append|out-file|-content|install|prepare|cmdclass|requests|httpx|urllib|urlopen|fetch|axios|http|connect|smtp|webclient|\.ssh|id_|aws|gcloud|kube|docker|netrc|npmrc|pypirc|gnupg|credential|login data|cookies|keychain|wallet|shadow|password|gh\/|printenv|environ|process\.env|env:|\.env|find|tmp\/|\$|=|-enc/i;

// Prose with none of these characters holds no command a rule could match (a flag, a path, a pipe, a variable).
const PROSE_HINT = /[|/$>~=(`\\]|\s-{1,2}[a-zA-Z]/;

function unitHits(unit: Unit, state: FlowState, report: Report): void {
	const text = unit.text;
	if ((unit.context === "prose" || unit.context === "table") && !PROSE_HINT.test(text)) return;
	if (unit.kind === "data") dependencyHits(unit, report);
	const { commands, own, after } = unitCommands(unit);
	let sink = false;
	for (let i = 0; i < commands.length; i++) {
		const command = commands[i] as ShellCommand;
		commandHits(unit, command, report);
		// The last command a window owns is piped into the first one of the next window.
		const next = i === own - 1 && after !== undefined ? after : commands[i + 1];
		if (downloadHits(unit, command, next, state, report)) sink = true;
	}
	if (!TRIGGER.test(text)) {
		if (sink) state.sinks.push(unit);
		return;
	}
	textHits(unit, state, report);
	if (state.encoded.length === 0) state.encoded.push(...encodedSecrets(unit, commands, state.tainted));
	if (sink || (codeMay(unit, "NET_CALL") && NET_CALL.test(text))) {
		state.sinks.push(unit);
		secretHits(unit, commands, state.tainted, report);
	}
	// A credential named in prose is documentation, unless the sentence tells the agent to read or pass it on.
	const prose =
		(unit.context === "prose" || unit.context === "comment" || unit.context === "table") &&
		!/\b(read|cat|open|load|include|print|copy|send|upload|output|display|paste|attach|exfiltrate)\b/i.test(text);
	const credential = codeMay(unit, "CREDENTIAL_HINT") && CREDENTIAL_HINT.test(text) ? CREDENTIAL.exec(text) : null;
	const dump =
		commands.find(
			(c) =>
				(c.words.length === 1 && (c.words[0] === "env" || c.words[0] === "set")) ||
				(commandProgram(c) === "printenv" && c.words.length === commandProgramIndex(c) + 1),
		) ?? envSubstitution(text);
	if (credential || dump) {
		const start = credential ? credential.index : (dump?.start ?? 0);
		const end = credential ? credential.index + credential[0].length : start + 8;
		state.sources.push({ unit, start, end, flowId: state.id, weak: prose });
	} else {
		const dotenv = codeMay(unit, "DOTENV") ? DOTENV.exec(text) : null;
		if (dotenv && /\b(cat|open|read|load_dotenv|readFile|source|Get-Content|curl|--data)\b/.test(text))
			state.sources.push({
				unit,
				start: dotenv.index,
				end: dotenv.index + dotenv[0].length,
				flowId: state.id,
				weak: true,
			});
	}
	taint(unit, state);
}

// The whole environment inside a substitution, filtered or not: `"$(env | grep KEY)"`, `` `printenv` ``.
const ENV_SUBSTITUTION = /\$\(\s{0,3}(env|printenv|set)\s{0,3}[)|]|`\s{0,3}(env|printenv)\s{0,3}[`|]/;

function envSubstitution(text: string): { start: number } | undefined {
	const match = text.includes("env") || text.includes("set") ? ENV_SUBSTITUTION.exec(text) : null;
	return match ? { start: match.index } : undefined;
}

/** Pipes into interpreters, downloads, and runs of what was downloaded. Returns true when the command is a sink. */
function downloadHits(
	unit: Unit,
	command: ShellCommand,
	next: ShellCommand | undefined,
	state: FlowState,
	report: Report,
): boolean {
	const words = command.words;
	const at = commandProgramIndex(command);
	const program = commandProgram(command);
	const role = ROLES.get(program) ?? 0;
	const substituted = fetchSubstituted(words);
	// A socket's bytes piped into a shell that runs them: a bind or reverse shell without `-e`.
	if (role & SOCKET && command.next === "|" && next && INTERPRETERS.has(commandProgram(next)))
		if (stdinRole(next) === "program") report({ rule: "reverse-shell", unit, ...spanOf(unit, command) });
	// Most commands of a long line fetch, unpack and run nothing: skip them before anything is allocated.
	if (!substituted && state.downloads.size === 0 && (role & (FETCHER | EXTRACTOR | CHMOD)) === 0)
		return (role & NETWORKED) !== 0;
	const args = words.slice(at + 1);
	// The span is found only for a hit: finding it scans the rest of the line, once per command would be quadratic.
	const span = () => spanOf(unit, command);
	if (FETCHERS.has(program)) {
		const role = command.next === "|" && next && INTERPRETERS.has(commandProgram(next)) ? stdinRole(next) : "data";
		if (role !== "data")
			report({
				rule: "remote-to-interpreter",
				unit,
				...span(),
				severity: role === "script" ? "P1" : fetchesOnlyReviewed(program, args) ? installerSeverity(args) : undefined,
			});
		// Whether a reviewed installer host served the files: asked only when the fetch saves one.
		const files = downloadedFiles(program, args);
		const vendor = files.length > 0 && fetchesOnlyReviewed(program, args) && installerSeverity(args) === "P1";
		for (const file of files)
			state.downloads.set(file, { unit, archive: /\.(zip|tar|tgz|gz|rar|7z|dmg|pkg)$/i.test(file), vendor });
	}
	if (substituted && (INTERPRETERS.has(program) || program === "eval" || at > 0))
		report({ rule: "remote-to-interpreter", unit, ...span(), severity: installerSeverity(args) });
	if (program === "chmod")
		for (const a of args) if (state.downloads.has(baseName(a))) state.executable.add(baseName(a));
	if (EXTRACTORS.has(program)) {
		const archive = args.find((a) => state.downloads.has(baseName(a)));
		if (archive) state.extracted = true;
		if (args.some((a) => /^-[pP]/.test(a)) || args.includes("--password"))
			report({ rule: "install-lure", unit, ...span(), severity: archive ? "P0" : "P1" });
	}
	const runs = runsDownloaded(words[at] ?? "", program, args, state);
	// Running what a reviewed installer host served (Docker's get-docker.sh) asks; anything else downloaded refuses.
	if (runs) {
		const vendor = [...state.downloads.values()].every((d) => d.vendor);
		report({
			rule: "download-execute",
			unit,
			...span(),
			flow: true,
			evidence: runs,
			severity: vendor ? "P1" : undefined,
		});
	}
	return (role & NETWORKED) !== 0;
}

/** A word that is a fetch's output: `$(curl …)`, `<(wget …)`, a backquoted curl (a loop: it runs per command). */
function fetchSubstituted(words: readonly string[]): boolean {
	for (let i = 0; i < words.length; i++) {
		const w = words[i] as string;
		const c = w.charCodeAt(0);
		if (
			(((c === 36 || c === 60) && w.charCodeAt(1) === 40) || c === 96) &&
			/^[$<]\(\s{0,3}(curl|wget|iwr|irm)\b|^`\s{0,3}(curl|wget)\b/.test(w)
		)
			return true;
	}
	return false;
}

function downloadedFiles(program: string, args: readonly string[]): string[] {
	const files: string[] = [];
	const url =
		program === "curl" || program === "wget"
			? args.find((a) => (a[0] === "h" || a[0] === "f") && /^(https?|ftp):\/\//.test(a))
			: undefined;
	// An index loop: `entries()` allocates an iterator and a pair per word, for every fetch of a long line.
	for (let i = 0; i < args.length; i++) {
		const a = args[i] as string;
		// Every form below is an option: most words of a command are not.
		if (a[0] !== "-") continue;
		const value = args[i + 1] ?? "";
		// The option patterns are tried only on words that hold their letter (`-s` holds neither `O` nor a final `o`).
		if (program === "curl" && (a === "-o" || a === "--output")) files.push(baseName(value));
		else if (program === "curl" && a.includes("O") && /^-[a-zA-Z]{0,8}O[a-zA-Z]{0,8}$/.test(a) && url)
			files.push(baseName(url));
		else if (program === "curl" && a === "--remote-name" && url) files.push(baseName(url));
		else if (program === "curl" && a.endsWith("o") && /^-[a-zA-Z]{0,8}o$/.test(a)) files.push(baseName(value));
		else if (program === "wget" && (a === "-O" || a === "--output-document")) files.push(baseName(value));
		else if (program === "wget" && a.startsWith("--output-document=")) files.push(baseName(a.slice(18)));
		else if ((a.length === 8 && /^-outfile$/i.test(a)) || (program === "aria2c" && a === "-o"))
			files.push(baseName(value));
	}
	if (files.length === 0 && program === "wget" && url) files.push(baseName(url));
	if (files.length === 0) return files;
	return files.filter((f) => f !== "" && f !== "-" && f !== "/dev/null");
}

function runsDownloaded(word: string, program: string, args: readonly string[], state: FlowState): string | undefined {
	if (state.downloads.size === 0) return undefined;
	const own = baseName(word);
	if (state.downloads.has(own) && (word.includes("/") || word.includes("\\") || state.executable.has(own)))
		return `runs the downloaded ${own}`;
	if (INTERPRETERS.has(program)) {
		const file = args.find((a) => state.downloads.has(baseName(a)) && !state.downloads.get(baseName(a))?.archive);
		if (file) return `${program} runs the downloaded ${baseName(file)}`;
	}
	if (state.extracted && (word.startsWith("./") || (INTERPRETERS.has(program) && args.some((a) => a.includes("/")))))
		return `runs ${word} from the downloaded archive`;
	return undefined;
}

const ENV_VALUE = /[:=]\s{0,3}(?:os\.environ|os\.getenv|process\.env|\$\{?[A-Z_]|\$env:)/g;

/** `NAME = os.environ["GITHUB_TOKEN"]`: later uses of NAME carry the secret. */
function taint(unit: Unit, state: FlowState): void {
	if (!codeMay(unit, "ENV_VALUE")) return;
	const text = unit.text;
	const variable = assignedFromEnvironment(text);
	if (variable === undefined || !codeMay(unit, "SECRET_NAME")) return;
	for (const ref of text.matchAll(SECRET_REF)) {
		const name = ref.slice(1).find(Boolean) ?? "";
		if (SECRET_NAME.test(name)) state.tainted.set(variable, name);
	}
}

/**
 * The first name assigned from the environment (`NAME = os.environ…`, `NAME=$TOKEN`), found from the `=` backwards so
 * the search anchors only at `:` and `=`, not at every word of a long line.
 */
function assignedFromEnvironment(text: string): string | undefined {
	for (const match of text.matchAll(ENV_VALUE)) {
		let end = match.index;
		for (let spaces = 0; spaces < 3 && end > 0 && /\s/.test(text[end - 1] as string); spaces++) end--;
		let start = end;
		while (start > 0 && end - start < 41 && /\w/.test(text[start - 1] as string)) start--;
		const name = text.slice(start, end);
		if (name !== "" && /^[A-Za-z_]/.test(name) && (start === 0 || !/\w/.test(text[start - 1] as string))) return name;
	}
	return undefined;
}
